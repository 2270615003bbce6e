"""The default limits on an engine, one place for each: the command line, the pytest
plugin, the library's option objects and the session all start from these."""

from __future__ import annotations

from typing import Final

#: Default seconds to wait for the answer to one request.
DEFAULT_TIMEOUT: Final = 10.0
#: Default seconds to wait for the ``hello`` answer after spawning (interpreters
#: and JVMs can be slow to start, so it is separate from the request timeout).
DEFAULT_START_TIMEOUT: Final = 10.0
#: Default seconds one whole case may take, however many requests it sends.
DEFAULT_CASE_TIMEOUT: Final = 30.0
#: Default longest accepted response line, in bytes (a full state is a few KB).
DEFAULT_MAX_LINE_BYTES: Final = 8 * 2**20
