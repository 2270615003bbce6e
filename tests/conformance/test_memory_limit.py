"""The adapter's memory cap: a breach is that case's error, naming the limit.

The hogs (tests/fake_adapters/memory_hog.py, hostile_proxy.py --do hog) allocate touched
memory up to 1 GiB and then sleep, so a harness that missed them fails these tests on a
timeout instead of exhausting the machine. The limits here are small (160 MiB) to keep
the tests quick.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

from conformance.adapter.engine import EngineSession
from conformance.adapter.memlimit import DEFAULT_MEMORY_LIMIT, format_size, parse_size
from conformance.cli import main
from conformance.errors import EngineMemoryExceeded, HandshakeError

FAKES = Path(__file__).resolve().parents[1] / "fake_adapters"
HOG = [sys.executable, str(FAKES / "memory_hog.py")]
LIMIT = 160 * 2**20
#: Generous: how long a request may take before the tests call the watch broken.
PATIENCE = 60.0


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2 :][:1] == b"Z"


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("2G", 2 * 2**30),
        ("512M", 512 * 2**20),
        ("512MiB", 512 * 2**20),
        ("1.5g", 3 * 2**29),
        ("64k", 64 * 2**10),
        ("1048576", 2**20),
        ("0", None),
        ("none", None),
        ("off", None),
    ],
)
def test_sizes_are_read_as_people_write_them(text: str, size: int | None) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "-1G", "2X", "G"])
def test_a_size_that_is_not_one_is_refused_naming_it(text: str) -> None:
    with pytest.raises(ValueError, match=repr(text).replace("(", r"\(")):
        parse_size(text)


def test_sizes_are_shown_in_binary_units() -> None:
    assert format_size(2 * 2**30) == "2 GiB"
    assert format_size(LIMIT) == "160 MiB"
    assert format_size(3 * 2**29) == "1.5 GiB"


def test_a_session_is_capped_by_default() -> None:
    assert EngineSession(["x"]).memory_limit == DEFAULT_MEMORY_LIMIT == 2 * 2**30


def _hog_session(*flags: str, limit: int | None = LIMIT) -> EngineSession:
    return EngineSession(
        [*HOG, *flags], timeout=PATIENCE, start_timeout=PATIENCE, memory_limit=limit
    )


@pytest.mark.parametrize("where", ["adapter", "child"])
def test_an_adapter_over_its_limit_is_killed_and_the_error_names_the_limit(where: str) -> None:
    flags = ["--hog-on", "penalty"] + (["--in-child"] if where == "child" else [])
    session = _hog_session(*flags)
    try:
        session.start()
        pid = session.pid
        assert pid is not None
        with pytest.raises(EngineMemoryExceeded) as caught:
            session.request("penalty", profile="argentine", cards=["AS"])
        error = caught.value
        assert error.limit == LIMIT and error.used > LIMIT
        assert "over its limit of 160 MiB (--memory-limit)" in error.message
        assert "during penalty (id 2)" in error.message
        assert "memory hog: allocating on request 2" in error.stderr_tail
        # The whole group was killed (the child too: nothing of it is left).
        assert _gone(pid)
        assert not session.alive
        session.restart()  # and the session starts afresh
        assert session.alive
    finally:
        session.close()


def test_an_adapter_that_leaks_while_answering_quickly_is_caught_between_requests() -> None:
    session = _hog_session("--leak-mb", "32")
    try:
        session.start()
        with pytest.raises(EngineMemoryExceeded) as caught:
            # 32 MB more per answer: the limit is passed within a few requests, and a
            # request is never slow, so only the look between requests can see it.
            for _ in range(1024 // 32):
                session.request("penalty", profile="argentine", cards=["AS"])
        assert "160 MiB" in caught.value.message
    finally:
        session.close()


def test_no_limit_means_no_watch() -> None:
    session = _hog_session(limit=None)
    try:
        session.start()
        assert session._adapter is not None and session._adapter.memory is None
    finally:
        session.close()


def test_a_breach_during_the_handshake_ends_the_run_naming_the_limit() -> None:
    session = _hog_session("--hog-on", "hello")
    with pytest.raises(HandshakeError, match="over its limit of 160 MiB"):
        session.start()
    session.close()


def test_one_memory_bomb_costs_one_errored_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run level: the case that met the bomb errors naming the limit, the rest pass."""
    monkeypatch.setenv("CARIOCA_HOSTILE_TAG", uuid.uuid4().hex)
    once = tmp_path / "once"
    adapter = [sys.executable, str(FAKES / "hostile_proxy.py"), "--on", "penalty"]
    adapter += ["--do", "hog", "--once-file", str(once)]
    report = tmp_path / "report.json"
    code = main(
        [
            "run",
            "--rule",
            "SCORE",
            "--adapter",
            " ".join(adapter),
            "--memory-limit",
            "160M",
            "--timeout",
            str(PATIENCE),
            "--json",
            str(report),
        ]
    )
    assert code == 1
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    statuses = [c["status"] for c in cases]
    assert statuses.count("error") == 1 and statuses.count("pass") == len(cases) - 1
    (errored,) = [c for c in cases if c["status"] == "error"]
    assert "over its limit of 160 MiB (--memory-limit)" in errored["error"]
    assert "hostile proxy: hog" in errored["stderr_tail"]


def test_the_flag_refuses_a_size_it_cannot_read(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--memory-limit", "lots"]) == 2
    assert "not a memory size: 'lots'" in capsys.readouterr().err


def test_the_harness_measures_its_adapters_not_itself() -> None:
    """The watch reads the adapter's group: the harness's own memory never counts."""
    big = b"x" * (2 * LIMIT)  # the test process holds twice the limit
    session = _hog_session()
    try:
        session.start()
        for _ in range(3):
            assert session.request("penalty", profile="argentine", cards=["AS"])["points"] == 0
    finally:
        session.close()
    del big
