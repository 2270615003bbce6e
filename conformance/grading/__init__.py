"""Grading a case check by check (docs/scenario-format.md#checks).

A scenario's checks are planned when it loads (:mod:`conformance.scenarios.plan`); here each
one is judged against one engine:

- :mod:`~conformance.grading.expect`: what a check expects of this engine, under its
  declarations, or why it cannot be graded (an option it rules otherwise, a field it does
  not model, a capability it lacks);
- :mod:`~conformance.grading.answers`: a step's answer against the step's checks, and the
  state to put the engine back on when it differs (resync);
- :mod:`~conformance.grading.invariants`: every answered state against the profile's pack
  and seats;
- :mod:`~conformance.grading.signature`: one text per root cause, to group it across cases;
- :mod:`~conformance.grading.compare`: states and outcomes compared, what differs said in
  words;
- :mod:`~conformance.grading.ledger`: the checks of one case as they are graded, and the
  case's status, diff and failed rules summed up from them.
- :mod:`~conformance.grading.results`: the result types of a check, a case and a run.

:mod:`conformance.run.runner` drives the adapter and calls these; nothing here talks to one.
"""
