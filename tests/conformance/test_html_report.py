"""The HTML report page: parsed, it shows what the reports say; in Chromium it renders.

The reports are real runs of the fake engine over tests/conformance/data/good: one
correct engine, one that scores a card wrong and rules DISPUTE-19 the other way.
The browser test opens the page in Debian's headless ``chromium``: a ``--screenshot``
run must paint the matrix's pass and fail colours, and a DevTools drive over
``--remote-debugging-pipe`` (standard library only) tabs to a failing cell, presses
Enter and checks that the cell opened on its diff. Without Chromium that test is
skipped, saying how to install it; under ``CI=true`` a missing browser fails.
"""

from __future__ import annotations

import base64
import copy
import fcntl
import json
import os
import re
import select
import shlex
import shutil
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.knowledge.catalogue import load_catalogue
from conformance.reports.html_report import cards, render_html
from conformance.reports.markdown_report import md, render_markdown
from conformance.reports.report import build_report
from conformance.reports.report_tools import LoadedReport, ReportError, load_fuzz_report
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import load_corpus

DATA = Path(__file__).parent / "data"
FAKE = [sys.executable, str(DATA / "fake_engine.py")]
CATALOGUE = load_catalogue(DATA / "catalogue.json")
CAT = ["--catalogue", str(DATA / "catalogue.json")]
EVIL = '<script>alert("x")</script> & <img src=http://example.invalid/x.png>'


def _run(*flags: str) -> dict[str, Any]:
    scenarios = load_corpus([DATA / "good"], catalogue=CATALOGUE).scenarios
    run = run_scenarios([*FAKE, *flags], scenarios, RunOptions(timeout=5.0), catalogue=CATALOGUE)
    return build_report(run, CATALOGUE)


@pytest.fixture(scope="module")
def docs() -> tuple[dict[str, Any], dict[str, Any]]:
    """A correct engine's report and a wrong one's (a card value, DISPUTE-19 forbidden)."""
    good = _run()
    bad = _run("--wrong-penalty", "--ruling", "DISPUTE-19=forbidden")
    # Engine text reaches reports already made safe for terminals, not for HTML.
    bad["header"]["engine"]["implementation"]["name"] = "bad" + EVIL
    for case in bad["cases"]:
        if case["id"] == "cc-0001":
            case["engine_message"] = EVIL
            case["diff"] += "\n  hand: [10H JK 5♦ AS]"
    return good, bad


