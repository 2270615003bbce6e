"""``carioca-conformance fuzz``: differential fuzzing of an engine against the reference.

The reference adapter is started as a subprocess (never imported), configured with the
rulings and house variants the engine under test declares in its handshake. Seeded games
are played with a mix of random and greedy policies; every action (and every deal op) is
put to both engines, and acceptance, rejection reason and resulting state are compared the
way ``run`` grades a case (conformance/grading/compare.py), honouring the engine's interface
declarations (docs/protocol.md §2). For engines at the ``melds`` level, meld, contract and
penalty queries are fuzzed too. A divergence is shrunk and written as a draft scenario
(``review: draft``), grouped by rule ID and de-duplicated. docs/fuzzing.md describes the
campaign, the report (``conformance/schemas/fuzz-report.schema.json``) and what is not
compared.

How the parts fit, from the bottom up:

- :mod:`~conformance.fuzz.model`: the options (and shards) and the findings' data:
  divergence, trace, occurrence, finding;
- :mod:`~conformance.fuzz.melds`: card and meld helpers shared by the parts that build play;
- :mod:`~conformance.fuzz.judge`: how an answer is judged beside the reference's (fair
  reasons, the state check, the rule a divergence is filed under), pure functions;
- :mod:`~conformance.fuzz.player`: the random player (a seeded policy) and random queries;
- :mod:`~conformance.fuzz.states`: built mid-deal states;
- :mod:`~conformance.fuzz.pair`: the engine and the reference side by side: each request
  put to both and judged;
- :mod:`~conformance.fuzz.games` and :mod:`~conformance.fuzz.scenes`: one game's main
  part, then the scene aimed at what random play seldom reaches;
- :mod:`~conformance.fuzz.pool`: a game on a pair, and games shared among worker
  processes;
- :mod:`~conformance.fuzz.shrink`: a smaller reproduction of a finding;
- :mod:`~conformance.fuzz.drafts`: a finding as a draft scenario;
- :mod:`~conformance.fuzz.campaign`: :func:`fuzz`, the campaign that ties these together;
- :mod:`~conformance.fuzz.report`: the JSON report, the drafts on disk and the summary;
- :mod:`~conformance.fuzz.merge`: shard reports read within bounds and merged;
- :mod:`~conformance.fuzz.command`: the ``fuzz`` command as a library call: the campaign
  or the merge, the files written, and the outcome with its exit code.

A library user needs only the names below: ``fuzz(argv, FuzzOptions(...), catalogue)``,
then ``report_dict``, ``write_outputs`` and ``summary``; ``merge_reports`` for shards.
"""

from __future__ import annotations

from .campaign import FuzzResult, ProgressFn, fuzz
from .drafts import draft_scenario
from .judge import (
    fair_reasons,
    lay_off_fair_reasons,
    new_game_check,
    reference_rulings,
    same_fair_family,
)
from .merge import merge_reports, read_report
from .model import (
    DEFAULT_MAX_STEPS,
    FIRST_DRAFT_ID,
    LAST_DRAFT_ID,
    Divergence,
    Finding,
    FuzzError,
    FuzzOptions,
    Occurrence,
    Trace,
    game_indices,
)
from .report import (
    MAX_DRAFT_VALUES,
    REPORT_VERSION,
    check_drafts_folder,
    finding_dict,
    is_own_draft,
    report_dict,
    report_text,
    summary,
    unstarted_report,
    write_outputs,
)
from .shrink import shrink

__all__ = [
    "DEFAULT_MAX_STEPS",
    "FIRST_DRAFT_ID",
    "LAST_DRAFT_ID",
    "MAX_DRAFT_VALUES",
    "REPORT_VERSION",
    "Divergence",
    "Finding",
    "FuzzError",
    "FuzzOptions",
    "FuzzResult",
    "Occurrence",
    "ProgressFn",
    "Trace",
    "check_drafts_folder",
    "draft_scenario",
    "fair_reasons",
    "finding_dict",
    "fuzz",
    "game_indices",
    "is_own_draft",
    "lay_off_fair_reasons",
    "merge_reports",
    "new_game_check",
    "read_report",
    "reference_rulings",
    "report_dict",
    "report_text",
    "same_fair_family",
    "shrink",
    "summary",
    "unstarted_report",
    "write_outputs",
]
