"""Malformed and borderline requests, and the answer docs/protocol.md requires for each.

``smoke --hostile`` and ``run --hostile`` send these probes: a required field left out, a
field of the wrong type (a boolean or a float ``cut``), a deal number past every profile's
last, an unknown op, action type or card code, a ``pass`` by the player to move, and extra
fields an engine must ignore. Each probe names the protocol section that decides it.

:data:`HOSTILE_PROBES` is the one list both commands read. A probe is sent only where it
applies to the engine's declarations (capability, profile, interface, rulings, player
counts); one that does not apply, or whose setting the engine cannot take (an
``unsupported`` answer), is *not graded*, never counted as a pass.

How the parts fit, from the bottom up:

- :mod:`~conformance.laws.hostile.probes`: the probes, the settings they are sent in and
  the answers required;
- :mod:`~conformance.laws.hostile.sending`: :func:`probe_engine`, each probe sent and its
  answer graded;
- :mod:`~conformance.laws.hostile.cases`: the outcomes as a run's cases and as smoke's
  checks.
"""

from conformance.laws.hostile.cases import (
    HOSTILE_IDS,
    SECTION,
    case_results,
    hostile_checks,
    hostile_run,
    not_sent,
    with_cases,
)
from conformance.laws.hostile.probes import (
    HOSTILE_PROBES,
    NOT_IN_PROFILE,
    Expectation,
    HostileProbe,
    Ignored,
    ProbeOutcome,
    Refused,
    Rejected,
    Request,
    Script,
    Setting,
)
from conformance.laws.hostile.sending import probe_engine

__all__ = [
    "HOSTILE_IDS",
    "HOSTILE_PROBES",
    "NOT_IN_PROFILE",
    "SECTION",
    "Expectation",
    "HostileProbe",
    "Ignored",
    "ProbeOutcome",
    "Refused",
    "Rejected",
    "Request",
    "Script",
    "Setting",
    "case_results",
    "hostile_checks",
    "hostile_run",
    "not_sent",
    "probe_engine",
    "with_cases",
]
