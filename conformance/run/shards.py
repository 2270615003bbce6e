"""The shards of a split run or campaign: which are missing from a merge.

Its own module, importing nothing of the harness: the merges of run reports and of fuzz
reports read it, and neither should load the corpus code :mod:`conformance.run.selection`
needs to cut a selection into shards.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

#: Most missing shards a merged report names one by one (the rest are counted).
MISSING_SHARDS_NAMED: Final = 10


def missing_shards(have: Collection[int], n: int) -> str:
    """The shards of a split in ``n`` that ``have`` lacks, as ``2/8, 5/8 and 3 more``: at
    most :data:`MISSING_SHARDS_NAMED` named, the rest counted; "" when none is missing.
    ``have`` holds shard numbers 1..n, each once (the merges refuse others first).

    Bounded by the input, whatever ``n`` says: at most ``len(have)`` plus
    :data:`MISSING_SHARDS_NAMED` steps, never a walk of 1..n.
    """
    missing = n - len(have)
    if missing <= 0:
        return ""
    named: list[str] = []
    k = 1
    while len(named) < MISSING_SHARDS_NAMED and k <= n:
        if k not in have:
            named.append(f"{k}/{n}")
        k += 1
    more = missing - len(named)
    return ", ".join(named) + (f" and {more} more" if more else "")
