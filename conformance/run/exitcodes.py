"""The command line's exit codes (conformance.run.verdict decides which one a run gets).

Kept apart from the verdict so that a command that only needs the codes (``check``)
starts without importing the results and declarations the verdict reads.

0  nothing unexpected, and something was graded
1  failures, errors, cases not run, broken laws, an xpass under ``strict``, or an op
   answered in some cases and refused as ``unsupported`` in others
2  usage error (the command line's, not decided here)
3  the adapter could not start, failed its handshake, or does not list the profile
4  nothing was graded, or a gate was not met (under ``min_graded``, a player count missing)
"""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
EXIT_ADAPTER: Final = 3
EXIT_UNGRADED: Final = 4
