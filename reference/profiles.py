"""Rule profiles: every rule parameter as data.

The engine reads its numbers (hand sizes, contracts, meld sizes, joker limits, card values,
ace handling...) from a :class:`Profile`, so another seed's rules can be added as a new
profile plus small hooks. Only the Argentine profile of seed 000 exists today.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
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
    max_trio_size: int | None = None
    """Most cards in a table trio (``None``: only the cards that exist limit it)."""
    stock_exhaustion: str = "recycle_keep_top"
    """Empty stock on a stock draw: keep the top discard, shuffle the rest into a new stock;
    if nothing can be recycled, cancel the deal and replay it (same deal, same dealer)."""
    discard_to_close: bool = True
    """A deal closes only with a discard; no meld action may empty the hand."""
    illegal_action_penalty: int = 0
    """Points a player owes for each refused action, scored at the deal's close
    (DISPUTE-35 ``penalty``: 10; ``no_change``: 0)."""
    rulings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """The option this profile follows on each disputed point and house variant
    (``DISPUTE-nn`` / ``VARIANT-nn`` -> option)."""

    def __hash__(self) -> int:
        # The rulings mapping is not hashable; the name identifies a profile.
        return hash(self.name)

    def ruling(self, point: str) -> str:
        """The option this profile plays on a disputed point or house variant.

        ``point`` is a ``DISPUTE-nn`` or ``VARIANT-nn`` id of docs/rules.md.

        :raises KeyError: for a point the profile does not rule on.
        """
        return self.rulings[point]

    def with_rulings(self, changes: Mapping[str, str]) -> Profile:
        """This profile playing other options on some points (``{"DISPUTE-31": "at_least"}``).

        The rule parameters that follow from a ruling (card values, hand sizes, meld sizes,
        joker limits, aces) are derived here; every other option is read with
        :meth:`ruling` by the rules code at the branch that cites it.

        :raises ValueError: naming an unknown point, or an option the point does not have.
        """
        problems = ruling_problems(changes)
        if problems:
            raise ValueError("; ".join(problems))
        rulings = {**self.rulings, **changes}
        return _derive(replace(self, rulings=MappingProxyType(rulings)))

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
            "VARIANT-01": "fifty",
            "VARIANT-02": "low_or_high",
            "VARIANT-03": "lifted",
            "VARIANT-04": "forbidden",
            "VARIANT-05": "eleven",
            "VARIANT-06": "any",
        }
    ),
)
"""Seed 000: Argentine Carioca, 7 deals, 108 cards, only jokers wild."""

#: Every option of every disputed point and house variant, the profile's option first
#: (keys as in conformance/data/catalogue.json; tests/test_reference_rulings.py keeps them equal).
OPTIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "DISPUTE-01": ("b", "a"),
        "DISPUTE-02": ("c", "a", "b"),
        "DISPUTE-03": ("grow", "fixed"),
        "DISPUTE-04": ("valid", "invalid"),
        "DISPUTE-05": ("yes", "no"),
        "DISPUTE-06": ("yes", "no"),
        "DISPUTE-07": ("refused", "closes"),
        "DISPUTE-08": ("yes", "no"),
        "DISPUTE-09": ("stays", "bury"),
        "DISPUTE-10": ("no_cap", "cap"),
        "DISPUTE-11": ("a", "b", "c"),
        "DISPUTE-12": ("yes", "no"),
        "DISPUTE-13": ("no", "yes"),
        "DISPUTE-14": ("yes", "no"),
        "DISPUTE-15": ("share", "tiebreak"),
        "DISPUTE-16": ("same_dealer", "next_dealer"),
        "DISPUTE-17": ("same_dealer", "next_dealer"),
        "DISPUTE-18": ("b", "a", "c"),
        "DISPUTE-19": ("allowed", "forbidden"),
        "DISPUTE-20": ("later_turns", "same_turn"),
        "DISPUTE-21": ("any", "own"),
        "DISPUTE-22": ("yes", "no"),
        "DISPUTE-23": ("allowed", "forbidden"),
        "DISPUTE-24": ("per_meld", "per_opening"),
        "DISPUTE-25": ("natural", "wild"),
        "DISPUTE-26": ("table_000", "table_001", "table_003"),
        "DISPUTE-27": ("seven", "eight"),
        "DISPUTE-28": ("never", "taker_keeps"),
        "DISPUTE-29": ("forbidden", "steal"),
        "DISPUTE-30": ("position", "declared"),
        "DISPUTE-31": ("exact", "at_least"),
        "DISPUTE-32": ("two_to_four", "more_players"),
        "DISPUTE-33": ("twelve", "thirteen"),
        "DISPUTE-34": ("yes", "no"),
        "DISPUTE-35": ("no_change", "penalty"),
        "DISPUTE-36": ("refused", "stock_instead"),
        "DISPUTE-37": ("any_deal", "first_deal"),
        "DISPUTE-38": ("rank", "rank_and_suit"),
        "VARIANT-01": ("fifty", "thirty"),
        "VARIANT-02": ("low_or_high", "low_only"),
        "VARIANT-03": ("lifted", "kept"),
        "VARIANT-04": ("forbidden", "allowed"),
        "VARIANT-05": ("eleven", "twelve"),
        "VARIANT-06": ("any", "one"),
    }
)


def ruling_problems(rulings: Mapping[str, str]) -> tuple[str, ...]:
    """What is wrong with a set of rulings: points or options that :data:`OPTIONS` lacks."""
    problems = []
    for point, option in rulings.items():
        if point not in OPTIONS:
            problems.append(f"{point} is not a disputed point or house variant")
        elif option not in OPTIONS[point]:
            known = ", ".join(OPTIONS[point])
            problems.append(f"{point}: {option!r} is not one of its options ({known})")
    return tuple(problems)


def _derive(profile: Profile) -> Profile:
    """Set the rule parameters that follow from the profile's rulings (see each rule ID)."""
    r = profile.ruling
    values = list(ARGENTINE.rank_values)  # DISPUTE-26 table_000, SCORE-2
    joker_value = ARGENTINE.joker_value
    if r("DISPUTE-26") == "table_001":
        values[0], values[1] = 15, 25
    elif r("DISPUTE-26") == "table_003":
        values[0], joker_value = 15, 25
    wild_ranks: frozenset[Rank] = frozenset()
    if r("DISPUTE-25") == "wild":  # CARDS-2: twos wild, 25 points each
        wild_ranks, values[1] = frozenset({Rank.TWO}), 25
    if r("VARIANT-01") == "thirty":  # JOKER-7, SCORE-2
        joker_value = 30
    deals, contracts = ARGENTINE.deals, ARGENTINE.contracts
    hand_sizes = list(ARGENTINE.hand_sizes)
    if r("DISPUTE-27") == "eight":  # GAME-1: an eighth round of 13 cards, three runs
        deals, contracts = 8, (*contracts, (0, 3))
        hand_sizes.append(13)
    if r("VARIANT-05") == "twelve":  # DEAL-3: 12 cards in every deal
        hand_sizes = [12] * len(hand_sizes)
    if r("DISPUTE-33") == "thirteen":  # DEAL-3: 13 cards in deal 7
        hand_sizes[6] = 13
    return replace(
        profile,
        rank_values=tuple(values),
        joker_value=joker_value,
        wild_ranks=wild_ranks,
        deals=deals,
        contracts=tuple(contracts),
        hand_sizes=tuple(hand_sizes),
        # DISPUTE-31: opening melds of exactly, or at least, 3 and 4 cards (CONTRACT-8).
        initial_sizes_exact=r("DISPUTE-31") == "exact",
        # VARIANT-03: the one-joker limit of JOKER-2 kept on table melds (JOKER-3).
        later_joker_limit=1 if r("VARIANT-03") == "kept" else None,
        # VARIANT-02: the ace only below the 2 (CARDS-3, MELD-RUN-2).
        ace_high=r("VARIANT-02") != "low_only",
        # DISPUTE-10: a trio of at most the 8 natural copies of a rank (MELD-TRIO-4).
        max_trio_size=8 if r("DISPUTE-10") == "cap" else None,
        # DISPUTE-35 penalty: 10 points per refused action, scored at the close (TURN-1).
        illegal_action_penalty=10 if r("DISPUTE-35") == "penalty" else 0,
    )


PROFILES: Mapping[str, Profile] = MappingProxyType({ARGENTINE.name: ARGENTINE})


def find_profile(name: str) -> Profile:
    """The profile called ``name``.

    :raises ValueError: ``unsupported profile: <name>`` for an unknown name.
    """
    try:
        return PROFILES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unsupported profile: {name!r}") from None
