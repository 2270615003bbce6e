"""Attacks on the harness itself, each reproduced, each refused (docs/robustness.md).

Hostile engine text, hostile files, bad output paths, signals and escaped daemons.
Signal and daemon tests run the harness as a real subprocess (the command line is
what becomes a subreaper and installs the handlers); they synchronise on files the
adapter writes at a known point, never on time: every wait is for a condition, with
a generous bound that only matters when something is broken.
"""

from __future__ import annotations

import io
import json
import os
import signal
import stat
import subprocess
import sys
import time
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.adapter.engine import EngineSession
from conformance.adapter.pipes import StderrDrain
from conformance.adapter.process import refusing_new_sessions
from conformance.adapter.protocol import decode_line, encode_request
from conformance.adapter.reaper import SESSION_VARIABLE
from conformance.cli import main
from conformance.errors import EngineReportedError
from conformance.io.files import atomic_write_text
from conformance.io.textsafe import (
    MAX_CASE_TEXT,
    MAX_STRING,
    cap_total,
    escape,
    safe_json,
    safe_tail,
    safe_text,
    terminal_text,
)
from conformance.io.yamlsafe import MAX_FILE_BYTES
from conformance.reports.outputs import emit
from conformance.run.expectations import ExpectationsError, load_expectations
from conformance.scenarios import load_corpus, load_file
from tests.paths import ROOT

FAKES = ROOT / "tests" / "fake_adapters"
DATA = Path(__file__).parent / "data"
CAT = ["--catalogue", str(DATA / "catalogue.json")]
GOOD = DATA / "good"
FAKE_ENGINE = f"{sys.executable} {DATA / 'fake_engine.py'}"
REPORT_SCHEMA = json.loads(
    (ROOT / "conformance" / "schemas" / "report.schema.json").read_text(encoding="utf-8")
)
TAG_VARIABLE = "CARIOCA_HARDENING_TAG"
#: Bound on any wait for a subprocess; only reached when something is broken.
PATIENCE = 120.0
#: Everything an engine can send that a terminal obeys or XML refuses.
POISON = '"\\ud800 \\udfff \\ufffe \\uffff \\u001b[2J \\u0007 \\u0000 \\u009b \\r"'
RAW_BAD = ("\x1b", "\x07", "\x00", "\x9b", "\ufffe", "\uffff", "\ud800")


def pid_alive(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return raw[raw.rfind(b")") + 2 :][:1] != b"Z"


def processes_tagged(tag: str) -> list[int]:
    """Live processes whose environment carries ``TAG_VARIABLE=tag``."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0") and pid_alive(int(entry)):
            found.append(int(entry))
    return found


def wait_for(condition: object, what: str, within: float = PATIENCE) -> None:
    """Poll ``condition()`` until true; fail naming ``what`` after ``within`` seconds."""
    deadline = time.monotonic() + within
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def proxy(name: str, *args: str) -> str:
    return " ".join([sys.executable, str(FAKES / name), *args])


# -- 1. engine text: surrogates, U+FFFE/U+FFFF, controls, size ------------------------


def test_escape_makes_every_unsafe_character_visible() -> None:
    assert escape("ok ♥ 10H\tand\nlines") == "ok ♥ 10H\tand\nlines"
    assert escape("\ud800") == "\\ud800"
    assert escape("\ufffe\uffff") == "\\ufffe\\uffff"
    assert escape("\x1b[2J\x07\x00\x9b\x7f") == "\\x1b[2J\\x07\\x00\\x9b\\x7f"
    assert escape("a\r\nb\rc") == "a\nb\\x0dc"
    for bad in RAW_BAD:
        cleaned = safe_text(f"x{bad}y")
        cleaned.encode("utf-8")  # encodable
        assert bad not in cleaned


def test_safe_text_caps_with_a_visible_marker() -> None:
    text = "r" * (MAX_STRING * 1000)
    cut = safe_text(text)
    assert cut.startswith("r" * MAX_STRING)
    assert f"cut by the harness: {len(text)} characters in all" in cut
    assert len(cut) < MAX_STRING + 100
    # Escaping cannot push a string past the cap either.
    escaped = safe_text("\x00" * MAX_STRING)
    assert len(escaped) < MAX_STRING + 100 and "cut by the harness" in escaped
    # A tail keeps the last characters, escaped, and no more of them than asked.
    assert safe_tail("abc\x1b", 4) == "\\x1b"
    assert safe_tail("abcdef", 3) == "def"


def test_safe_json_reaches_keys_and_nested_strings() -> None:
    value = {"k\x1b": ["\ud800", {"n": "\ufffe"}], "n": 3, "b": True}
    assert safe_json(value) == {"k\\x1b": ["\\ud800", {"n": "\\ufffe"}], "n": 3, "b": True}


def test_decode_line_is_where_engine_text_is_made_safe() -> None:
    line = b'{"id": 1, "accepted": false, "reason": "\\ud800\\ufffe\\u001b\\u0007"}'
    assert decode_line(line)["reason"] == "\\ud800\\ufffe\\x1b\\x07"
    huge = b'{"id": 1, "reason": "' + b"x" * (MAX_STRING * 10) + b'"}'
    assert len(decode_line(huge)["reason"]) < MAX_STRING + 100
    # JSON escapes that decode to controls are caught too, not only raw characters.
    assert decode_line(b'{"id": 1, "reason": "a\\rb\\bc\\fd\\n"}')["reason"] == (
        "a\\x0db\\x08c\\x0cd\n"
    )
    # Ordinary answers come back untouched.
    assert decode_line(b'{"id": 2, "points": 33}') == {"id": 2, "points": 33}


def strings_in(value: object) -> list[str]:
    """Every string of a decoded JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*strings_in(k), *strings_in(v))]
    if isinstance(value, list):
        return [s for item in value for s in strings_in(item)]
    return []


