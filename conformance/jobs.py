"""The main job as a library: run one profile's cases, or every profile an engine lists.

``carioca-conformance run`` is argument parsing, signal handling and printing around the
functions here; a library user (the pytest plugin, a notebook, a CI script) runs the
corpus the same way without argparse:

    from conformance.jobs import run_every_profile
    runs = run_every_profile(argv, loaded.scenarios, catalogue=catalogue)
    verdicts = {name: judge(run, catalogue) for name, run in runs.items()}

:func:`profiles_to_run` asks the engine once which profiles it lists (a profile it does not
list is left out, not failed); :func:`run_profile` selects and runs one profile's cases,
then the laws and the expectations, as ``run --profile NAME`` does; :func:`as_shard` and
:func:`with_expectations` are the steps ``run`` takes after grading. How a run is judged
(its exit code, whether its green was earned) is :mod:`conformance.run.verdict`; how it is
printed, :mod:`conformance.reports.console`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from conformance.grading.results import RunResult, count_statuses
from conformance.knowledge.profiles import default_profiles
from conformance.run.selection import NoSelection, parse_shard, select, shard_of

if TYPE_CHECKING:
    from conformance.adapter.engine import Handshake
    from conformance.knowledge.catalogue import Catalogue
    from conformance.run.expectations import Expectations
    from conformance.run.runner import RunOptions
    from conformance.scenarios import Scenario


def engine_handshake(argv: Sequence[str], options: RunOptions) -> Handshake:
    """Start the adapter once, shake hands and close it: what the engine declares.

    :raises EngineError: when the adapter cannot start or its handshake fails.
    """
    from conformance.run.runner import new_session

    session = new_session(argv, options)
    try:
        return session.start()
    finally:
        session.close()


def profiles_to_run(handshake: Handshake) -> tuple[list[str], list[str]]:
    """The harness's profiles the engine lists (to run, in the harness's order) and those
    it does not list (left out, and said so)."""
    known = list(default_profiles())
    listed = [name for name in known if name in handshake.profiles]
    return listed, [name for name in known if name not in handshake.profiles]


def as_shard(
    run: RunResult, shard: str | None, whole: Sequence[Scenario], chosen: Sequence[Scenario]
) -> RunResult:
    """A shard's run (``shard`` is ``K/N``) records the whole selection's digest, so the
    shards' reports merge, and says in a warning which part it graded."""
    if not shard:
        return run
    from conformance.scenarios import corpus_digest

    # Written as the report schema reads it: no leading zeros (``01/4`` is ``1/4``).
    shard = "/".join(map(str, parse_shard(shard)))
    note = f"shard {shard}: {len(chosen)} of {len(whole)} selected case(s)"
    return replace(
        run, corpus_digest=corpus_digest(whole), shard=shard, warnings=(*run.warnings, note)
    )


def with_expectations(
    run: RunResult,
    expectations: Expectations,
    *,
    known_ids: Sequence[str] = (),
    source: str = "expectations file",
) -> RunResult:
    """Apply an engine's expectations: listed failures become ``xfail``, listed passes
    ``xpass``. With ``known_ids`` (every id of the corpus), an entry naming no case of it
    (a retired id, a typo) is named in a warning: it expects nothing."""
    from conformance.run.expectations import apply_expectations

    results = apply_expectations(run.results, expectations)
    run = replace(run, results=tuple(results), counts=count_statuses(results))
    if known_ids:
        # Whole cases, check entries and cause entries alike (the pytest plugin does the same).
        stale = sorted(expectations.ids - set(known_ids))
        if stale:
            note = (
                f"{source} names {len(stale)} id(s) that are not in the corpus: {', '.join(stale)}"
            )
            run = replace(run, warnings=(*run.warnings, note))
    return run


def run_profile(
    argv: Sequence[str],
    scenarios: Sequence[Scenario],
    options: RunOptions,
    *,
    catalogue: Catalogue | None = None,
    rules: Sequence[str] = (),
    tags: Sequence[str] = (),
    ids: Sequence[str] = (),
    shard: str | None = None,
    expectations: Expectations | None = None,
    laws: tuple[int, int] | None = None,
) -> RunResult:
    """Run the cases of ``options.profile`` among ``scenarios`` that the selection keeps
    (and, with ``shard`` ``K/N``, only that shard), as ``run --profile NAME`` does.

    ``laws`` ``(seed, deals)`` also checks the laws over seeded deals (``--properties``);
    ``expectations`` are applied last. A run whose adapter cannot start is returned with
    its ``run_error`` (every case ``not_run``), as ``run`` reports it.

    :raises NoSelection: when no case of the profile matches the selection.
    :raises SelectionError: for a malformed or empty shard.
    """
    from conformance.errors import EngineError
    from conformance.laws.properties import check_properties
    from conformance.run.runner import run_scenarios, unstarted_run

    whole = select(scenarios, rules=rules, tags=tags, ids=ids, profile=options.profile)
    if not whole:
        raise NoSelection(f"profile {options.profile}: no scenario matches the selection")
    chosen = shard_of(whole, shard) if shard else whole
    try:
        run = run_scenarios(argv, chosen, options, catalogue=catalogue)
    except EngineError as exc:
        return as_shard(unstarted_run(argv, chosen, options, exc, catalogue), shard, whole, chosen)
    run = as_shard(run, shard, whole, chosen)
    hs = run.handshake
    if laws is not None and hs is not None and options.profile in hs.profiles:
        seed, deals = laws
        run = replace(run, properties=check_properties(argv, options, seed=seed, deals=deals))
    if expectations is not None:
        run = with_expectations(run, expectations, known_ids=[s.id for s in scenarios])
    return run


def run_every_profile(
    argv: Sequence[str],
    scenarios: Sequence[Scenario],
    options: RunOptions | None = None,
    *,
    catalogue: Catalogue | None = None,
    rules: Sequence[str] = (),
    tags: Sequence[str] = (),
    ids: Sequence[str] = (),
    laws: tuple[int, int] | None = None,
) -> dict[str, RunResult]:
    """``run --profile all``: :func:`run_profile` for each profile the engine lists, in the
    harness's order; a profile with no selected case is left out.

    :raises EngineError: when the adapter cannot start for the first handshake.
    :raises NoSelection: when no profile has a selected case.
    """
    from conformance.run.runner import RunOptions

    base = options or RunOptions()
    names, _unlisted = profiles_to_run(engine_handshake(argv, base))
    runs: dict[str, RunResult] = {}
    for name in names:
        try:
            runs[name] = run_profile(
                argv,
                scenarios,
                replace(base, profile=name),
                catalogue=catalogue,
                rules=rules,
                tags=tags,
                ids=ids,
                laws=laws,
            )
        except NoSelection:
            continue
    if not runs:
        raise NoSelection("no scenario of any profile matches the selection")
    return runs


__all__ = [
    "as_shard",
    "engine_handshake",
    "profiles_to_run",
    "run_every_profile",
    "run_profile",
    "with_expectations",
]
