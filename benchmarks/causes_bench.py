"""How many cause lines one bug reads as, whether its hints are true, and what explaining costs.

Every single-fault engine of tests/mutants/ (the reference with one rule broken, served
through the protocol, docs/mutants.md) is run on its profile's slice of the corpus as the
command line runs it by default (five consecutive errors stop it), its failing checks are
grouped into causes and explained by the reference (conformance.explaining), and this
reports, per mutant, the causes printed, the hints given, the seconds spent grading and
explaining, and with ``--verify`` whether each hint holds: the mutant run again graded as
if it declared the hinted option(s) must pass every check of that cause and fail no check
it passed. The summary gives the share of mutants printing exactly one cause, the mean
and the most (targets: at least 85%, at most 1.3, at most 4), the hints that failed
their proof, and the worst ratio of explaining time to grading time (target: at most 2).
Run from the repository root::

    PYTHONPATH=. python benchmarks/causes_bench.py [--mutant NAME ...] [--verify] [--workers 2]
        [--json out.json] [--lines]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance.grading.results import Cause, RunResult  # noqa: E402
from conformance.reports.causes import infer, with_causes  # noqa: E402
from conformance.reports.explain import declaring  # noqa: E402
from conformance.run.runner import RunOptions, run_scenarios  # noqa: E402
from tests.mutants import harness  # noqa: E402
from tests.mutants.later import BY_PROFILE  # noqa: E402
from tests.mutants.mutants import MUTANTS  # noqa: E402

#: The targets of docs/reports.md ("Causes").
ONE_SHARE, MEAN, MOST, COST = 0.85, 1.3, 4, 2.0


@dataclass
class Measured:
    """What one mutant's run printed, and what it cost."""

    name: str
    profile: str
    causes: list[str]
    hints: list[dict[str, str]]
    grading: float
    explaining: float
    stopped: bool
    #: Hints that, declared, left a check of their cause failing or failed a check that passed.
    false_hints: list[str] = field(default_factory=list)


def options(profile: str) -> RunOptions:
    """The command line's defaults for ``profile`` (five consecutive errors stop a run)."""
    return RunOptions(profile=profile, timeout=20.0, case_timeout=60.0)


def measure(name: str, corpus: harness.Corpus, profile: str, verify: bool) -> Measured:
    """Run mutant ``name``, group and explain its causes; with ``verify``, prove each hint."""
    argv = harness.mutant_argv(name)
    started = time.monotonic()
    run = run_scenarios(argv, corpus.scenarios, options(profile), catalogue=corpus.catalogue)
    grading = time.monotonic() - started
    started = time.monotonic()
    inference = infer(run, corpus.scenarios, corpus.catalogue, options=options(profile))
    explaining = time.monotonic() - started
    run = with_causes(run, corpus.scenarios, inference)
    stopped = any(r.status == "not_run" for r in run.results)
    found = Measured(
        name,
        profile,
        [c.summary for c in run.causes],
        [c.explained_by for c in run.causes if c.explained_by],
        grading,
        explaining,
        stopped,
    )
    if verify:
        for cause in run.causes:
            if cause.explained_by and not hint_holds(argv, corpus, profile, run, cause):
                found.false_hints.append(f"{cause.explained_by}: {cause.summary}")
    return found


def hint_holds(
    argv: Sequence[str], corpus: harness.Corpus, profile: str, run: RunResult, cause: Cause
) -> bool:
    """Whether the engine, graded as declaring ``cause.explained_by`` on top of its own
    declarations, passes every check of ``cause`` and fails no check it passed."""
    assert run.handshake is not None and cause.explained_by is not None
    declared = declaring(run.handshake, profile, cause.explained_by.items())
    again = run_scenarios(
        argv,
        corpus.scenarios,
        replace(options(profile), graded_as=declared, max_consecutive_errors=10**6),
        catalogue=corpus.catalogue,
    )
    status = {(r.id, c.key): c.status for r in again.results for c in r.checks}
    passed = {(r.id, c.key) for r in run.results for c in r.checks if c.status == "pass"}
    return all(status.get(m) in ("pass", "not_graded", None) for m in cause.members) and all(
        status.get(k) != "fail" for k in passed
    )


def corpus_of(name: str, corpora: dict[str, harness.Corpus]) -> tuple[harness.Corpus, str]:
    """The slice of the corpus mutant ``name`` runs against, and its profile."""
    for profile, of in BY_PROFILE.items():
        if name in of.names:
            if profile not in corpora:
                corpora[profile] = harness.load(profile=profile)
            return corpora[profile], profile
    return corpora[harness.PROFILE], harness.PROFILE


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the mutants asked for (default: every one); 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutant", action="append", choices=sorted(MUTANTS), metavar="NAME")
    parser.add_argument("--verify", action="store_true", help="prove every hint by declaring it")
    parser.add_argument("--workers", type=int, default=2, help="mutants measured side by side")
    parser.add_argument("--json", help="write every mutant's figures to this file")
    parser.add_argument("--lines", action="store_true", help="print every cause line")
    args = parser.parse_args(argv)
    harness.make_root_importable()
    corpora = {harness.PROFILE: harness.load()}
    names = args.mutant or list(MUTANTS)
    chosen = [(name, *corpus_of(name, corpora)) for name in names]

    def one(item: tuple[str, harness.Corpus, str]) -> Measured:
        name, corpus, profile = item
        found = measure(name, corpus, profile, args.verify)
        hints = f" hints {len(found.hints)}" + (
            f" FALSE {len(found.false_hints)}" if found.false_hints else ""
        )
        print(
            f"{name:<40} causes {len(found.causes):>3}{hints}  grade {found.grading:5.1f} s  "
            f"explain {found.explaining:5.1f} s" + ("  STOPPED" if found.stopped else ""),
            flush=True,
        )
        if args.lines:
            for line in found.causes:
                print(f"    {line}")
        for line in found.false_hints:
            print(f"    false hint: {line}")
        return found

    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        measured = list(pool.map(one, chosen))
    counts = [len(m.causes) for m in measured]
    ones = sum(1 for n in counts if n == 1)
    share = ones / len(counts) if counts else 1.0
    mean = sum(counts) / len(counts) if counts else 0.0
    most = max(counts, default=0)
    ratio = max((m.explaining / m.grading for m in measured if m.grading), default=0.0)
    hints = sum(len(m.hints) for m in measured)
    false = sum(len(m.false_hints) for m in measured)
    stopped = sum(1 for m in measured if m.stopped)
    print(
        f"\n{len(measured)} mutants: exactly one cause {ones} ({share:.0%}), mean {mean:.2f}, "
        f"most {most}; hints {hints}"
        + (f", {false} false" if args.verify else " (not verified)")
        + f"; stopped early {stopped}; explaining / grading at most {ratio:.2f}"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps([m.__dict__ for m in measured], indent=1), encoding="utf-8"
        )
    missed = share < ONE_SHARE or mean > MEAN or most > MOST or false or ratio > COST
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