@given(st.text(), st.integers(min_value=0, max_value=3))
def test_whatever_text_an_engine_sends_comes_out_safe(text: str, copies: int) -> None:
    """Any string (hypothesis draws surrogates and controls freely), as a value and a key."""
    line = encode_request({"id": 1, text: [text * copies, {"k": text}]})
    for piece in strings_in(decode_line(line[:-1])):
        piece.encode("utf-8")  # no lone surrogate left
        assert all(ch in "\t\n" or (ch.isprintable() or ord(ch) > 0x9F) for ch in piece)
        assert "\ufffe" not in piece and "\uffff" not in piece
        assert len(piece) <= MAX_STRING + 60


def test_cap_total_bounds_what_one_case_keeps() -> None:
    from conformance.run.runner import CASE_TEXT_FIELDS, CaseResult

    big = "d" * MAX_CASE_TEXT
    result = CaseResult("cc-0001", "t", (), "S", "fail", diff=big, stderr_tail=big, error=big)
    capped = cap_total(result, CASE_TEXT_FIELDS)
    kept = sum(len(getattr(capped, name) or "") for name in CASE_TEXT_FIELDS)
    assert kept <= MAX_CASE_TEXT
    assert "cut by the harness" in capped.stderr_tail
    assert cap_total(CaseResult("cc-0001", "t", (), "S", "pass"), CASE_TEXT_FIELDS).diff is None


