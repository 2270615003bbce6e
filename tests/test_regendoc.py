"""README.md and docs/ cannot drift: each marked sample block is what a real run of the page's
command prints now, and each stated count is the corpus's (tests/regendoc.py; regenerate with
``PYTHONPATH=$PWD python3 -m tests.regendoc --write``)."""

from __future__ import annotations

import re

import pytest

from tests.doc_samples import COUNTS, SAMPLES
from tests.paths import ROOT
from tests.regendoc import (
    PAGES,
    Count,
    blocks,
    check_counts,
    check_samples,
    comparable,
    count_mismatches,
    excerpt,
    rewrite_block,
    rewrite_count,
)

REGENERATE = "regenerate with: PYTHONPATH=$PWD python3 -m tests.regendoc --write"


@pytest.mark.parametrize(
    "sample",
    [pytest.param(s, id=s.name, marks=[pytest.mark.slow] if s.slow else []) for s in SAMPLES],
)
def test_a_sample_block_is_what_its_command_prints(sample: object) -> None:
    problems = check_samples([sample], write=False, echo=lambda _: None)  # type: ignore[list-item]
    assert not problems, "\n".join(problems) + "\n" + REGENERATE


@pytest.mark.parametrize(
    "count",
    [
        pytest.param(c, id=f"{c.page}-{i}", marks=[pytest.mark.slow] if c.slow else [])
        for i, c in enumerate(COUNTS)
    ],
)
def test_a_count_a_page_states_is_the_corpus_s(count: Count) -> None:
    problems = check_counts([count], write=False, echo=lambda _: None)
    assert not problems, "\n".join(problems) + "\n" + REGENERATE


def test_every_marked_block_has_a_sample_and_every_sample_a_block() -> None:
    marked = {
        (page, block.name)
        for page in PAGES
        for block in blocks((ROOT / page).read_text(encoding="utf-8"))
    }
    assert marked == {(s.page, s.name) for s in SAMPLES}


# Numbers of the corpus a page may state only through a Count: cases, scenarios, files.
CORPUS_NUMBER = re.compile(
    r"(?<![-\w.,])\d[\d,]* (?:YAML )?(?:cases|scenarios)\b|(?<![-\w.])\d+ files\b"
)
# Dated records (a measurement "on 3 December 2026", a past bug's figures) keep the numbers
# of their day; a generated report (docs/mutants.md) states those of its generation.
RECORDS = ("docs/performance.md", "docs/mutants.md", "docs/robustness.md")
# Made-up figures of an example report, not claims about the corpus: the line that holds each.
ILLUSTRATIONS = {
    "docs/reports.md": ("in 9 cases", "A report of 308 cases", "so 2,000 cases fit"),
}


def test_no_page_states_a_corpus_number_that_no_count_checks() -> None:
    unchecked = []
    for page in PAGES:
        if page in RECORDS:
            continue
        text = (ROOT / page).read_text(encoding="utf-8")
        covered = [
            m.span()
            for count in COUNTS
            if count.page == page
            for m in re.finditer(count.pattern, text)
        ]
        starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
        covered += [(starts[b.start], starts[b.stop]) for b in blocks(text)]
        for number in CORPUS_NUMBER.finditer(text):
            line = text.count("\n", 0, number.start()) + 1
            said = text.split("\n")[line - 1]
            if any(phrase in said for phrase in ILLUSTRATIONS.get(page, ())):
                continue
            if not any(a <= number.start() < b for a, b in covered):
                unchecked.append(f"{page}:{line}: {number[0]!r}")
    assert not unchecked, (
        "state these through a Count of tests/doc_samples.py, or not at all:\n"
        + "\n".join(unchecked)
    )


# --- the machinery itself -------------------------------------------------------------------------


def test_an_excerpt_keeps_the_chosen_lines_and_marks_each_gap_once() -> None:
    text = "head\nA one\n  a detail\nB two\nC three\n\nsummary"
    assert excerpt(text, (r"^A ", r"^[A-Z] "), r"^summary") == "…\nA one\n  a detail\n…\nsummary"


def test_durations_do_not_count_but_everything_else_does() -> None:
    assert comparable("331 cases in 0.1 s; 2 passed in 6.10s") == comparable(
        "331 cases in 12.7 s; 2 passed in 0.3s"
    )
    assert comparable("331 cases in 0.1 s") != comparable("332 cases in 0.1 s")
    assert comparable("=== 2 passed in 6.10s ===") == comparable("== 2 passed in 16.10s ==")


def test_a_block_is_rewritten_in_place_keeping_its_indent() -> None:
    page = "intro\n  <!-- regendoc: x -->\n  ```text\n  old\n  ```\nafter"
    (block,) = blocks(page)
    assert block.text == "old"
    assert rewrite_block(page, block, "new\n\nlines") == (
        "intro\n  <!-- regendoc: x -->\n  ```text\n  new\n\n  lines\n  ```\nafter"
    )


def test_a_count_that_drifted_is_named_and_rewritten() -> None:
    count = Count("p.md", r"the corpus \((\d+) YAML cases, (\d+) files\)", lambda: [686, 110])
    page = "the corpus (654 YAML cases, 110 files) and more"
    assert count_mismatches(page, count) == [
        "p.md: 'the corpus (654 YAML cases, 110 files)' states ['654', '110'],"
        " the corpus says ['686', '110']"
    ]
    assert rewrite_count(page, count) == "the corpus (686 YAML cases, 110 files) and more"
    assert count_mismatches("no such sentence", count) == [
        "p.md: nothing matches 'the corpus \\\\((\\\\d+) YAML cases, (\\\\d+) files\\\\)'"
    ]
