"""What a run works out while its adapter starts, instead of between the adapter's answers.

An adapter takes a while to answer ``hello`` (the reference, a Python program, a tenth of a
second), and the harness has nothing to do meanwhile. Once cases run, every moment the
harness spends on its own preparation is one the adapter may wait for. So the first
session's wait for its handshake (:meth:`conformance.adapter.engine.EngineSession.while_waiting`)
does the preparation that needs no answer:

- the schema validators, built once a process;
- each case's checks resolved under the profile's own options, with the result each
  records when it passes (:class:`conformance.grading.expect.Resolutions`), which an engine
  playing those options reads as they are, and any other engine works out again;
- each case's requests that are the same for every engine, checked against the schema and
  encoded (:class:`conformance.grading.requests.RequestBook`);
- the digest of the cases the run grades.

All of it fills caches that a case would fill itself on first use: what a run sends and
reports never depends on whether the warm-up got there first. Work left when the handshake
comes is done in later waits for an answer, or by the case that first needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

from conformance.adapter.declarations import INTERFACE_DEFAULTS
from conformance.adapter.engine import EngineSession
from conformance.adapter.protocol import prepare_validators
from conformance.grading.expect import Resolutions
from conformance.grading.requests import RequestBook
from conformance.knowledge.catalogue import Catalogue
from conformance.scenarios import Scenario, corpus_digest

#: Cases prepared per piece of work: about a millisecond, so that an engine that answers
#: ``hello`` at once waits at most that long for the harness to read it (beyond the
#: validators, built first, which reading ``hello`` needs anyway).
CASES_PER_PIECE = 8


class WarmUp:
    """One run's preparation while its first adapter starts (see the module's text)."""

    def __init__(
        self,
        scenarios: Sequence[Scenario],
        profile: str,
        catalogue: Catalogue | None,
        resolutions: Resolutions,
        requests: RequestBook,
    ) -> None:
        self.scenarios = scenarios
        self.profile = profile
        self.resolutions = resolutions
        self.requests = requests
        #: The option the profile plays on each point it rules on, and the protocol's default
        #: interface readings (the guess warmed for: checks written per reading read them).
        self._options: Mapping[str, str] = {
            **INTERFACE_DEFAULTS,
            **(catalogue.profile_options(profile) if catalogue is not None else {}),
        }
        self._digest: str | None = None

    def pieces(self) -> list[Callable[[], None]]:
        """The work, in small pieces, in the order it is best done."""
        work: list[Callable[[], None]] = [prepare_validators]
        for start in range(0, len(self.scenarios), CASES_PER_PIECE):
            work.append(partial(self._resolve, start, start + CASES_PER_PIECE))
        work.append(self.digest)
        return work

    def during_start(self, session: EngineSession) -> None:
        """Do the work while ``session`` waits for its adapter (before its ``start``)."""
        for piece in self.pieces():
            session.while_waiting(piece)

    def digest(self) -> None:
        """Work out the run's corpus digest (:attr:`corpus_digest`)."""
        if self._digest is None:
            self._digest = corpus_digest(self.scenarios)

    @property
    def corpus_digest(self) -> str:
        """The digest of the run's cases (conformance.scenarios.corpus_digest)."""
        self.digest()
        assert self._digest is not None
        return self._digest

    def _resolve(self, start: int, stop: int) -> None:
        ruling = self._options.get
        for scenario in self.scenarios[start:stop]:
            disputed = scenario.disputed.id if scenario.disputed else None
            self.resolutions.warm(scenario.plan_for(self.profile), ruling, disputed)
            self.requests.warm(scenario)


__all__ = ["CASES_PER_PIECE", "WarmUp"]
