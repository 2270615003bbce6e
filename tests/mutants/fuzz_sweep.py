"""Fuzz every rule mutant of a profile and say, for each, whether fuzzing kills it.

A mutant is *found* when a campaign against it (seeded, so rerunnable) writes a draft
scenario that the mutant fails and the reference passes (docs/fuzzing.md). Run from the
repository root::

    PYTHONPATH=. python -m tests.mutants.fuzz_sweep --profile all --games 60 --jobs 2

One line a mutant: ``found`` or ``MISSED``, the first game that shows the killing draft's
divergence, the rule it cites, and how many findings and drafts the campaign made. ``--jobs``
campaigns run side by side (each one adapter pair, ``--workers 1``), so 2 keeps a 2-core
machine busy and no more. ``tests/conformance/test_fuzz_drafts.py`` calls :func:`sweep_one` in its
opt-in full sweep.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from conformance import fuzz
from conformance.knowledge.catalogue import Catalogue, load_catalogue
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import load_corpus

from . import harness
from .later import BY_PROFILE
from .mutants import MUTANTS

PROFILES = ("argentine", "chilean", "pagat", "perla")


def mutants_of(profile: str) -> list[str]:
    """The mutants of ``profile``, in definition order (the Argentine ones are all the rest)."""
    if profile in BY_PROFILE:
        return [name for name in MUTANTS if name in BY_PROFILE[profile].names]
    later = set().union(*(of.names for of in BY_PROFILE.values()))
    return [name for name in MUTANTS if name not in later]


@dataclass(frozen=True)
class Outcome:
    """What fuzzing one mutant gave."""

    profile: str
    name: str
    found: bool
    game: int | None
    """The first game that showed the killing draft's divergence (None when missed)."""
    rule: str | None
    findings: int
    drafts: int
    steps: int
    seconds: float

    def line(self) -> str:
        """One line of the sweep's table."""
        verdict = "found " if self.found else "MISSED"
        where = f"game {self.game:>3} {self.rule}" if self.found else "-"
        return (
            f"{self.profile:9} {self.name:34} {verdict} {where:28} "
            f"{self.findings:2} finding(s) {self.drafts:2} draft(s) "
            f"{self.steps:6} steps {self.seconds:6.1f} s"
        )


def grade(argv: Sequence[str], path: Path, profile: str, catalogue: Catalogue) -> str:
    """The status (``pass``, ``fail``...) of the one scenario at ``path`` on ``argv``."""
    loaded = load_corpus([path], catalogue=catalogue)
    if loaded.errors or len(loaded.scenarios) != 1:
        return "broken"
    harness.make_root_importable()
    run = run_scenarios(list(argv), list(loaded.scenarios), RunOptions(profile=profile),
                        catalogue=catalogue)  # fmt: skip
    return run.results[0].status


def sweep_one(
    name: str,
    profile: str,
    *,
    games: int = 60,
    seed: int = 0,
    max_steps: int = 120,
    out: Path,
    catalogue: Catalogue | None = None,
) -> Outcome:
    """Fuzz mutant ``name`` under ``profile``; grade its drafts against it and the reference."""
    catalogue = catalogue or load_catalogue()
    harness.make_root_importable()
    argv = harness.mutant_argv(name)
    options = fuzz.FuzzOptions(games=games, seed=seed, max_steps=max_steps, profile=profile)
    started = time.monotonic()
    result = fuzz.fuzz(argv, options, catalogue)
    report = fuzz.report_dict(result)
    fuzz.write_outputs(report, out)
    drafts = [f for f in report["findings"] if f.get("scenario_file")]
    killer = None
    for finding in drafts:
        path = Path(finding["scenario_file"])
        if grade(argv, path, profile, catalogue) == "fail" and (
            grade(harness.reference_argv(), path, profile, catalogue) == "pass"
        ):
            killer = finding
            break
    return Outcome(
        profile,
        name,
        killer is not None,
        min(killer["games"]) if killer else None,
        killer["rule"] if killer else None,
        len(report["findings"]),
        len(drafts),
        result.steps,
        time.monotonic() - started,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Sweep; exit 1 when a mutant is missed."""
    parser = argparse.ArgumentParser(prog="tests.mutants.fuzz_sweep", description=__doc__)
    parser.add_argument("--profile", default="all", choices=[*PROFILES, "all"])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=120)
    parser.add_argument("--jobs", type=int, default=1, help="campaigns side by side")
    parser.add_argument("--mutant", action="append", default=[], help="only these mutants")
    parser.add_argument("--out", type=Path, help="keep the reports and drafts here")
    args = parser.parse_args(argv)
    profiles = PROFILES if args.profile == "all" else (args.profile,)
    todo = [
        (profile, name)
        for profile in profiles
        for name in mutants_of(profile)
        if not args.mutant or name in args.mutant
    ]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.out or Path(tmp)

        # Processes, not threads: the harness's own work per step would hold one
        # interpreter's lock. ``--jobs`` bounds the adapter pairs alive at once.
        context = multiprocessing.get_context("spawn")
        outcomes = []
        with ProcessPoolExecutor(max_workers=max(1, args.jobs), mp_context=context) as pool:
            futures = [
                pool.submit(
                    sweep_one,
                    name,
                    profile,
                    games=args.games,
                    seed=args.seed,
                    max_steps=args.max_steps,
                    out=root / profile / name,
                )
                for profile, name in todo
            ]
            for future in futures:
                outcome = future.result()
                print(outcome.line(), flush=True)
                outcomes.append(outcome)
    missed = [o for o in outcomes if not o.found]
    print(
        f"{len(outcomes) - len(missed)}/{len(outcomes)} mutants found "
        f"({args.games} games, seed {args.seed}, {args.max_steps} steps) in "
        f"{time.monotonic() - started:.0f} s; missed: {', '.join(o.name for o in missed) or '-'}"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
