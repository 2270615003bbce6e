"""carioca-conformance: the harness that runs Carioca engines through the adapter protocol.

The front door: the library's entry points are exported here (docs/library.md shows them
in use), imported when first used, so that ``import conformance`` does not import all of
it. It is the top layer: nothing inside the harness imports it (the version a module needs
is conformance/version.py)::

    from conformance import RunOptions, default_corpus_dir, judge, load_corpus, run_profile

    loaded = load_corpus([default_corpus_dir()])
    run = run_profile(["python", "-m", "my_adapter"], loaded.scenarios, RunOptions())
    print(judge(run).code)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from conformance.version import CORPUS_VERSION, __version__

#: Each public entry point and the module that defines it.
_ENTRY_POINTS: dict[str, str] = {
    "run_profile": "conformance.jobs",
    "run_request": "conformance.jobs",
    "RunRequest": "conformance.jobs",
    "RunOutcome": "conformance.jobs",
    "run_every_profile": "conformance.jobs",
    "run_each_profile": "conformance.jobs",
    "EveryProfile": "conformance.jobs",
    "handshake_profile": "conformance.jobs",
    "engine_handshake": "conformance.jobs",
    "RunOptions": "conformance.run.runner",
    "RunResult": "conformance.grading.results",
    "CaseResult": "conformance.grading.results",
    "judge": "conformance.run.verdict",
    "Gates": "conformance.run.verdict",
    "Verdict": "conformance.run.verdict",
    "load_corpus": "conformance.scenarios",
    "Scenario": "conformance.scenarios",
    "default_corpus_dir": "conformance.scenarios.corpus",
    "load_catalogue": "conformance.knowledge.catalogue",
    "Catalogue": "conformance.knowledge.catalogue",
    "HarnessError": "conformance.errors",
    "EngineError": "conformance.errors",
}

if TYPE_CHECKING:
    from conformance.errors import EngineError, HarnessError
    from conformance.grading.results import CaseResult, RunResult
    from conformance.jobs import (
        EveryProfile,
        RunOutcome,
        RunRequest,
        engine_handshake,
        handshake_profile,
        run_each_profile,
        run_every_profile,
        run_profile,
        run_request,
    )
    from conformance.knowledge.catalogue import Catalogue, load_catalogue
    from conformance.run.runner import RunOptions
    from conformance.run.verdict import Gates, Verdict, judge
    from conformance.scenarios import Scenario, load_corpus
    from conformance.scenarios.corpus import default_corpus_dir


def __getattr__(name: str) -> Any:
    """An entry point, imported from its module on first use (PEP 562)."""
    module = _ENTRY_POINTS.get(name)
    if module is None:
        raise AttributeError(f"module 'conformance' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "CORPUS_VERSION",
    "CaseResult",
    "Catalogue",
    "EngineError",
    "EveryProfile",
    "Gates",
    "HarnessError",
    "RunOptions",
    "RunOutcome",
    "RunRequest",
    "RunResult",
    "Scenario",
    "Verdict",
    "__version__",
    "default_corpus_dir",
    "engine_handshake",
    "handshake_profile",
    "judge",
    "load_catalogue",
    "load_corpus",
    "run_each_profile",
    "run_every_profile",
    "run_profile",
    "run_request",
]
