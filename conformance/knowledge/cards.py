"""Card codes as the harness knows them (docs/protocol.md §3), independent of any engine.

One home for the ranks, suits and the canonical pack order (docs/scenario-format.md) that
the scenario loader, the smoke probes, the property checks and the diffs all use.
"""

from __future__ import annotations

from typing import Final

RANKS: Final[tuple[str, ...]] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Final[tuple[str, ...]] = ("S", "H", "D", "C")
JOKER: Final = "JK"
#: The 108 cards in canonical order: AS..KS, AH..KH, AD..KD, AC..KC, again, four jokers.
CANONICAL_ORDER: Final[tuple[str, ...]] = (
    tuple(rank + suit for suit in SUITS for rank in RANKS) * 2 + (JOKER,) * 4
)
