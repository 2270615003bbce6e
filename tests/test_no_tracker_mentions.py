"""Code, tests, scenarios and docs say what they mean, never "see issue N".

The issue tracker is not part of the repository: a number pointing into it means nothing to
a reader of the code. Each mention says instead what it refers to (the behaviour or rule in
plain words, a docs/...md#anchor, a test name, a rule ID). This test reads every text file
git tracks and lists each mention left as ``file:line``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: A tracker reference: "issue" or "issues", in any case, then a number, with or without "#".
TRACKER_MENTION = re.compile(r"\bissues?\s*#?\s*[0-9]+", re.IGNORECASE)


def _tracked_files() -> list[str]:
    """The repository's tracked files, relative to its root (skips outside a git checkout)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        message = "not a git checkout: the tracked files cannot be listed"
        if os.environ.get("CI") == "true":
            pytest.fail(message + "; CI=true, so this test may not be skipped")
        pytest.skip(message)
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    return [name for name in listed.decode("utf-8").split("\0") if name]


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary file (or one deleted but not yet unstaged)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def mentions(text: str) -> list[int]:
    """The numbers (1-based) of the lines of ``text`` that mention a tracker issue."""
    if not TRACKER_MENTION.search(text):
        return []
    return [n for n, line in enumerate(text.splitlines(), 1) if TRACKER_MENTION.search(line)]


# The examples put the number in at run time ({n}), so this file holds no mention itself.
@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("a rule (issue {n}) in a comment", True),
        ("# Issue #{n}: the tail of stderr", True),
        ("coverage by execution (issues {n} and 42)", True),
        ("item 8 of issue {n}", True),
        ("see ISSUE {n}", True),
        ("the harness issued {n} requests", False),
        ("tissue {n}", False),
        ("DISPUTE-{n} and cc-0302 name a rule and a case", False),
        ("an issue with the adapter", False),
    ],
)
def test_a_tracker_mention_is_told_from_ordinary_words(line: str, found: bool) -> None:
    assert bool(mentions(line.format(n=12))) is found


def test_no_tracked_file_mentions_a_tracker_issue() -> None:
    files = _tracked_files()
    assert "pyproject.toml" in files, "git listed no file of the repository"
    left: list[str] = []
    for name in files:
        text = _text(ROOT / name)
        if text is None:
            continue
        left.extend(f"{name}:{n}" for n in mentions(text))
    assert not left, (
        "these lines point at the issue tracker, which is not part of the repository; say what "
        "is meant instead (the behaviour or rule, a docs/...md#anchor, a test name, a rule ID):\n"
        + "\n".join(left)
    )
