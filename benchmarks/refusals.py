"""What one wrong refusal costs: the share of checks lost to "after a divergence".

An engine that refuses an action it must accept fails that step's acceptance; grading then
goes on from the state the case expects after the step (docs/scenario-format.md, "Grading
goes on after a failed check"), and only where that state is not fully known, or the
engine does not load it, are the later checks of the case not graded (cause
``divergence``). This runs, per profile, the corpus against the reference refusing about
one accepted action in ``--every`` (tests/fake_adapters/house_engine.py ``--refuse-hash``:
chosen by a hash of the action and its state, so the same actions are refused whatever
else is run) and reports the checks in all, those failed, and those not graded after a
divergence, with their share (the target is 2% or less, on average over ``--salts``
choices of the actions refused; ``worst`` is the largest share of one choice). ``refused``
counts the failed checks (each refused action fails its own acceptance). ``--why`` adds
where grading stopped: the action refused and the harness's reason, most checks first
(per choice). Run from the repository root::

    PYTHONPATH=. python benchmarks/refusals.py [--every 15] [--salts 3] [--profile perla] [--why]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from conformance.grading.results import CaseResult, graded
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.profiles import default_profiles
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import Scenario, load_corpus

ROOT = Path(__file__).resolve().parents[1]
HOUSE = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "house_engine.py")]
#: The target: no more of the checks than this lost to one wrong refusal in 15.
TARGET = 0.02


def main(argv: list[str] | None = None) -> int:
    """Run every profile asked for; 1 when one loses more than the target share on
    average over the choices of refused actions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=15, help="refuse about one in N")
    parser.add_argument("--salts", type=int, default=3, help="choices of refused actions")
    parser.add_argument("--profile", action="append", help="a profile (default: all)")
    parser.add_argument("--why", action="store_true", help="where grading stopped")
    parser.add_argument("--top", type=int, default=15, help="lines of --why per profile")
    args = parser.parse_args(argv)
    catalogue = load_catalogue(ROOT / "conformance" / "data" / "catalogue.json")
    loaded = load_corpus([ROOT / "scenarios"], catalogue=catalogue)
    if loaded.errors:
        print(f"the corpus does not load: {loaded.errors[0]}", file=sys.stderr)
        return 2
    worst = 0.0
    print(f"refusing about 1 in {args.every} accepted actions, {args.salts} choices of them")
    print(f"{'profile':<10} {'checks':>7} {'refused':>8} {'lost':>6} {'share':>6} {'worst':>6}")
    for profile in args.profile or sorted(default_profiles()):
        chosen = [s for s in loaded.scenarios if profile in s.profiles]
        by_id = {s.id: s for s in chosen}
        total = failed = lost = 0
        shares = []
        why: Counter[tuple[str, str]] = Counter()
        for salt in range(args.salts):
            engine = [*HOUSE, "--refuse-hash", str(args.every), "--refuse-salt", str(salt)]
            options = RunOptions(profile=profile)
            run = run_scenarios(engine, chosen, options, catalogue=catalogue)
            counted = graded(run.results)
            here = counted.not_graded.get("divergence", 0)
            total, failed, lost = total + counted.total, failed + counted.failed, lost + here
            shares.append(here / counted.total if counted.total else 0.0)
            why.update(stopped(run.results, by_id))
        share = lost / total if total else 0.0
        worst = max(worst, share)
        n = max(args.salts, 1)
        print(
            f"{profile:<10} {total // n:>7} {failed / n:>8.1f} {lost / n:>6.1f} "
            f"{share:>6.1%} {max(shares, default=0.0):>6.1%}"
        )
        if args.why:
            for (what, note), checks in why.most_common(args.top):
                print(f"    {checks / n:>6.1f}  {what}: {note}")
    return 0 if worst <= TARGET else 1


def stopped(
    results: Sequence[CaseResult], scenarios: dict[str, Scenario]
) -> Counter[tuple[str, str]]:
    """Checks not graded after a divergence, by the step where grading stopped (its action
    type or op) and the harness's reason, numbers taken out so that like reasons group."""
    found: Counter[tuple[str, str]] = Counter()
    for result in results:
        for check in result.checks:
            if check.cause != "divergence":
                continue
            note = check.note or ""
            # The step named in the note (where grading stopped), else the check's own.
            named = re.search(r"step (\d+)", note)
            number = int(named.group(1)) if named else check.step
            what = "final"
            scenario = scenarios.get(result.id)
            if number and scenario is not None and number <= len(scenario.steps):
                at = scenario.steps[number - 1]
                what = (at.action or {}).get("type", at.kind) if at.kind == "action" else at.kind
            found[(what, re.sub(r"\d+", "N", note))] += 1
    return found


if __name__ == "__main__":
    sys.exit(main())
