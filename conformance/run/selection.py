"""Which cases a run grades: the corpus read, then selected by rule, tag, id and profile,
then sharded.

``run``, ``check``, ``coverage`` and ``audit`` read a corpus the same way, and ``run``
selects from it and may grade one shard of the selection. These are plain functions of
paths, scenarios and strings, so a library user (the pytest plugin, a notebook, a CI
script) chooses exactly the cases the command line would, without argparse. Every mistake
is a :class:`SelectionError` whose message names the path, the option or the shard.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from conformance import scenarios
from conformance.errors import HarnessError
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import DEFAULT_PROFILE
from conformance.scenarios import IndexResult, LoadResult, Scenario, load_corpus
from conformance.scenarios.corpus import default_corpus_dir


class SelectionError(HarnessError, ValueError):
    """A corpus path, a selection or a shard that cannot be used; the message says which."""


class NoSelection(SelectionError):
    """The selection (rules, tags, ids, paths) matches no case of the profile."""


def corpus_paths(paths: Sequence[str | Path] = (), corpus: str | Path | None = None) -> list[Path]:
    """The scenario files and folders to read: ``paths`` and ``corpus`` as given, else the
    default corpus (a checkout's ``scenarios/``, else the installed copy).

    :raises SelectionError: when no path is given and no default corpus exists.
    """
    given = [Path(p) for p in paths]
    if corpus is not None:
        given.append(Path(corpus))
    if given:
        return given
    try:
        return [default_corpus_dir()]
    except FileNotFoundError as exc:
        raise SelectionError(str(exc)) from None


def corpus_label(paths: Sequence[str | Path] = (), corpus: str | Path | None = None) -> str:
    """Which corpus is read, for a header: the paths given (resolved), else the default."""
    given = [*paths, *([corpus] if corpus is not None else [])]
    if given:
        return ", ".join(str(Path(p).resolve()) for p in given)
    try:
        return str(default_corpus_dir())
    except FileNotFoundError:
        return "(none)"


def load_scenarios(
    paths: Sequence[str | Path] = (),
    corpus: str | Path | None = None,
    *,
    catalogue: Catalogue | None = None,
) -> LoadResult:
    """Read the corpus at ``paths`` and ``corpus`` (default: :func:`corpus_paths`).

    Broken scenarios are in the result's ``errors``, not raised.

    :raises SelectionError: when a path does not exist or no corpus is found.
    """
    try:
        return load_corpus(corpus_paths(paths, corpus), catalogue=catalogue)
    except FileNotFoundError as exc:
        raise SelectionError(str(exc)) from None


def pin_corpus(
    paths: Sequence[str | Path] = (),
    corpus: str | Path | None = None,
    *,
    catalogue: Catalogue | None = None,
) -> None:
    """Read the load cache's entries for the corpus at ``paths`` and ``corpus`` now, before
    the adapter under test starts (:func:`conformance.scenarios.pin_corpus`); a problem is
    left for the load itself to report."""
    with contextlib.suppress(FileNotFoundError, SelectionError):
        scenarios.pin_corpus(corpus_paths(paths, corpus), catalogue=catalogue)


def load_index(
    paths: Sequence[str | Path] = (),
    corpus: str | Path | None = None,
    *,
    catalogue: Catalogue | None = None,
) -> IndexResult:
    """:func:`load_scenarios`, each case reduced to its entry (``check`` needs no more).

    :raises SelectionError: when a path does not exist or no corpus is found.
    """
    try:
        return scenarios.load_index(corpus_paths(paths, corpus), catalogue=catalogue)
    except FileNotFoundError as exc:
        raise SelectionError(str(exc)) from None


def rule_matches(rule: str, prefix: str) -> bool:
    """``--rule`` matching: the id itself or any id under it (MELD-RUN matches MELD-RUN-3)."""
    return rule == prefix or rule.startswith(prefix + "-")


def select(
    scenarios: Sequence[Scenario],
    *,
    rules: Sequence[str] = (),
    tags: Sequence[str] = (),
    ids: Sequence[str] = (),
    profile: str = DEFAULT_PROFILE,
) -> list[Scenario]:
    """The scenarios of ``profile`` that ``run`` selects: every given criterion must hold
    (a rule ID or prefix among ``rules``, a tag among ``tags``, an id among ``ids``)."""
    chosen = []
    for scenario in scenarios:
        if profile not in scenario.profiles:
            continue
        if ids and scenario.id not in ids:
            continue
        if tags and not set(tags) & set(scenario.tags):
            continue
        if rules and not any(rule_matches(r, p) for r in scenario.rules for p in rules):
            continue
        chosen.append(scenario)
    return chosen


#: Most shards a selection may be split into: the report records ``K/N`` and its readers
#: (``report merge``, the report schema) take at most 9 digits, so a run never writes a
#: shard its own readers refuse.
MAX_SHARDS: Final = 999_999_999
#: ``K/N`` in ASCII digits (``str.isdigit`` also takes ``²``, which ``int`` refuses); spaces
#: around the numbers are taken (a CI matrix may write `` 1 / 2 ``), and the report records
#: the shard without them.
_SHARD: Final = re.compile(r" *([0-9]{1,12}) */ *([0-9]{1,12}) *")


def parse_shard(shard: str) -> tuple[int, int]:
    """``K/N`` as the pair (K, N), 1 <= K <= N: the one reading of ``run --shard`` and
    ``fuzz --shard``. Spaces around K and N are taken, leading zeros too (``01/4`` is 1/4).

    :raises SelectionError: naming the shard when it is not of that form.
    """
    found = _SHARD.fullmatch(shard)
    if found is None:
        raise SelectionError(f"--shard {shard[:40]}: expected K/N, for example 2/4")
    k, n = int(found.group(1)), int(found.group(2))
    if n > MAX_SHARDS:
        raise SelectionError(f"--shard {shard}: N must be at most {MAX_SHARDS}")
    if not 1 <= k <= n:
        raise SelectionError(f"--shard {shard}: K must be between 1 and N")
    return k, n


def shard_of(chosen: Sequence[Scenario], shard: str) -> list[Scenario]:
    """``run --shard K/N``: every N-th case of the selection by id, from the K-th (1-based).

    Ids are stable across machines and file layouts, so N runs with ``1/N`` … ``N/N``
    grade every selected case exactly once; the cases keep their corpus order.

    :raises SelectionError: for a malformed shard, or more shards than cases.
    """
    k, n = parse_shard(shard)
    if n > len(chosen):
        # report merge refuses such a split (more shards than cases), so run does too.
        raise SelectionError(
            f"--shard {shard}: {n} shards of {len(chosen)} selected case(s): "
            "N must be at most the number of cases"
        )
    # 1 <= K <= N <= the number of cases: the shard holds at least one case.
    keep = {s.id for s in sorted(chosen, key=lambda s: s.id)[k - 1 :: n]}
    return [s for s in chosen if s.id in keep]


__all__ = [
    "MAX_SHARDS",
    "NoSelection",
    "SelectionError",
    "corpus_label",
    "corpus_paths",
    "load_scenarios",
    "parse_shard",
    "pin_corpus",
    "rule_matches",
    "select",
    "shard_of",
]
