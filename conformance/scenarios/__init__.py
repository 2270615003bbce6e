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
- :mod:`~conformance.scenarios.corpus`: where the default corpus and catalogue are;
- :mod:`~conformance.scenarios.loadcache` (with :mod:`~conformance.scenarios.identity`):
  loaded files kept on disk, keyed and authenticated, so that ``check`` and ``run`` do not
  parse an unchanged corpus again.

This module loads files and corpora; every name other modules use is importable from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from conformance.io.plaindata import Codec
from conformance.knowledge.catalogue import Catalogue
from conformance.scenarios.corpus import scenario_files
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
from conformance.scenarios.loadcache import (
    cached,
    cached_group,
    cached_index,
    context_key,
    pin_group,
)
from conformance.scenarios.model import (
    CaseEntry,
    Check,
    DeckSpec,
    Disputed,
    IndexResult,
    Level,
    LoadResult,
    PlannedCheck,
    Scenario,
    ScenarioError,
    Setup,
    Step,
    StepKind,
)
from conformance.scenarios.packs import (
    PACK_SIZE,
    card_rank,
    card_suit,
    conservation_problems,
    fill_after,
    hand_size,
    table_meld_problem,
)

if TYPE_CHECKING:
    from conformance.scenarios.checker import DocChecker
    from conformance.scenarios.options import resolve_option
    from conformance.scenarios.yamldoc import SCHEMA_PATH, _jsonable, _validator

    _CACHE_CODEC: Codec

#: Names imported when first asked for: the YAML reader, the schema and the semantic checks
#: are needed only when a file is loaded afresh, and ``check`` of an unchanged corpus
#: (answered from the load cache) starts faster without them.
_LAZY = {
    "DocChecker": "conformance.scenarios.checker",
    "resolve_option": "conformance.scenarios.options",
    "SCHEMA_PATH": "conformance.scenarios.yamldoc",
    "_jsonable": "conformance.scenarios.yamldoc",
    "_validator": "conformance.scenarios.yamldoc",
}


def __getattr__(name: str) -> Any:
    """The names of :data:`_LAZY`, imported on first use (PEP 562)."""
    if name == "_CACHE_CODEC":
        return _cache_codec()
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DRAFT_IDS",
    "EXAMPLE_IDS",
    "PACK_SIZE",
    "RETIRED_FILE",
    "SCHEMA_PATH",
    "CaseEntry",
    "Check",
    "DeckSpec",
    "Disputed",
    "DocChecker",
    "IndexResult",
    "Level",
    "LoadResult",
    "Scenario",
    "ScenarioError",
    "Setup",
    "Step",
    "StepKind",
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
    "load_index",
    "pin_corpus",
    "resolve_option",
    "retired_ids",
    "table_meld_problem",
]


@cache
def _cache_codec() -> Codec:
    """How the load cache stores a LoadResult: plain JSON of these classes (no pickle).
    Made when first needed (reading every class's type hints is not free, and ``check``
    reads only the index)."""
    return Codec(LoadResult, Scenario, Setup, Step, Check, PlannedCheck, Disputed, DeckSpec)


#: How it stores a corpus's index (:func:`load_index`).
_INDEX_CODEC = Codec(CaseEntry)


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
        codec=_cache_codec(),
    )


def _load_file(file_path: Path, name: str, catalogue: Catalogue | None) -> LoadResult:
    scenarios: list[Scenario] = []
    errors: list[ScenarioError] = []
    from conformance.scenarios.checker import DocChecker
    from conformance.scenarios.yamldoc import _read_documents

    for item in _read_documents(file_path, name):
        if isinstance(item, ScenarioError):
            errors.append(item)
            continue
        node, data = item
        checker = DocChecker(node, data, name, catalogue)
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
    for result in _load_files(files, catalogue):
        scenarios.extend(result.scenarios)
        errors.extend(result.errors)
    kept, problems = _across_files(scenarios, paths)
    return LoadResult(tuple(kept), (*errors, *problems), tuple(str(f) for f in files))