def test_poisoned_engine_text_never_loses_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 1: a lone surrogate, U+FFFE, ESC/BEL/NUL in the name, reasons, an error
    message and stderr; stdout that can encode only ASCII. Every report is written and
    valid, the terminal gets escapes only."""
    terminal = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", terminal)
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    expected = tmp_path / "expected.yaml"
    code = main(
        [
            "run",
            "--rule",
            "SCORE",
            "--rule",
            "TURN-9",
            "--adapter",
            # An internal answer to a melds query fails its check; to next_deal, errs the case.
            proxy(
                "evil_text_proxy.py",
                "--text",
                f"'{POISON}'",
                "--error-on",
                "penalty",
                "--error-on",
                "next_deal",
            ),
            "--json",
            str(report),
            "--junit",
            str(junit),
            "--write-expectations",
            str(expected),
        ]
    )
    assert code == 1
    terminal.flush()
    printed = terminal.buffer.getvalue().decode("ascii")  # type: ignore[attr-defined]
    document = json.loads(report.read_text(encoding="utf-8"))
    jsonschema.validate(document, REPORT_SCHEMA)
    ET.parse(junit)  # well-formed
    written = {
        "terminal": printed,
        "json": report.read_text(encoding="utf-8"),
        "junit": junit.read_text(encoding="utf-8"),
        "expectations": expected.read_text(encoding="utf-8"),
    }
    for where, text in written.items():
        for bad in RAW_BAD:
            assert bad not in text, (where, bad)
    name = document["header"]["engine"]["implementation"]["name"]
    assert name.startswith("evil \\ud800 \\udfff \\ufffe")
    errored = [c for c in document["cases"] if c["status"] == "error"]
    assert errored and "\\x1b[2J" in errored[0]["error"]
    assert "\\x1b[2J\\x07\\x00" in errored[0]["stderr_tail"]
    failed = [c for c in document["cases"] if c["status"] == "fail" and c.get("engine_message")]
    assert failed and "\\x1b[2J" in failed[0]["engine_message"]
    assert "evil \\ud800" in printed


def test_a_4_mb_reason_on_every_answer_stays_small(tmp_path: Path) -> None:
    """Weak spot: engine strings are capped at 4 KiB each and 64 KiB per case."""
    report = tmp_path / "r.json"
    code = main(
        [
            "run",
            "--rule",
            "TURN-9",
            "--adapter",
            proxy("evil_text_proxy.py", "--text", "'\"xy\"'", "--repeat", str(2 * 2**20)),
            "--json",
            str(report),
        ]
    )
    assert code == 1
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["summary"]["fail"] >= 1
    for case in document["cases"]:
        assert len(json.dumps(case)) < MAX_CASE_TEXT + 4096
    assert report.stat().st_size < 100 * 1024 * len(document["cases"])


def test_terminal_output_that_cannot_be_encoded_is_escaped() -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    emit("10♥ \ud800\n", stream)
    assert stream.buffer.getvalue() == b"10\\u2665 \\ud800\n"  # type: ignore[attr-defined]


def test_terminal_text_escapes_every_control_but_a_progress_lines_carriage_return() -> None:
    assert terminal_text("a\tb\nc") == "a\tb\nc"
    assert terminal_text("\x1b]0;title\x07 \x1b[2J \x9b31m \x00") == (
        "\\x1b]0;title\\x07 \\x1b[2J \\x9b31m \\x00"
    )
    # A progress line redraws itself with a CR at its start or end; one inside hides text.
    assert terminal_text("\r[3/9] cc-0001") == "\r[3/9] cc-0001"
    assert terminal_text("\r   \r") == "\r   \r"
    assert terminal_text("ok\rFAKE") == "ok\\x0dFAKE"
    assert terminal_text("\ud800") == "\\ud800"


def assert_no_raw_controls(where: str, text: str) -> None:
    """No control character a terminal would obey (tab and newline aside) in ``text``."""
    for bad in (*RAW_BAD, "\x1b", "\x08", "\x85"):
        assert bad not in text, (where, bad)


def test_every_handshake_text_reaches_the_terminal_and_the_reports_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ESC sequences in the engine's name, version, language, rulings (warned about by
    value) and an engine-private extra: escaped on both streams and in every report."""
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    adapter = proxy("evil_text_proxy.py", "--whole-hello", "--text", f"'{POISON}'")
    outputs = ["--json", str(report), "--junit", str(junit)]
    code = main(["run", "-v", "--rule", "SCORE-1", "--adapter", adapter, *outputs])
    assert code in (0, 1)
    out, err = capsys.readouterr()
    for where, text in {
        "stdout": out,
        "stderr": err,
        "json": report.read_text(encoding="utf-8"),
        "junit": junit.read_text(encoding="utf-8"),
    }.items():
        assert_no_raw_controls(where, text)
    implementation = json.loads(report.read_text(encoding="utf-8"))["header"]["engine"][
        "implementation"
    ]
    assert "\\x1b[2J" in implementation["version"] and "\\x1b[2J" in implementation["language"]
    assert "is not one of its options" in out + err and "\\x1b[2J" in out + err


