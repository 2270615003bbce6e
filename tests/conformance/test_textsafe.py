"""Text the harness did not write reaches no output raw (conformance/io/textsafe.py): bidi
overrides, zero-width characters and line separators are escaped like the controls, and
every output of ``report``, ``report diff`` and ``report merge`` shows a poisoned cause
escaped (terminal, HTML page, Markdown digest, merged report)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.io.textsafe import escape, safe_text, terminal_text
from tests.paths import ROOT

#: Characters that show nothing or reorder what is shown, and the controls a terminal obeys.
HIDDEN = ["\u202e", "\u202a", "\u2066", "\u200b", "\u200d", "\u2060", "\ufeff", "\u2028",
          "\u2029", "\u200f", "\u061c", "\x1b", "\x07"]  # fmt: skip
POISON = (
    "<script>alert(1)</script> ![x](https://evil.invalid/x.png) **bold** @someone "
    "txt\u202eexe.\u2066x\u2069 zero\u200bwidth line\u2028para\u2029 \x1b[2J bell\x07"
)
BUGGY = f"{sys.executable} {ROOT / 'tests' / 'fake_adapters' / 'buggy_engine.py'}"


def assert_nothing_hidden(where: str, text: str) -> None:
    raw = [f"U+{ord(c):04X}" for c in HIDDEN if c in text]
    assert not raw, f"{where}: raw {raw}"


@pytest.mark.parametrize("char", HIDDEN)
def test_every_hidden_character_is_escaped_everywhere_text_is_made_safe(char: str) -> None:
    text = f"a{char}b"
    shown = f"\\u{ord(char):04x}" if ord(char) > 0xFF else f"\\x{ord(char):02x}"
    assert escape(text) == safe_text(text) == terminal_text(text) == f"a{shown}b"


def test_a_poisoned_cause_is_escaped_on_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert main(["run", "-q", "--rule", "SCORE-2", "--json", str(old)]) == 0
    assert main(["run", "-q", "--rule", "SCORE-2", "--adapter", BUGGY, "--json", str(new)]) == 1
    document = json.loads(new.read_text(encoding="utf-8"))
    assert document["causes"]
    for cause in document["causes"]:
        cause["summary"] = POISON
        cause["rules"] = [*cause["rules"], POISON]
    for case in document["cases"]:
        for check in case.get("checks") or ():
            if check.get("signature"):
                check["signature"] = POISON
    document["header"]["engine"]["implementation"]["name"] = POISON
    new.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    capsys.readouterr()
    page, digest, merged = tmp_path / "p.html", tmp_path / "d.md", tmp_path / "m.json"
    assert main(["report", str(new), "--html", str(page), "--markdown", str(digest)]) == 0
    assert main(["report", "diff", str(old), str(new)]) == 1
    assert main(["report", "merge", str(new), "-o", str(merged)]) == 0
    out, err = capsys.readouterr()
    assert "\\u202e" in out  # report diff printed the cause, escaped
    html, md = page.read_text(encoding="utf-8"), digest.read_text(encoding="utf-8")
    for where, text in [("terminal", out + err), ("page", html), ("digest", md),
                        ("merged report", merged.read_text(encoding="utf-8"))]:  # fmt: skip
        assert_nothing_hidden(where, text.replace("@\u200b", "@"))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "\\u202e" in html and "\\u202e" in md
    # The digest: no image, no emphasis, no mention (the @ is followed by a zero-width space).
    assert "![x](" not in md and "**bold**" not in md
    assert not re.search(r"@[A-Za-z]", md) and "@\u200bsomeone" in md
    again = json.loads(merged.read_text(encoding="utf-8"))
    assert all("\\u202e" in c["summary"] or POISON not in c["summary"] for c in again["causes"])