def load_index(paths: Sequence[Path | str], *, catalogue: Catalogue | None = None) -> IndexResult:
    """What :func:`load_corpus` says of ``paths``, each case reduced to its
    :class:`CaseEntry`: the same entries, errors and files. An unchanged corpus's index is
    read from the load cache without decoding its cases, which is what ``check`` needs.

    :raises FileNotFoundError: when a path does not exist.
    """
    files = scenario_files([Path(p) for p in paths])
    errors: list[ScenarioError] = []

    def build() -> tuple[list[CaseEntry], bool]:
        entries: list[CaseEntry] = []
        for result in _load_files(files, catalogue):
            entries.extend(map(CaseEntry.of, result.scenarios))
            errors.extend(result.errors)
        return entries, not errors

    labels = [str(f) for f in files]
    index = cached_index(files, labels, context_key(catalogue), build, codec=_INDEX_CODEC)
    kept, problems = _across_files(index, paths)
    return IndexResult(tuple(kept), (*errors, *problems), tuple(labels))


def pin_corpus(paths: Sequence[Path | str], *, catalogue: Catalogue | None = None) -> None:
    """Read now, before an adapter under test starts, the load cache's entries a later
    :func:`load_corpus` of ``paths`` will use (:func:`conformance.scenarios.loadcache.pin_group`):
    the engine cannot then change what the run grades it on. Cheap: bytes, not decoding.

    :raises FileNotFoundError: when a path does not exist.
    """
    files = scenario_files([Path(p) for p in paths])
    pin_group(files, [str(f) for f in files], context_key(catalogue))


def _load_files(files: Sequence[Path], catalogue: Catalogue | None) -> list[LoadResult]:
    """Each file's LoadResult, from the load cache's one entry for them all when it can."""
    return cached_group(
        files,
        [str(f) for f in files],
        context_key(catalogue),
        lambda i: load_file(files[i], catalogue=catalogue),
        lambda result: not result.errors,
        codec=_cache_codec(),
    )


class _Case(Protocol):
    """What the checks across files read of a case (a Scenario or a CaseEntry)."""

    @property
    def id(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    def where(self) -> str: ...


_C = TypeVar("_C", bound=_Case)


def _across_files(
    cases: Sequence[_C], paths: Sequence[Path | str]
) -> tuple[list[_C], list[ScenarioError]]:
    """The cases kept and the problems only the whole corpus shows: an id used twice (the
    first copy is kept), a retired id or an id reserved for examples (every copy left out).
    """
    errors: list[ScenarioError] = []

    def problem(case: _C, message: str) -> None:
        errors.append(
            ScenarioError(message, file=case.path, line=case.line, column=1, scenario_id=case.id)
        )

    first: dict[str, _C] = {}
    dropped: set[str] = set()
    later_copies: set[int] = set()
    for case in cases:
        if case.id in first:
            later_copies.add(id(case))
            problem(
                case,
                f"duplicate id: already used at {first[case.id].where()}; "
                "this copy is left out (with --skip-broken the first one runs)",
            )
        else:
            first[case.id] = case
    retired = retired_ids([Path(p) for p in paths])
    for case in cases:
        if case.id in retired:
            dropped.add(case.id)
            problem(
                case,
                f"id {case.id} was retired ({retired[case.id]}); ids are never "
                "reused, so expectation files keep meaning what they meant: take a new id",
            )
    for case in cases:
        if is_example_id(case.id):
            dropped.add(case.id)
            problem(
                case,
                f"id {case.id} is reserved for examples in the docs "
                f"({EXAMPLE_IDS[0]}..{EXAMPLE_IDS[1]}), so a copied example never "
                "collides with a real case: take the next free id of your folder "
                "(docs/adding-scenarios.md §3)",
            )
    kept = [c for c in cases if c.id not in dropped and id(c) not in later_copies]
    return kept, errors


#: Ids the docs use for examples; no scenario may take one (``check`` refuses it).