def test_text_read_back_from_files_reaches_the_terminal_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report edited to hold ESC, BEL and CSI (a title, an error, the engine's name) and a
    scenario file naming a rule with them: `report`, `report diff`, `report merge` and
    `check` print them escaped (they printed them raw: the terminal obeyed)."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert main(["run", "-q", "--rule", "SCORE-1", "--json", str(old)]) == 0
    document = json.loads(old.read_text(encoding="utf-8"))
    evil = "\x1b]0;pwned\x07 \x1b[2J \x9b31m \x08"
    document["cases"][0].update(status="error", title="title " + evil, error="error " + evil)
    document["header"]["engine"]["implementation"]["name"] = "engine " + evil
    new.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    scenario = tmp_path / "evil.yaml"
    scenario.write_text('id: cc-0001\ntitle: "t \\e[2J"\nrules: ["SCORE-\\e]0;x\\a"]\n')
    digest = tmp_path / "digest.md"
    commands = [  # (command, whether it prints the poisoned text)
        (["report", "diff", str(old), str(new)], True),
        (["report", str(new), "--markdown", str(digest)], False),
        (["report", "merge", str(new), "--output", str(tmp_path / "m.json")], False),
        ([*CAT, "check", str(scenario)], True),
    ]
    for command, echoes in commands:
        main(command)
        out, err = capsys.readouterr()
        assert_no_raw_controls(" ".join(command[:2]), out + err)
        assert ("\\x1b" in out + err) == echoes, command
    assert_no_raw_controls("digest", digest.read_text(encoding="utf-8"))


def test_a_lone_surrogate_in_a_scenario_title_cannot_lose_a_report(tmp_path: Path) -> None:
    atomic_write_text(tmp_path / "r.json", "title \ud800\n")
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == "title \\ud800\n"


# -- 2-4. hostile scenario and expectations files ---------------------------------------


def alias_bomb(levels: int = 12, head: str = "") -> str:
    lines = [head.rstrip("\n")] if head else []
    lines.append('a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]')
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_in_a_scenario_file_is_refused_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 2: 9**12 nodes from a 1 KB file; `check` and `run --skip-broken` refuse it."""
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb(head="id: cc-0001\ntitle: boom\nrules: [SCORE-1]\n"))
    started = time.monotonic()
    assert main([*CAT, "check", str(bomb)]) == 2
    err = capsys.readouterr().err
    # Line 9 is a5, the first anchor whose expansion alone passes the limit.
    assert f"{bomb}:9:" in err and "expands to more than" in err
    assert main([*CAT, "run", str(GOOD), str(bomb), "--skip-broken", "--adapter", FAKE_ENGINE]) == 0
    assert "expands to more than" in capsys.readouterr().err
    assert time.monotonic() - started < PATIENCE


def test_a_recursive_alias_is_refused(tmp_path: Path) -> None:
    loop = tmp_path / "loop.yaml"
    loop.write_text("id: cc-0001\nchecks: &a\n  - *a\n")
    (error,) = load_file(loop).errors
    # Located at the anchor: the alias is the very node it names.
    assert "recursive" in error.message and (error.line, error.column) == (2, 9)


def test_nesting_that_would_crash_libyaml_is_refused_first(tmp_path: Path) -> None:
    """libyaml's composer segfaults (the whole harness dies) past ~20,000 levels."""
    for text in ("- " * 30_000 + "x\n", "[" * 50_000 + "]" * 50_000 + "\n"):
        deep = tmp_path / "deep.yaml"
        deep.write_text(text)
        (error,) = load_file(deep).errors
        assert "nest more than" in error.message and error.line == 1


def test_a_huge_scenario_file_is_refused_at_once(tmp_path: Path) -> None:
    """Item 3: a file over the limit is refused before it is parsed."""
    huge = tmp_path / "huge.yaml"
    with huge.open("w", encoding="utf-8") as handle:
        handle.write("id: cc-0001\nchecks:\n")
        handle.write("  - x\n" * (MAX_FILE_BYTES // 6 + 10))
    started = time.monotonic()
    (error,) = load_file(huge).errors
    assert "larger than the limit" in error.message and (error.line, error.column) == (1, 1)
    assert time.monotonic() - started < 10


def test_a_big_document_without_aliases_is_refused_by_its_node_count(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("id: cc-0001\nchecks: [" + ", ".join(["1"] * 150_000) + "]\n")
    assert big.stat().st_size < MAX_FILE_BYTES
    (error,) = load_file(big).errors
    assert "expands to more than" in error.message and error.line == 2


def test_a_non_utf8_scenario_file_is_located_by_line(tmp_path: Path) -> None:
    """Weak spot: was located as :0:0."""
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"id: cc-0001\ntitle: caf\xe9\n")
    (error,) = load_file(latin).errors
    assert (error.line, error.column) == (2, 11)
    assert str(error).startswith(f"{latin}:2:11:") and "not UTF-8" in error.message


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bomb.yaml", alias_bomb(head="expected_failures: {}"), ":7: the document expands"),
        ("deep.json", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ("deep.yaml", "- " * 30_000 + "x\n", ":1: the document may nest"),
        ("latin.yaml", b"expected_failures:\n  cc-0001: {reason: caf\xe9}\n", ":2: file is not"),
        ("huge.json", '{"expected_failures": {}}' + " " * MAX_FILE_BYTES, "larger than the limit"),
        ("keys.yaml", "expected_failures:\n  cc-0001: {}\n  cc-1: {}\n", ":3: 'cc-1' under"),
    ],
)
def test_hostile_expectations_files_are_clear_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str | bytes,
    message: str,
) -> None:
    """Item 4 (and the weak spot about naming a bad key): a clear error, exit 2."""
    target = tmp_path / name
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content, encoding="utf-8")
    with pytest.raises(ExpectationsError) as caught:
        load_expectations(target)
    assert str(target) in str(caught.value) and message in str(caught.value)
    assert len(str(caught.value)) < 500  # names the key, does not dump the mapping
    run = ["run", str(GOOD), "--adapter", FAKE_ENGINE, "--expectations", str(target)]
    assert main([*CAT, *run]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_skip_broken_keeps_the_first_copy_of_a_duplicated_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Weak spot: both copies used to be dropped, then 'no scenario matches'."""
    first = next(GOOD.glob("*.yaml"))
    (scenario, *_) = load_file(first).scenarios
    (tmp_path / "a.yaml").write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    loaded = load_corpus([tmp_path])
    assert [s.path for s in loaded.scenarios if s.id == scenario.id] == [str(tmp_path / "a.yaml")]
    code = main(
        [
            *CAT,
            "run",
            str(tmp_path),
            "--skip-broken",
            "--adapter",
            FAKE_ENGINE,
            "--scenario",
            scenario.id,
        ]
    )
    captured = capsys.readouterr()
    assert code == 0 and "1 cases: 1 pass" in captured.out
    assert "b.yaml" in captured.err and "left out" in captured.err


# -- 5. output paths --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "path", "message"),
    [
        ("--json", "{tmp}/missing/r.json", "does not exist"),
        ("--junit", "{tmp}", "names a folder"),
        ("--write-expectations", "{tmp}/", "names a folder"),
        ("--json", "/proc/1/r.json", "cannot write in folder"),
    ],
)
def test_bad_output_paths_are_refused_before_the_first_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, path: str, message: str
) -> None:
    # The adapter would exit 3 if it were started: exit 2 proves nothing ran.
    target = path.format(tmp=tmp_path)
    code = main([*CAT, "run", str(GOOD), "--adapter", "/nonexistent/engine", option, target])
    err = capsys.readouterr().err
    assert code == 2
    assert f"error: {option} {target}: " in err and message in err
    assert "could not start" not in err and "Traceback" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder anyway")
def test_a_read_only_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    code = main([*CAT, "run", str(GOOD), "--adapter", FAKE_ENGINE, "--json", str(folder / "r")])
    assert code == 2 and "cannot write in folder" in capsys.readouterr().err


def test_a_write_that_fails_at_the_end_is_reported_and_the_others_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import conformance.reports.report as report_module

    def disk_full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report_module, "write_junit_report", disk_full)
    report, junit, expected = tmp_path / "r.json", tmp_path / "j.xml", tmp_path / "e.yaml"
    code = main(
        [
            *CAT,
            "run",
            str(GOOD),
            "--adapter",
            FAKE_ENGINE,
            "--json",
            str(report),
            "--junit",
            str(junit),
            "--write-expectations",
            str(expected),
        ]
    )
    captured = capsys.readouterr()
    assert code == 2
    assert f"could not write --junit {junit}: No space left on device" in captured.err
    assert json.loads(report.read_text())["summary"]["pass"] == 5
    assert expected.exists() and not junit.exists()
    assert "5 cases: 5 pass" in captured.out


def test_two_options_naming_one_file_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*CAT, "run", str(GOOD), "--json", "same.out", "--junit", "same.out"])
    assert code == 2 and "both name same.out" in capsys.readouterr().err


# -- weak spots: report files -------------------------------------------------------------


def test_reports_get_the_umask_mode_not_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "r.json", "{}\n")
        os.umask(0o027)
        atomic_write_text(tmp_path / "s.json", "{}\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "s.json").stat().st_mode) == 0o640


def test_stale_temp_files_of_a_killed_writer_are_removed(tmp_path: Path) -> None:
    """kill -9 during a write leaves .r.json.<pid>.<random>.tmp; the next write removes it."""
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead_pid = int(gone.stdout)
    assert not pid_alive(dead_pid)
    stale = tmp_path / f".r.json.{dead_pid}.abcd1234.tmp"
    live = tmp_path / f".r.json.{os.getpid()}.efgh5678.tmp"  # a writer still at work
    other = tmp_path / f".other.json.{dead_pid}.abcd1234.tmp"
    for path in (stale, live, other):
        path.write_text("half a report")
    atomic_write_text(tmp_path / "r.json", "{}\n")
    assert not stale.exists() and live.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["r.json", live.name, other.name])


# -- 6. signals ---------------------------------------------------------------------------


def harness(tmp_path: Path, tag: str, adapter: str, *extra: str) -> subprocess.Popen[bytes]:
    """Start ``python -m conformance run`` as the command line, output to files."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), TAG_VARIABLE: tag}
    command = [sys.executable, "-m", "conformance", "run", "--adapter", adapter, *extra]
    return subprocess.Popen(
        command,
        env=env,
        cwd=str(ROOT),
        stdout=(tmp_path / "stdout").open("wb"),
        stderr=(tmp_path / "stderr").open("wb"),
    )


@pytest.mark.parametrize(
    ("sig", "code", "workers"),
    [
        (signal.SIGTERM, 143, "1"),
        (signal.SIGTERM, 143, "2"),
        (signal.SIGHUP, 129, "1"),
        (signal.SIGINT, 130, "1"),
    ],
)
def test_a_signal_reaps_the_adapters_and_keeps_what_was_graded(
    tmp_path: Path, sig: signal.Signals, code: int, workers: str
) -> None:
    """Item 6: the adapter writes a marker on its 8th request and hangs; the test then
    signals the harness, which must exit with 128+signal, write both reports with the
    graded cases and the rest not_run, and leave no adapter process behind."""
    tag = uuid.uuid4().hex
    marker, report, junit = tmp_path / "marker", tmp_path / "r.json", tmp_path / "j.xml"
    adapter = proxy("signal_proxy.py", "--marker", str(marker), "--after", "8")
    proc = harness(
        tmp_path, tag, adapter, "--rule", "SCORE", "--timeout", str(PATIENCE),
        "--workers", workers, "--json", str(report), "--junit", str(junit),
    )  # fmt: skip
    try:
        wait_for(lambda: marker.exists() or proc.poll() is not None, "the adapter's marker")
        assert proc.poll() is None, (tmp_path / "stderr").read_text()
        proc.send_signal(sig)
        assert proc.wait(timeout=PATIENCE) == code, (tmp_path / "stderr").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = (tmp_path / "stderr").read_text()
    assert f"interrupted ({sig.name})" in err and "Traceback" not in err
    document = json.loads(report.read_text(encoding="utf-8"))
    jsonschema.validate(document, REPORT_SCHEMA)
    statuses = [case["status"] for case in document["cases"]]
    assert statuses.count("pass") >= 1 and "not_run" in statuses
    # The case that met the signal was not graded: not_run, never an error.
    assert set(statuses) <= {"pass", "not_run"}
    assert any(f"interrupted by {sig.name}" in w for w in document["header"]["warnings"])
    assert len(ET.parse(junit).getroot().findall("testcase")) == len(statuses)
    wait_for(lambda: processes_tagged(tag) == [], "every adapter process to be gone", 10)


# -- 7. processes that leave the group -------------------------------------------------


def test_a_setsid_daemon_with_a_scrubbed_environment_dies_with_the_run(tmp_path: Path) -> None:
    """Item 7: the command line is a child subreaper, so the orphaned daemon comes back
    to it and is killed when the adapter's session ends."""
    pid_file = tmp_path / "daemon.pid"
    adapter = proxy("signal_proxy.py", "--daemon-pid-file", str(pid_file), "--scrub-env")
    proc = harness(tmp_path, uuid.uuid4().hex, adapter, "--rule", "SCORE")
    try:
        assert proc.wait(timeout=PATIENCE) == 0, (tmp_path / "stderr").read_text()
        daemon = int(pid_file.read_text())
        assert not pid_alive(daemon)
        assert "cannot make the harness a child subreaper" not in (tmp_path / "stdout").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if pid_file.exists() and pid_alive(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_a_setsid_daemon_is_found_by_its_session_token_without_a_subreaper(
    tmp_path: Path,
) -> None:
    """Library use (no subreaper): the daemon kept the session token, so close() kills it."""
    pid_file = tmp_path / "daemon.pid"
    argv = [sys.executable, str(FAKES / "signal_proxy.py"), "--daemon-pid-file", str(pid_file)]
    session = EngineSession(argv, timeout=PATIENCE, start_timeout=PATIENCE)
    try:
        session.start()
        daemon = int(pid_file.read_text())
        assert pid_alive(daemon)
        environ = Path(f"/proc/{daemon}/environ").read_bytes()
        assert f"{SESSION_VARIABLE}=".encode() in environ
        session.close()
        # SIGKILL was sent; the kernel finishes the job asynchronously.
        wait_for(lambda: not pid_alive(daemon), "the daemon to die", 10)
    finally:
        session.close()
        if pid_file.exists() and pid_alive(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


# -- 8. the stderr tail is taken deterministically -----------------------------------------


def test_the_stderr_tail_does_not_depend_on_the_drain_thread_being_scheduled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Item 8: the worst case of the race, made certain: a drain thread that never runs.
    What the adapter wrote before its answer is still in the tail (catch_up reads it)."""
    monkeypatch.setattr(StderrDrain, "run", lambda self: None)
    fake = Path(__file__).resolve().parents[1] / "fake_adapters" / "fake_adapter.py"
    session = EngineSession([sys.executable, str(fake), "--error-on", "penalty"], timeout=PATIENCE)
    try:
        session.start()
        assert "fake adapter got hello" in session.stderr_tail()
        session.mark_stderr()
        with pytest.raises(EngineReportedError) as caught:
            session.request("penalty", profile="argentine", cards=["AS"])
        assert caught.value.stderr_tail == "fake adapter got penalty\n"
    finally:
        session.close()


def test_coverage_json_path_is_checked_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*CAT, "coverage", str(GOOD), "--json", "/nonexistent/c.json"]) == 2
    assert "folder /nonexistent does not exist" in capsys.readouterr().err


def test_a_signal_raises_until_deferred_then_waits_for_the_reports() -> None:
    """Item 6, in-process: before defer() SIGTERM raises Terminated (a KeyboardInterrupt);
    after it (reports being written) a signal is only recorded, for the exit code."""
    from conformance.run.interrupt import Terminated, exit_code, interruptible

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated) as caught, interruptible():
        os.kill(os.getpid(), signal.SIGTERM)
        wait_for(lambda: False, "the handler to raise", 10)
    assert exit_code(caught.value) == 143
    assert signal.getsignal(signal.SIGTERM) == before
    with interruptible() as signals:
        signals.defer()
        os.kill(os.getpid(), signal.SIGHUP)
        wait_for(lambda: signals.received is not None, "the handler to record", 10)
        assert signals.exit_code() == 129 and signals.name() == "SIGHUP"
    # The refusal to start adapters is lifted when the context ends.
    assert not refusing_new_sessions()


@pytest.mark.parametrize("by_cause", [False, True], ids=["by-case", "by-cause"])
def test_an_interrupted_rewrite_leaves_the_expectations_file_whole(
    tmp_path: Path, by_cause: bool
) -> None:
    """Ctrl-C during ``--expectations E --write-expectations E`` rewrote E from the cases
    graded so far (entries and filled-in reasons lost): E is now left byte for byte."""
    tag = uuid.uuid4().hex
    marker, exp = tmp_path / "marker", tmp_path / "exp.yaml"
    original = (
        "# our file\nexpected_failures:\n"
        "  cc-0001: {reason: 'filled in by hand'}\n"
        "  cc-0302:\n    checks:\n      step 3 totals: {reason: 'our joker counts 30'}\n"
    )
    exp.write_text(original)
    adapter = proxy("signal_proxy.py", "--marker", str(marker), "--after", "8")
    extra = ["--by-cause"] if by_cause else []
    proc = harness(
        tmp_path, tag, adapter, "--rule", "SCORE", "--timeout", str(PATIENCE),
        "--expectations", str(exp), "--write-expectations", str(exp), *extra,
    )  # fmt: skip
    try:
        wait_for(lambda: marker.exists() or proc.poll() is not None, "the adapter's marker")
        assert proc.poll() is None, (tmp_path / "stderr").read_text()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=PATIENCE) == 130, (tmp_path / "stderr").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = (tmp_path / "stderr").read_text()
    assert f"not written: --write-expectations {exp}: the run was interrupted (SIGINT)" in err
    assert exp.read_text() == original
    assert not list(tmp_path.glob(".exp.yaml.*"))