@pytest.fixture(scope="module")
def report_files(
    docs: tuple[dict[str, Any], dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> list[Path]:
    folder = tmp_path_factory.mktemp("reports")
    paths = []
    for name, doc in zip(("good.json", "bad.json"), docs, strict=True):
        path = folder / name
        path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    return paths


class Page(HTMLParser):
    """A small DOM summary: tags seen, and the matrix/disputes/engines tables as text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.cell_classes: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._depth = 0
        self._cell: list[str] | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "table":
            if self._table is None:
                self._table = attributes.get("id") or f"table-{len(self.tables)}"
                self.tables[self._table] = []
                self.cell_classes[self._table] = []
                self._depth = 0
            self._depth += 1
        elif self._table is not None and tag == "tr" and self._depth == 1:
            self.tables[self._table].append([])
            self.cell_classes[self._table].append([])
        elif self._table is not None and tag in ("td", "th") and self._depth == 1:
            self._cell = []
            self.cell_classes[self._table][-1].append(attributes.get("class") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._table is not None:
            self._depth -= 1
            if self._depth == 0:
                self._table = None
        elif tag in ("td", "th") and self._cell is not None and self._depth == 1:
            assert self._table is not None
            self.tables[self._table][-1].append(" ".join(" ".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def badge(doc: dict[str, Any], cases: str) -> str:
    """The badge line the page must show for ``doc``: ``cases`` (passed/graded cases, known
    to the test) and the checks graded of all, counted here from the report's checks."""
    checks = [k for c in doc["cases"] for k in c.get("checks", [])]
    graded = sum(k["status"] != "not_graded" for k in checks)
    return f"argentine {cases}, checks {graded}/{len(checks)} graded"


def parse(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    parser.close()
    return parser


def loaded(docs: tuple[dict[str, Any], ...]) -> list[LoadedReport]:
    return [LoadedReport(f"/x/{i}.json", doc) for i, doc in enumerate(docs)]


def test_the_matrix_shows_each_sections_counts_as_the_reports_say(
    docs: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    page = parse(render_html(loaded(docs), CATALOGUE))
    rows = page.tables["matrix"]
    classes = page.cell_classes["matrix"]
    assert rows[0][1].startswith("fake 0.0.1 · argentine") and rows[0][2].startswith("bad<script>")
    body = {
        row[0].split()[0]: (row[1:], cls[1:])
        for row, cls in zip(rows[1:], classes[1:], strict=True)
    }
    for column, doc in enumerate(docs):
        for section in {c["section"] for c in doc["cases"]}:
            cases = [c for c in doc["cases"] if c["section"] == section]
            passed = sum(c["status"] == "pass" for c in cases)
            text, cls = body[section][0][column], body[section][1][column]
            # The summary shows passed/graded, then the cell's cases follow, each with its id.
            assert text.startswith(f"{passed}/{len(cases)}")
            assert all(c["id"] in text for c in cases)
            failing = any(c["status"] == "fail" for c in cases)
            assert ("st-fail" if failing else "st-pass") in cls
    # The last row is the badge line of each report.
    assert body["all"][0] == [badge(docs[0], "5/5"), badge(docs[1], "3/5")]
    # Sections run down in the catalogue's order.
    assert [row[0].split()[0] for row in rows[1:-1]] == ["MELD-TRIO", "TURN", "SCORE"]


def test_a_failing_cell_holds_its_diff_and_every_cell_is_keyboard_reachable(
    docs: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    page_text = render_html(loaded(docs), CATALOGUE)
    page = parse(page_text)
    score_row = next(r for r in page.tables["matrix"] if r[0].startswith("SCORE"))
    assert "expected 33" in score_row[2] and "actual 34" in score_row[2]
    assert "expected 33" not in score_row[1]
    details = [a for t, a in page.tags if t == "details" and "cell-" in (a.get("id") or "")]
    summaries = [t for t, _a in page.tags if t == "summary"]
    assert len(details) == 6 and len(summaries) >= len(details)
    assert "summary:focus-visible" in page_text  # a visible focus ring for keyboard users


def test_every_report_string_is_escaped_and_the_page_loads_nothing(
    docs: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    page_text = render_html(loaded(docs), CATALOGUE)
    page = parse(page_text)
    tags = [t for t, _a in page.tags]
    assert "script" not in tags and "img" not in tags and "link" not in tags
    assert EVIL in "".join(page.text)  # shown as text, exactly as the engine sent it
    assert not any(
        (value or "").startswith(("http:", "https:", "//"))
        for _t, attrs in page.tags
        for name, value in attrs.items()
        if name in ("src", "href")
    )
    assert any(
        t == "meta" and a.get("http-equiv") == "Content-Security-Policy" for t, a in page.tags
    )
    assert any(t == "meta" and a.get("name") == "viewport" for t, a in page.tags)
    assert "@media (max-width" in page_text


def test_cards_show_as_glyphs_with_red_suits_red() -> None:
    shown = cards("hand [10H JK 5♦ AS] & AND")
    assert '<span class="card red">10♥</span>' in shown
    assert '<span class="card red">5♦</span>' in shown
    assert '<span class="card">A♠</span>' in shown
    assert "🃏" in shown and "&amp; AND" in shown  # words are not cards


def test_the_disputes_table_shows_rulings_and_grading(
    docs: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    page = parse(render_html(loaded(docs), CATALOGUE))
    rows = {r[0].split()[0]: r for r in page.tables["disputes-table"][1:]}
    point, profile, good, bad = rows["DISPUTE-19"]
    assert "Throwing back the taken discard" in point and profile == "allowed"
    assert good.startswith("not declared") and "cc-0005 as allowed: pass" in good
    assert bad.startswith("forbidden ≠") and "cc-0005 as forbidden: fail" in bad
    assert rows["DISPUTE-32"][1:] == ["two_to_four", "not declared", "not declared"]


def test_the_engines_table_shows_handshakes_and_versions(
    docs: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    page = parse(render_html(loaded(docs), CATALOGUE))
    rows = {r[0]: r[1:] for r in page.tables["engines-table"][1:]}
    engine = docs[0]["header"]["engine"]
    assert rows["capabilities"][0] == ", ".join(engine["capabilities"])
    assert rows["player counts"][0] == ", ".join(str(p) for p in engine["players"])
    assert rows["corpus digest"] == [docs[0]["header"]["corpus_digest"]] * 2
    assert rows["harness"] == [docs[0]["header"]["harness_version"]] * 2
    assert rows["protocol (harness)"] == ["1", "1"]
    # The test engine declares no max_in_flight: it is sent one request at a time.
    assert rows["requests in flight"] == ["1", "1"]
    assert rows["badge"] == [badge(docs[0], "5/5"), badge(docs[1], "3/5")]
    assert "different corpora" not in " ".join(page.text)
    moved = copy.deepcopy(docs[1])
    moved["header"]["engine"]["max_in_flight"] = 16
    page = parse(render_html(loaded((docs[0], moved)), CATALOGUE))
    assert {r[0]: r[1:] for r in page.tables["engines-table"][1:]}["requests in flight"] == [
        "1",
        "16",
    ]
    moved["header"]["corpus_digest"] = "feedfacefeedface"
    page = parse(render_html(loaded((docs[0], moved)), CATALOGUE))
    assert "These runs graded different corpora" in " ".join(page.text)


def test_fuzz_findings_are_shown(
    docs: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    # A real campaign against a mutant: every finding shows its summary, rule and count.
    from conformance import fuzz as fuzzing
    from tests.mutants import harness

    harness.make_root_importable()
    options = fuzzing.FuzzOptions(games=2, shrink=False, max_steps=40)
    report = fuzzing.report_dict(fuzzing.fuzz(harness.mutant_argv("twos_wild"), options, CATALOGUE))
    findings = report["findings"]
    assert findings, "the mutant must be found for the page to show anything"
    fuzz = tmp_path / "fuzz.json"
    fuzz.write_text(json.dumps(report))
    page = parse(render_html(loaded(docs), CATALOGUE, fuzz=[load_fuzz_report(str(fuzz))]))
    text = " ".join(" ".join(page.text).split())
    plural = "" if len(findings) == 1 else "s"
    assert f"{len(findings)} finding{plural}" in text
    for finding in findings:
        assert f"{finding['summary']} ({finding['rule']}) ×{finding['count']}" in text
    (tmp_path / "not-fuzz.json").write_text('{"cases": []}')
    with pytest.raises(ReportError, match=r"not-fuzz\.json: not a fuzz report"):
        load_fuzz_report(str(tmp_path / "not-fuzz.json"))


def test_markdown_digest(docs: tuple[dict[str, Any], dict[str, Any]]) -> None:
    text = render_markdown(loaded(docs), CATALOGUE)
    assert "| `SCORE` | ✅ 1/1 | ❌ 0/1 |" in text
    assert "DISPUTE-19=forbidden" in text and "**fail** `cc-0001`" in text
    assert "<script>" not in text


def test_report_command_writes_page_and_digest(
    report_files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page, digest = tmp_path / "page.html", tmp_path / "page.md"
    args = [*CAT, "report", *map(str, report_files), "--html", str(page)]
    assert main([*args, "--markdown", str(digest)]) == 0
    docs = [json.loads(f.read_text(encoding="utf-8")) for f in report_files]
    assert parse(page.read_text(encoding="utf-8")).tables["matrix"][-1][1:] == [
        badge(docs[0], "5/5"),
        badge(docs[1], "3/5"),
    ]
    assert "| **all** |" in digest.read_text(encoding="utf-8")
    assert "wrote html" in capsys.readouterr().out


def test_report_command_names_a_bad_input(
    report_files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": 1, "header": {}, "cases": [], "summary": {}}')
    out = str(tmp_path / "p.html")
    assert main([*CAT, "report", str(broken), "--html", out]) == 2
    err = capsys.readouterr().err
    assert "broken.json: not a carioca-conformance run report" in err and "at /" in err
    (tmp_path / "junk.json").write_text("{")
    assert main([*CAT, "report", str(tmp_path / "junk.json"), "--html", out]) == 2
    assert "junk.json: the report is not JSON: line 1" in capsys.readouterr().err
    assert main([*CAT, "report", str(report_files[0])]) == 2
    assert "--html FILE and/or --markdown FILE" in capsys.readouterr().err
    assert not Path(out).exists()


def test_run_html_writes_the_page_of_that_run(tmp_path: Path) -> None:
    page = tmp_path / "run.html"
    adapter = shlex.join([*FAKE, "--wrong-penalty"])
    report = tmp_path / "run.json"
    args = [*CAT, "run", str(DATA / "good"), "--adapter", adapter, "--html", str(page), "-q"]
    code = main([*args, "--json", str(report)])
    assert code == 1
    parsed = parse(page.read_text(encoding="utf-8"))
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert parsed.tables["matrix"][-1][1:] == [badge(doc, "4/5")]
    score = next(r for r in parsed.tables["matrix"] if r[0].startswith("SCORE"))
    assert score[1].startswith("0/1") and "expected 33" in score[1]


def test_run_html_is_written_even_when_the_adapter_never_starts(tmp_path: Path) -> None:
    page = tmp_path / "dead.html"
    adapter = shlex.join([sys.executable, "-c", "import sys; sys.exit(3)"])
    assert main([*CAT, "run", str(DATA / "good"), "--adapter", adapter, "--html", str(page)]) == 3
    parsed = parse(page.read_text(encoding="utf-8"))
    rows = {r[0]: r[1:] for r in parsed.tables["engines-table"][1:]}
    assert "adapter did not start" in rows and rows["implementation"] == ["unknown engine"]
    # Nothing graded: every check of the five cases is counted, none graded.
    line = parsed.tables["matrix"][-1][1]
    assert line.startswith("argentine 0/5, checks 0/") and line.endswith(" graded")


def test_reports_without_the_badge_field_still_render(
    docs: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    old = copy.deepcopy(docs[1])
    del old["badges"]
    page = parse(render_html(loaded((old,)), CATALOGUE))
    assert page.tables["matrix"][-1][1:] == [badge(old, "3/5")]


# --------------------------------------------------------------------------- Chromium

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
#: A safety net only: every wait below is on the browser's answer or exit, never a sleep.
BROWSER_TIMEOUT = 120.0
PASS_RGB = (0xD6, 0xF0, 0xD6)
FAIL_RGB = (0xF6, 0xCC, 0xCC)


def painted(colours: set[tuple[int, int, int]], rgb: tuple[int, int, int]) -> bool:
    """Whether a colour within 3 of ``rgb`` per channel was painted (rounding may differ)."""
    return any(all(abs(a - b) <= 3 for a, b in zip(c, rgb, strict=True)) for c in colours)


def chromium() -> str:
    """The browser, or a skip (a failure under CI=true) saying how to get it."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is not None:
        return found
    message = (
        "headless Chromium is not installed: apt-get install -y chromium "
        "(Debian's package; .ci/run installs it in CI)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message + "; CI=true, so this test may not be skipped")
    pytest.skip(message)


def png_pixels(data: bytes) -> Iterator[tuple[int, int, int]]:
    """The RGB pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, chunks, header = 8, [], b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG layout"
    size = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * size
    previous = bytearray(stride)
    for row in range(height):
        kind = raw[row * (stride + 1)]
        line = bytearray(raw[row * (stride + 1) + 1 : (row + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - size] if i >= size else 0
            up = previous[i]
            corner = previous[i - size] if i >= size else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        for x in range(0, stride, size):
            yield (line[x], line[x + 1], line[x + 2])
        previous = line


class DevTools:
    """A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``.

    The browser reads NUL-terminated JSON commands on its fd 3 and answers on fd 4.
    """

    def __init__(self, browser: str, profile: Path) -> None:
        to_browser, self._out = os.pipe()
        self._in, from_browser = os.pipe()
        # Above fd 9, so that moving them onto 3 and 4 in the child clobbers nothing.
        child_in = fcntl.fcntl(to_browser, fcntl.F_DUPFD_CLOEXEC, 10)
        child_out = fcntl.fcntl(from_browser, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser)
        os.close(from_browser)
        trampoline = (
            "import os, sys; a, b = int(sys.argv[1]), int(sys.argv[2]); "
            "os.dup2(a, 3); os.dup2(b, 4); os.close(a); os.close(b); "
            "os.execv(sys.argv[3], sys.argv[3:])"
        )
        argv = [*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe"]
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                trampoline,
                str(child_in),
                str(child_out),
                browser,
                *argv,
                "--window-size=1000,800",
                "about:blank",
            ],
            pass_fds=(child_in, child_out),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(child_in)
        os.close(child_out)
        self._buffer = b""
        self._id = 0
        self._events: list[dict[str, Any]] = []

    def _message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _w, _x = select.select([self._in], [], [], BROWSER_TIMEOUT)
            assert ready, f"the browser did not answer within {BROWSER_TIMEOUT} s"
            chunk = os.read(self._in, 1 << 16)
            assert chunk, "the browser closed its DevTools pipe"
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)  # type: ignore[no-any-return]

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._id += 1
        command: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session is not None:
            command["sessionId"] = session
        os.write(self._out, json.dumps(command).encode() + b"\0")
        while True:
            message = self._message()
            if message.get("id") == self._id:
                assert "error" not in message, message["error"]
                return message["result"]  # type: ignore[no-any-return]
            self._events.append(message)

    def wait_for(self, event: str) -> dict[str, Any]:
        for index, message in enumerate(self._events):
            if message.get("method") == event:
                return self._events.pop(index)
        while True:
            message = self._message()
            if message.get("method") == event:
                return message
            self._events.append(message)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (AssertionError, OSError):
            self.proc.kill()
        finally:
            self.proc.wait(timeout=BROWSER_TIMEOUT)
            os.close(self._in)
            os.close(self._out)


def test_chromium_renders_the_matrix_and_a_cell_opens_from_the_keyboard(
    docs: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    browser = chromium()
    page = tmp_path / "page.html"
    page.write_text(render_html(loaded(docs), CATALOGUE), encoding="utf-8")
    url = page.resolve().as_uri()

    # 1. --screenshot: the matrix is painted, pass cells green and fail cells red.
    shot = tmp_path / "shot.png"
    done = subprocess.run(
        [
            browser,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile-1'}",
            f"--screenshot={shot}",
            "--window-size=1000,800",
            url,
        ],
        capture_output=True,
        timeout=BROWSER_TIMEOUT,
        check=False,
    )
    assert shot.is_file(), done.stderr.decode(errors="replace")[-2000:]
    colours = set(png_pixels(shot.read_bytes()))
    assert painted(colours, PASS_RGB) and painted(colours, FAIL_RGB)

    # 2. DevTools: Tab to the first failing cell, press Enter, and it shows its diff.
    tools = DevTools(browser, tmp_path / "profile-2")
    try:
        targets = tools.send("Target.getTargets")["targetInfos"]
        target = next(t["targetId"] for t in targets if t["type"] == "page")
        session = tools.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        tools.send("Page.enable", session)
        tools.send("Page.navigate", session, url=url)
        tools.wait_for("Page.loadEventFired")

        def evaluate(expression: str) -> Any:
            answer = tools.send(
                "Runtime.evaluate", session, expression=expression, returnByValue=True
            )
            return answer["result"].get("value")

        cells = evaluate(
            "[...document.querySelectorAll('#matrix td.cell')]"
            ".filter(c => c.getBoundingClientRect().width > 0).length"
        )
        assert cells == 6
        key = {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9}
        for _press in range(40):
            tools.send("Input.dispatchKeyEvent", session, type="keyDown", **key)
            tools.send("Input.dispatchKeyEvent", session, type="keyUp", **key)
            if evaluate("document.activeElement.matches('td.st-fail summary')"):
                break
        else:
            pytest.fail("Tab never reached a failing cell")
        assert evaluate("document.activeElement.parentElement.open") is False
        enter = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}
        tools.send("Input.dispatchKeyEvent", session, type="keyDown", text="\r", **enter)
        tools.send("Input.dispatchKeyEvent", session, type="keyUp", **enter)
        assert evaluate("document.activeElement.parentElement.open") is True
        shown = evaluate(
            "(() => { const pre = document.activeElement.parentElement"
            ".querySelector('pre.diff'); const box = pre.getBoundingClientRect();"
            " return box.height > 0 ? pre.innerText : ''; })()"
        )
        assert "expected rejected" in shown or "expected 33" in shown
        picture = tools.send("Page.captureScreenshot", session, format="png")
        opened = set(png_pixels(base64.b64decode(picture["data"])))
        assert painted(opened, FAIL_RGB)
    finally:
        tools.close()


def test_a_fuzz_campaign_that_compared_nothing_is_never_shown_as_agreement(
    docs: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    # An engine answering `unsupported` to everything: no finding, and nothing compared.
    import sys

    from conformance import fuzz as fuzzing

    unsupported = Path(__file__).resolve().parents[1] / "fake_adapters" / "unsupported_adapter.py"
    options = fuzzing.FuzzOptions(games=1, shrink=False, max_steps=10)
    report = fuzzing.report_dict(
        fuzzing.fuzz([sys.executable, str(unsupported)], options, CATALOGUE)
    )
    assert report["findings"] == [] and report["totals"]["compared"] == 0
    fuzz = tmp_path / "fuzz.json"
    fuzz.write_text(json.dumps(report))
    page = parse(render_html(loaded(docs), CATALOGUE, fuzz=[load_fuzz_report(str(fuzz))]))
    text = " ".join(" ".join(page.text).split())
    assert "Nothing compared" in text
    assert "agreed on every input" not in text


def test_a_mention_in_report_text_notifies_no_one_from_the_digest(
    docs: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Posted as a pull-request comment, ``@name`` in an engine's name, message or diff
    would notify that user or team: every ``@`` of report text is followed by a
    zero-width space, and still reads as ``@``."""
    good, bad = copy.deepcopy(docs[0]), copy.deepcopy(docs[1])
    bad["header"]["engine"]["implementation"].update(name="@octocat", version="@org/team")
    for case in bad["cases"]:
        if case["id"] == "cc-0001":
            case["title"] = "@everyone look, me@example.org"
    text = render_markdown(loaded((good, bad)), CATALOGUE)
    assert re.search(r"@[\w-]", text) is None, re.findall(r".{10}@[\w-].{10}", text)
    for shown in ("@\u200boctocat", "@\u200borg/team", "@\u200beveryone", "me@\u200bexample"):
        assert shown in text
    assert md("@octocat") == "@\u200boctocat"
