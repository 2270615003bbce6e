"""Loading, validating and expanding YAML scenarios (docs/scenario-format.md).

The loader keeps YAML node positions so that every problem it reports names the
file, line, column and scenario id. Documents are constructed with PyYAML's
SafeLoader only: a scenario file can never run code.

The package's parts, each readable alone:

- :mod:`~conformance.scenarios.model`: what a loaded scenario is (plain data);
- :mod:`~conformance.scenarios.plan`: the checks a scenario makes, enumerable from it alone;
- :mod:`~conformance.scenarios.options`: expectations written per option (``by_option``);
- :mod:`~conformance.scenarios.packs`: cards and packs (filling, conservation, melds);
- :mod:`~conformance.scenarios.yamldoc`: safe YAML reading with node positions;
- :mod:`~conformance.scenarios.checker` and :mod:`~conformance.scenarios.semantics`: the
  schema and semantic checks that build a Scenario from a document;
- :mod:`~conformance.scenarios.ids`: reserved and retired ids, the corpus digest.

This module loads files and corpora; every name other modules use is importable from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conformance.catalogue import Catalogue
from conformance.corpus import scenario_files
from conformance.loadcache import cached, cached_group, context_key
from conformance.plaindata import Codec
from conformance.scenarios.checker import _DocChecker
from conformance.scenarios.ids import (
    DRAFT_IDS,
    EXAMPLE_IDS,
    RETIRED_FILE,
    canonical_json,
    corpus_digest,
    is_draft_id,
    is_example_id,
    retired_ids,
)
from conformance.scenarios.model import (
    Check,
    DeckSpec,
    Disputed,
    Level,
    LoadResult,
    PlannedCheck,
    Scenario,
    ScenarioError,
    Setup,
    Step,
    StepKind,
)
from conformance.scenarios.options import resolve_option
from conformance.scenarios.packs import (
    PACK_SIZE,
    card_rank,
    card_suit,
    conservation_problems,
    fill_after,
    hand_size,
    table_meld_problem,
)
from conformance.scenarios.yamldoc import SCHEMA_PATH, _jsonable, _read_documents, _validator

__all__ = [
    "DRAFT_IDS",
    "EXAMPLE_IDS",
    "PACK_SIZE",
    "RETIRED_FILE",
    "SCHEMA_PATH",
    "Check",
    "DeckSpec",
    "Disputed",
    "Level",
    "LoadResult",
    "Scenario",
    "ScenarioError",
    "Setup",
    "Step",
    "StepKind",
    "_DocChecker",
    "_jsonable",
    "_validator",
    "canonical_json",
    "card_rank",
    "card_suit",
    "conservation_problems",
    "corpus_digest",
    "fill_after",
    "hand_size",
    "is_draft_id",
    "is_example_id",
    "load_corpus",
    "load_file",
    "resolve_option",
    "retired_ids",
    "table_meld_problem",
]


#: How the load cache stores a LoadResult: plain JSON of these classes (no pickle).
_CACHE_CODEC = Codec(LoadResult, Scenario, Setup, Step, Check, PlannedCheck, Disputed, DeckSpec)


def load_file(
    path: Path | str, *, catalogue: Catalogue | None = None, label: str | None = None
) -> LoadResult:
    """Load every scenario document of one YAML file.

    Documents with problems are left out of ``scenarios`` and described in ``errors``.
    """
    file_path = Path(path)
    name = label or str(file_path)
    return cached(
        file_path,
        name,
        context_key(catalogue),
        lambda: _load_file(file_path, name, catalogue),
        lambda result: not result.errors,
        codec=_CACHE_CODEC,
    )


def _load_file(file_path: Path, name: str, catalogue: Catalogue | None) -> LoadResult:
    scenarios: list[Scenario] = []
    errors: list[ScenarioError] = []
    for item in _read_documents(file_path, name):
        if isinstance(item, ScenarioError):
            errors.append(item)
            continue
        node, data = item
        checker = _DocChecker(node, data, name, catalogue)
        scenario = checker.build()
        errors.extend(checker.errors)
        if scenario is not None:
            scenarios.append(scenario)
    return LoadResult(tuple(scenarios), tuple(errors), (name,))


def load_corpus(paths: Sequence[Path | str], *, catalogue: Catalogue | None = None) -> LoadResult:
    """Load every scenario under ``paths`` (files or directories), in corpus order.

    Besides the per-document checks this reports ids used twice across the corpus:
    the first copy (in corpus order) is kept and every later one is left out, so
    ``run --skip-broken`` still runs that id and says which copy it dropped. Retired
    ids are left out in every copy.

    :raises FileNotFoundError: when a path does not exist.
    """
    files = scenario_files([Path(p) for p in paths])
    scenarios: list[Scenario] = []
    errors: list[ScenarioError] = []
    loaded = cached_group(
        files,
        [str(f) for f in files],
        context_key(catalogue),
        lambda i: load_file(files[i], catalogue=catalogue),
        lambda result: not result.errors,
        codec=_CACHE_CODEC,
    )
    for result in loaded:
        scenarios.extend(result.scenarios)
        errors.extend(result.errors)
    first: dict[str, Scenario] = {}
    duplicated: set[str] = set()
    later_copies: set[int] = set()
    for scenario in scenarios:
        if scenario.id in first:
            later_copies.add(id(scenario))
            errors.append(
                ScenarioError(
                    f"duplicate id: already used at {first[scenario.id].where()}; "
                    "this copy is left out (with --skip-broken the first one runs)",
                    file=scenario.path,
                    line=scenario.line,
                    column=1,
                    scenario_id=scenario.id,
                )
            )
        else:
            first[scenario.id] = scenario
    retired = retired_ids([Path(p) for p in paths])
    for scenario in scenarios:
        if scenario.id in retired:
            duplicated.add(scenario.id)
            errors.append(
                ScenarioError(
                    f"id {scenario.id} was retired ({retired[scenario.id]}); ids are never "
                    "reused, so expectation files keep meaning what they meant: take a new id",
                    file=scenario.path,
                    line=scenario.line,
                    column=1,
                    scenario_id=scenario.id,
                )
            )
    for scenario in scenarios:
        if is_example_id(scenario.id):
            duplicated.add(scenario.id)
            errors.append(
                ScenarioError(
                    f"id {scenario.id} is reserved for examples in the docs "
                    f"({EXAMPLE_IDS[0]}..{EXAMPLE_IDS[1]}), so a copied example never "
                    "collides with a real case: take the next free id of your folder "
                    "(docs/adding-scenarios.md §3)",
                    file=scenario.path,
                    line=scenario.line,
                    column=1,
                    scenario_id=scenario.id,
                )
            )
    kept = tuple(s for s in scenarios if s.id not in duplicated and id(s) not in later_copies)
    return LoadResult(kept, tuple(errors), tuple(str(f) for f in files))


#: Ids the docs use for examples; no scenario may take one (``check`` refuses it).
