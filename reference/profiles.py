"""Rule profiles: every rule parameter as data.

The engine reads its numbers (hand sizes, contracts, meld sizes, joker limits, card values,
ace handling...) from a :class:`Profile`, so another seed's rules can be added as a new
profile plus small hooks. Only the Argentine profile of seed 000 exists today.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from reference.cards import Card, Rank


@dataclass(frozen=True)
class Profile:
    """One rule profile. Defaults are seed 000 (Argentine Carioca, 7 deals)."""

    name: str
    """Profile name used on the wire (``"argentine"``)."""
    min_players: int = 2
    max_players: int = 4
    copies: int = 2
    """Copies of each natural card in the pack (two 52-card packs)."""
    jokers: int = 4
    """Jokers in the pack."""
    deals: int = 7
    contracts: tuple[tuple[int, int], ...] = (
        (2, 0),
        (1, 1),
        (0, 2),
        (3, 0),
        (2, 1),
        (1, 2),
        (0, 3),
    )
    """Deal n (1-based) needs ``contracts[n-1] == (trios, runs)``."""
    hand_sizes: tuple[int, ...] = (11, 11, 11, 11, 11, 11, 12)
    """Cards dealt to each player in deal n: ``hand_sizes[n-1]``."""
    wild_ranks: frozenset[Rank] = frozenset()
    """Natural ranks that are wild like jokers (none here: twos are natural)."""
    rank_values: tuple[int, ...] = (20, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
    """Penalty value of each rank, A..K."""
    joker_value: int = 50
    initial_trio_size: int = 3
    initial_run_size: int = 4
    initial_sizes_exact: bool = True
    """Opening melds must have exactly the initial size (not "at least")."""
    initial_joker_limit: int | None = 1
    """Most jokers in one meld laid as part of an opening (``None``: no limit)."""
    later_joker_limit: int | None = None
    """Most jokers in one table meld after opening (``None``: no limit)."""
    ace_low: bool = True
    ace_high: bool = True
    runs_wrap: bool = False
    max_run_length: int = 14
    stock_exhaustion: str = "recycle_keep_top"
    """Empty stock on a stock draw: keep the top discard, shuffle the rest into a new stock;
    if nothing can be recycled, cancel the deal and replay it (same deal, same dealer)."""
    discard_to_close: bool = True
    """A deal closes only with a discard; no meld action may empty the hand."""
    rulings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """The option this profile follows on each disputed point (``DISPUTE-nn -> option``)."""

    def __hash__(self) -> int:
        # The rulings mapping is not hashable; the name identifies a profile.
        return hash(self.name)

    def contract(self, deal_number: int) -> tuple[int, int]:
        """``(trios, runs)`` required in deal ``deal_number`` (1-based)."""
        self.check_deal_number(deal_number)
        return self.contracts[deal_number - 1]

    def hand_size(self, deal_number: int) -> int:
        """Cards dealt to each player in deal ``deal_number``."""
        self.check_deal_number(deal_number)
        return self.hand_sizes[deal_number - 1]

    def check_deal_number(self, deal_number: int) -> None:
        """Raise ``ValueError`` unless ``deal_number`` is a deal of this profile."""
        if not 1 <= deal_number <= self.deals:
            raise ValueError(f"deal number {deal_number} is not in 1..{self.deals}")

    def is_wild(self, card: Card) -> bool:
        """True if ``card`` stands in for other cards (jokers, plus any wild ranks)."""
        return card.rank is None or card.rank in self.wild_ranks

    def card_value(self, card: Card) -> int:
        """Penalty points of one card left in hand at a close."""
        if card.rank is None:
            return self.joker_value
        return self.rank_values[card.rank.value - 1]

    def penalty(self, cards: Iterable[Card]) -> int:
        """Penalty points of the cards left in a hand."""
        return sum(self.card_value(card) for card in cards)

    @property
    def pack_size(self) -> int:
        """Number of cards in the pack (108)."""
        return 52 * self.copies + self.jokers


ARGENTINE = Profile(
    name="argentine",
    # Option keys are those of docs/rules.md (tests/test_reference_rulings.py checks it).
    rulings=MappingProxyType(
        {
            "DISPUTE-01": "b",
            "DISPUTE-02": "c",
            "DISPUTE-03": "grow",
            "DISPUTE-04": "valid",
            "DISPUTE-05": "yes",
            "DISPUTE-06": "yes",
            "DISPUTE-07": "refused",
            "DISPUTE-08": "yes",
            "DISPUTE-09": "stays",
            "DISPUTE-10": "no_cap",
            "DISPUTE-11": "a",
            "DISPUTE-12": "yes",
            "DISPUTE-13": "no",
            "DISPUTE-14": "yes",
            "DISPUTE-15": "share",
            "DISPUTE-16": "same_dealer",
            "DISPUTE-17": "same_dealer",
            "DISPUTE-18": "b",
            "DISPUTE-19": "allowed",
            "DISPUTE-20": "later_turns",
            "DISPUTE-21": "any",
            "DISPUTE-22": "yes",
            "DISPUTE-23": "allowed",
            "DISPUTE-24": "per_meld",
            "DISPUTE-25": "natural",
            "DISPUTE-26": "table_000",
            "DISPUTE-27": "seven",
            "DISPUTE-28": "never",
            "DISPUTE-29": "forbidden",
            "DISPUTE-30": "position",
            "DISPUTE-31": "exact",
            "DISPUTE-32": "two_to_four",
            "DISPUTE-33": "twelve",
            "DISPUTE-34": "yes",
            "DISPUTE-35": "no_change",
            "DISPUTE-36": "refused",
            "DISPUTE-37": "any_deal",
            "DISPUTE-38": "rank",
        }
    ),
)
"""Seed 000: Argentine Carioca, 7 deals, 108 cards, only jokers wild."""

PROFILES: Mapping[str, Profile] = MappingProxyType({ARGENTINE.name: ARGENTINE})


def find_profile(name: str) -> Profile:
    """The profile called ``name``.

    :raises ValueError: ``unsupported profile: <name>`` for an unknown name.
    """
    try:
        return PROFILES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unsupported profile: {name!r}") from None
