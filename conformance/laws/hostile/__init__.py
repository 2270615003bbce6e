"""Malformed and borderline requests, and the answer docs/protocol.md requires for each.

``smoke --hostile`` and ``run --hostile`` send these probes: a required field left out, a
field of the wrong type (a boolean or a float ``cut``), a deal number past every profile's
last, an unknown op, action type or card code, a ``pass`` by the player to move, extra
fields an engine must ignore, and impossible requests (a deck that is not the pack, a
player count the profile has no place for, a state that cannot be). Each probe names the
protocol section that decides it; where the protocol leaves the answer to the engine, what
it did is reported as information, never graded.

:data:`HOSTILE_PROBES` is the one list both commands read. A probe is sent only where it
applies to the engine's declarations (capability, profile, interface, rulings, player
counts); one that does not apply, or whose setting the engine cannot take (an
``unsupported`` answer), is *not graded*, never counted as a pass.

How the parts fit, from the bottom up:

- :mod:`~conformance.laws.hostile.model`: the answers required, the settings probes are
  sent in, the states and requests they are built from;
- :mod:`~conformance.laws.hostile.impossible`: the impossible requests;
- :mod:`~conformance.laws.hostile.probes`: the malformed requests, and the list of all;
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
from conformance.laws.hostile.model import (
    NOT_IN_PROFILE,
    Expectation,
    HostileProbe,
    Ignored,
    MayRefuse,
    ProbeOutcome,
    Refused,
    Rejected,
    Request,
    Script,
    Setting,
)
from conformance.laws.hostile.probes import HOSTILE_PROBES
from conformance.laws.hostile.sending import probe_engine

__all__ = [
    "HOSTILE_IDS",
    "HOSTILE_PROBES",
    "NOT_IN_PROFILE",
    "SECTION",
    "Expectation",
    "HostileProbe",
    "Ignored",
    "MayRefuse",
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
