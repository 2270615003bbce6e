"""Rule profiles: every rule parameter as data.

The engine reads its numbers (hand sizes, contracts, meld sizes, joker limits, card values,
ace handling...) from a :class:`Profile`, so another seed's rules can be added as a new
profile plus small hooks. Four profiles exist: ``argentine`` (seed 000), ``chilean``
(seed 001, docs/rules.md's Chilean section), ``pagat`` (seed 002, its Pagat section) and
``perla`` (seed 003, its Perla section). A profile rules on every disputed point it plays; a
profile's point that restates an Argentine one (``DISPUTE-48`` for ``DISPUTE-25``,
``DISPUTE-58`` for ``DISPUTE-13``, ``DISPUTE-64`` for ``DISPUTE-29``...) sets the Argentine
point's option, so the rules code reads one ruling per fact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from reference.cards import Card, Rank, Suit
from reference.errors import UnknownRulingError


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
    big_pack_players: int | None = None
    """From this many players on, the pack is ``big_copies`` packs and ``big_jokers`` jokers
    (CHILE-CARDS-2); ``None``: one pack size for every player count."""
    big_copies: int = 3
    big_jokers: int = 4
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
    wild_cards: frozenset[Card] = frozenset()
    """Natural cards wild by rank and suit, beside ``wild_ranks`` (perla's red aces A♥ A♦,
    PERLA-WILD-1)."""
    wild_card_value: int | None = None
    """Penalty of a ``wild_cards`` card left in hand, when not its rank's (perla: 25,
    DISPUTE-62)."""
    natural_in_place: bool = False
    """A natural wild card lying in its own natural place in a meld (a 2 at a run's
    2-position of its suit, a trio of 2s; a red ace at an ace end of its suit's run, a trio of
    aces) counts as natural (CHILE-WILD-3, PERLA-WILD-3, DISPUTE-49)."""
    bury_ranks: frozenset[Rank] = frozenset({Rank.TWO})
    """Besides jokers, the ranks buried when turned up (DISPUTE-09 bury; CHILE-DEAL-7)."""
    alternative_contracts: Mapping[int, tuple[tuple[int, int], ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    """Deal n also accepts these ``(trios, runs)`` (CHILE-ROUND8-1: four runs in round 8)."""
    going_out_deals: frozenset[int] = frozenset()
    """Deals whose contract is laid down only as a going-out play, with melds of any size
    from the opening sizes on (CHILE-ROUND8-2)."""
    going_out_run_size: int | None = None
    """Smallest run of a going-out deal's contract when not ``initial_run_size``
    (DISPUTE-40 three_card_runs)."""
    out_score: int = 0
    """What the player who goes out scores (SCORE-1; DISPUTE-46 minus_ten: -10)."""
    lowering_out_score: int | None = None
    """What the player who goes out scores instead of ``out_score`` when the hand empties
    on the turn they laid down (PERLA-SCORE-1, DISPUTE-65: -30); ``None``: no such bonus."""
    lowering_out_by_discard: bool = True
    """Whether a discard ending the laying-down turn earns ``lowering_out_score`` too
    (DISPUTE-65 no_discard: only melding does)."""
    cut_score: int = 0
    """What a perfect cut scores for the cutter, onto their total when the deal is dealt
    (PERLA-CUT-2, DISPUTE-67: -10); 0: the cut is not scored."""
    wild_swap: str = "run_end"
    """How a wild card leaves a meld: ``run_end`` (JOKER-4..6, the natural card takes a run
    joker's place and the joker moves to an end), ``to_hand`` (CHILE-SWAP-1..3, any meld,
    the wild card goes to the taker's hand) or ``none`` (PERLA-WILD-4: never)."""
    rank_values: tuple[int, ...] = (20, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
    """Penalty value of each rank, A..K."""
    joker_value: int = 50
    initial_trio_size: int = 3
    initial_run_size: int = 4
    initial_sizes_exact: bool = True
    """Opening melds must have exactly the initial size (not "at least")."""
    initial_runs_exact: bool = True
    """With ``initial_sizes_exact``, opening runs too must have exactly the initial size;
    False: trios exactly 3, runs at least 4 (DISPUTE-31, DISPUTE-41 ``runs_at_least``)."""
    bury_wild_naturals: bool = True
    """Under DISPUTE-09 ``bury``, a natural wild or buried-rank upcard (a 2, a Perla red ace)
    is buried with the jokers; False: only a joker is (DISPUTE-09 ``jokers``)."""
    short_runs: bool = False
    """Runs of one card fewer than ``initial_run_size`` (3) are legal too, laid down and on
    the table (DISPUTE-52 three)."""
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
    trio_suits_differ: bool = False
    """A trio's natural cards are all of different suits, laid down and later; each wild card
    stands for a missing suit (PERLA-TRIO-1, DISPUTE-63 different)."""
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

    def plays(self, point: str, option: str) -> bool:
        """True if the profile plays ``option`` on ``point``, a point it rules on.

        The pair is checked against the catalogue (:data:`OPTIONS`) first, so a misspelt
        point or option fails loudly instead of reading as "another option".

        :raises UnknownRulingError: for a point or option the catalogue lacks.
        :raises KeyError: for a catalogue point the profile does not rule on.
        """
        check_ruling(point, option)
        return self.rulings[point] == option

    def rules_on(self, point: str, option: str | None = None) -> bool:
        """True if the profile rules on ``point`` (and, given ``option``, plays it there).

        For points only some profiles rule on (the Chilean DISPUTE-39..77): a profile that
        does not rule on the point plays none of its options.

        :raises UnknownRulingError: for a point or option the catalogue lacks.
        """
        check_ruling(point, option)
        if option is None:
            return point in self.rulings
        return self.rulings.get(point) == option

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
        problems = list(ruling_problems(changes))
        for point in changes:
            if point in OPTIONS and point not in self.rulings:
                problems.append(f"{point} is not a point of the {self.name} profile")
            elif point in _FIXED.get(self.name, {}):
                problems.append(f"{point} is {_FIXED[self.name][point]} in the {self.name} profile")
        if problems:
            raise ValueError("; ".join(problems))
        rulings = {**self.rulings, **changes}
        return _derive(replace(self, rulings=MappingProxyType(rulings)))

    def pack(self, players: int) -> tuple[int, int]:
        """``(copies of each natural card, jokers)`` for ``players`` (CARDS-1, CHILE-CARDS-2)."""
        if self.big_pack_players is not None and players >= self.big_pack_players:
            return self.big_copies, self.big_jokers
        return self.copies, self.jokers

    def pack_size_for(self, players: int) -> int:
        """Cards in the pack for ``players`` (108; chilean 106, or 160 for 5-6)."""
        copies, jokers = self.pack(players)
        return 52 * copies + jokers

    def contract_options(self, deal_number: int) -> tuple[tuple[int, int], ...]:
        """Every ``(trios, runs)`` deal ``deal_number`` accepts, its main contract first."""
        extra = self.alternative_contracts.get(deal_number, ())
        return (self.contract(deal_number), *extra)

    def for_deal(self, deal_number: int) -> Profile:
        """The profile as it judges the melds of deal ``deal_number``'s contract.

        A going-out deal (CHILE-ROUND8-2) lays melds of any size from the opening sizes on.
        """
        if deal_number not in self.going_out_deals:
            return self
        run_size = self.going_out_run_size or self.initial_run_size
        return replace(self, initial_sizes_exact=False, initial_run_size=run_size)

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
        """True if ``card`` stands in for other cards (jokers, plus any wild ranks or cards)."""
        return card.rank is None or card.rank in self.wild_ranks or card in self.wild_cards

    @property
    def natural_wilds(self) -> bool:
        """True if some natural cards are wild (a Chilean 2, a Perla red ace)."""
        return bool(self.wild_ranks or self.wild_cards)

    def card_value(self, card: Card) -> int:
        """Penalty points of one card left in hand at a close."""
        if card.rank is None:
            return self.joker_value
        if self.wild_card_value is not None and card in self.wild_cards:
            return self.wild_card_value  # DISPUTE-62: a Perla red ace
        return self.rank_values[card.rank.value - 1]

    def perfect_cut(self, players: int, deal_number: int) -> int:
        """The cut that leaves the dealer exactly the hands and the upcard (PERLA-CUT-1)."""
        return players * self.hand_size(deal_number) + 1

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
        "DISPUTE-09": ("stays", "bury", "jokers"),
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
        "DISPUTE-31": ("exact", "at_least", "runs_at_least"),
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
        # The Chilean points (seed 001); only the chilean profile rules on them.
        "DISPUTE-39": ("either", "no_discard", "discard"),
        "DISPUTE-40": ("impossible", "three_card_runs"),
        "DISPUTE-41": ("exact", "at_least", "runs_at_least"),
        "DISPUTE-42": ("eleven", "twelve"),
        "DISPUTE-43": ("one_sixty", "one_fifty_nine"),
        "DISPUTE-44": ("anyone", "laid_down"),
        "DISPUTE-45": ("melding", "discard_only"),
        "DISPUTE-46": ("zero", "minus_ten"),
        "DISPUTE-47": ("share", "tiebreak"),
        "DISPUTE-48": ("wild", "natural"),
        "DISPUTE-49": ("in_place", "always_wild"),
        "DISPUTE-50": ("unlimited", "one_per_meld"),
        "DISPUTE-51": ("bury", "stays"),
        "DISPUTE-52": ("four", "three"),
        "DISPUTE-53": ("no", "yes"),
        "DISPUTE-54": ("optional", "compulsory"),
        "DISPUTE-55": ("standard", "joker_30", "joker_20", "two_20"),
        "DISPUTE-56": ("fresh_deal", "keep_hands"),
        # A Chilean house point (issue 24): the pack whatever the player count.
        "DISPUTE-78": ("by_players", "always_108"),
        # The Pagat points (seed 002); only the pagat profile rules on them.
        "DISPUTE-57": ("forbidden", "allowed"),
        "DISPUTE-58": ("discard", "melding"),
        "DISPUTE-59": ("laid_down", "anyone"),
        "DISPUTE-60": ("all_cards", "unmatched_only"),
        "DISPUTE-74": ("lot", "first_seat"),
        "DISPUTE-75": ("recycle", "round_ends"),
        "DISPUTE-76": ("forbidden", "allowed"),
        "DISPUTE-77": ("allowed", "forbidden"),
        # The Perla points (seed 003); only the perla profile rules on them (with the shared
        # DISPUTE-47, -49, -50 and -74..77 above).
        "DISPUTE-61": ("four_jokers", "two_jokers"),
        "DISPUTE-62": ("joker_value", "ace_value"),
        "DISPUTE-63": ("different", "free"),
        "DISPUTE-64": ("after_passes", "forbidden"),
        "DISPUTE-65": ("same_turn", "no_discard", "zero"),
        "DISPUTE-66": ("at_least", "exact"),
        "DISPUTE-67": ("minus_ten", "no_bonus"),
        "DISPUTE-68": ("thirteen_last", "eleven"),
        "DISPUTE-69": ("both", "round_7_only", "round_8_only"),
        "DISPUTE-70": ("excluded", "thirteen_card_rounds"),
        "DISPUTE-71": ("melding", "discard_only"),
        "DISPUTE-72": ("none", "run_end"),
        "DISPUTE-73": ("two_to_eight", "two_to_four"),
    }
)


def _first(by_option: Mapping[str, Mapping[str, str]]) -> Mapping[str, str]:
    """The Argentine points one Chilean point sets (those of its first option)."""
    return next(iter(by_option.values()))


#: Chilean points that restate an Argentine point (or house variant): the Chilean option
#: sets the Argentine point's option, so the rules code reads one ruling per fact.
_RESTATED: Mapping[str, Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        "DISPUTE-41": {o: {"DISPUTE-31": o} for o in ("exact", "at_least", "runs_at_least")},
        "DISPUTE-45": {
            "melding": {"DISPUTE-07": "closes", "DISPUTE-13": "yes"},
            "discard_only": {"DISPUTE-07": "refused", "DISPUTE-13": "no"},
        },
        "DISPUTE-47": {o: {"DISPUTE-15": o} for o in ("share", "tiebreak")},
        "DISPUTE-48": {o: {"DISPUTE-25": o} for o in ("wild", "natural")},
        "DISPUTE-51": {o: {"DISPUTE-09": o} for o in ("bury", "stays")},
        "DISPUTE-76": {o: {"VARIANT-04": o} for o in ("forbidden", "allowed")},
        "DISPUTE-42": {
            "eleven": {"VARIANT-05": "eleven", "DISPUTE-33": "thirteen"},
            "twelve": {"VARIANT-05": "twelve", "DISPUTE-33": "twelve"},
        },
    }
)

#: Perla points that restate an Argentine point (or house variant), as ``_RESTATED`` does for
#: the Chilean ones.
_PERLA_RESTATED: Mapping[str, Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        "DISPUTE-64": {
            "after_passes": {"DISPUTE-29": "steal"},
            "forbidden": {"DISPUTE-29": "forbidden"},
        },
        "DISPUTE-66": {o: {"DISPUTE-31": o} for o in ("at_least", "exact")},
        "DISPUTE-71": {
            "melding": {"DISPUTE-07": "closes", "DISPUTE-13": "yes"},
            "discard_only": {"DISPUTE-07": "refused", "DISPUTE-13": "no"},
        },
        "DISPUTE-47": {o: {"DISPUTE-15": o} for o in ("share", "tiebreak")},
        "DISPUTE-76": {o: {"VARIANT-04": o} for o in ("forbidden", "allowed")},
        "DISPUTE-69": {
            "both": {"DISPUTE-27": "eight"},
            "round_7_only": {"DISPUTE-27": "seven"},
            "round_8_only": {"DISPUTE-27": "seven"},
        },
        "DISPUTE-73": {
            "two_to_eight": {"DISPUTE-32": "more_players"},
            "two_to_four": {"DISPUTE-32": "two_to_four"},
        },
    }
)

#: Pagat points that restate an Argentine point: the Pagat option sets the Argentine one's
#: (as :data:`_RESTATED` for chilean). DISPUTE-47, -76 are the shared silences of seed 002.
_PAGAT_RESTATED: Mapping[str, Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        "DISPUTE-58": {
            "discard": {"DISPUTE-07": "refused", "DISPUTE-13": "no"},
            "melding": {"DISPUTE-07": "closes", "DISPUTE-13": "yes"},
        },
        "DISPUTE-47": {o: {"DISPUTE-15": o} for o in ("share", "tiebreak")},
        "DISPUTE-76": {o: {"VARIANT-04": o} for o in ("forbidden", "allowed")},
    }
)

#: Points a profile plays only one way, with what decides them instead; naming an option
#: for them is an error (the profile *is* that choice, or a point of its own settles it).
_FIXED: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "chilean": MappingProxyType(
            {
                **{old: f"set by {new}" for new, by in _RESTATED.items() for old in _first(by)},
                "DISPUTE-26": "set by DISPUTE-55",
                "VARIANT-01": "set by DISPUTE-55",
                "DISPUTE-01": "set by DISPUTE-50",
                "DISPUTE-24": "set by DISPUTE-50",
                "VARIANT-03": "set by DISPUTE-50",
                "DISPUTE-02": "set by DISPUTE-44",
                "DISPUTE-11": "set by DISPUTE-44",
                "DISPUTE-28": "set by DISPUTE-44",
                "DISPUTE-14": "fixed by the hand sizes (CHILE-END-3)",
                "DISPUTE-27": "fixed: 8 rounds (CHILE-GAME-1)",
                "DISPUTE-32": "fixed: 2 to 6 players (CHILE-PLAYERS-1)",
            }
        ),
        "perla": MappingProxyType(
            {
                **{
                    old: f"set by {new}"
                    for new, by in _PERLA_RESTATED.items()
                    for old in _first(by)
                },
                "DISPUTE-25": "fixed: 2s are natural (CARDS-2)",
                "DISPUTE-26": "set by DISPUTE-62",
                "VARIANT-01": "set by DISPUTE-62",
                "DISPUTE-01": "set by DISPUTE-50",
                "DISPUTE-24": "set by DISPUTE-50",
                "VARIANT-03": "set by DISPUTE-50",
                "VARIANT-06": "set by DISPUTE-50",
                "DISPUTE-02": "set by DISPUTE-72",
                "DISPUTE-11": "set by DISPUTE-72",
                "DISPUTE-21": "set by DISPUTE-72",
                "DISPUTE-28": "set by DISPUTE-72",
                "DISPUTE-03": "set by DISPUTE-63",
                "DISPUTE-04": "set by DISPUTE-63",
                "DISPUTE-10": "set by DISPUTE-63",
                "DISPUTE-33": "set by DISPUTE-68",
                "VARIANT-05": "set by DISPUTE-68",
                "DISPUTE-14": "fixed by the hand sizes (PERLA-END-3)",
            }
        ),
        "pagat": MappingProxyType(
            {
                **{
                    old: f"set by {new}"
                    for new, by in _PAGAT_RESTATED.items()
                    for old in _first(by)
                },
                "DISPUTE-32": "fixed: 2 to 5 players (PAGAT-PLAYERS-1)",
            }
        ),
    }
)


def _chilean_point(point: str) -> bool:
    """True for DISPUTE-39..56 and DISPUTE-74..77, the points seed 001 raises, and
    DISPUTE-78, the Chilean house pack."""
    number = int(point.split("-")[1]) if point.startswith("DISPUTE-") else 0
    return 39 <= number <= 56 or 74 <= number <= 78


#: Every ``(point, option)`` pair of :data:`OPTIONS`, and every point with no option, so that
#: one set lookup checks a pair named at a rules branch.
_KNOWN: frozenset[tuple[str, str | None]] = frozenset(
    {(point, option) for point, options in OPTIONS.items() for option in options}
    | {(point, None) for point in OPTIONS}
)


def check_ruling(point: str, option: str | None = None) -> None:
    """Check that ``point`` (and ``option``, when given) are in the catalogue (:data:`OPTIONS`).

    :raises UnknownRulingError: naming the point, the option and the options it has.
    """
    if (point, option) not in _KNOWN:
        raise UnknownRulingError(point, option, OPTIONS.get(point, ()))


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
    if profile.name == "chilean":
        derived = _derive_chilean(profile)
    elif profile.name == "perla":
        derived = _derive_perla(profile)
    elif profile.name == "pagat":
        derived = _derive_pagat(profile)
    else:
        derived = _derive_argentine(profile)
    # DISPUTE-09 jokers: a joker upcard is buried, any other card stays.
    return replace(derived, bury_wild_naturals=not derived.plays("DISPUTE-09", "jokers"))


def _derive_argentine(profile: Profile) -> Profile:
    """The Argentine parameters that follow from its rulings (seed 000)."""
    p = profile.plays
    values = list(ARGENTINE.rank_values)  # DISPUTE-26 table_000, SCORE-2
    joker_value = ARGENTINE.joker_value
    if p("DISPUTE-26", "table_001"):
        values[0], values[1] = 15, 25
    elif p("DISPUTE-26", "table_003"):
        values[0], joker_value = 15, 25
    wild_ranks: frozenset[Rank] = frozenset()
    if p("DISPUTE-25", "wild"):  # CARDS-2: twos wild, 25 points each
        wild_ranks, values[1] = frozenset({Rank.TWO}), 25
    if p("VARIANT-01", "thirty"):  # JOKER-7, SCORE-2
        joker_value = 30
    deals, contracts = ARGENTINE.deals, ARGENTINE.contracts
    hand_sizes = list(ARGENTINE.hand_sizes)
    going_out_deals: frozenset[int] = frozenset()
    if p("DISPUTE-27", "eight"):  # GAME-1: an eighth round of 13 cards, three runs
        deals, contracts = 8, (*contracts, (0, 3))
        hand_sizes.append(13)
        # "A last round that needs no discard": deal 8 is laid down only as one play that
        # empties the hand, melds of any size (as CHILE-ROUND8-2 with DISPUTE-39 no_discard).
        going_out_deals = frozenset({8})
    if p("VARIANT-05", "twelve"):  # DEAL-3: 12 cards in every deal
        hand_sizes = [12] * len(hand_sizes)
    if p("DISPUTE-33", "thirteen"):  # DEAL-3: 13 cards in deal 7
        hand_sizes[6] = 13
    return replace(
        profile,
        rank_values=tuple(values),
        joker_value=joker_value,
        wild_ranks=wild_ranks,
        deals=deals,
        contracts=tuple(contracts),
        hand_sizes=tuple(hand_sizes),
        going_out_deals=going_out_deals,
        # DISPUTE-31: opening melds of exactly, or at least, 3 and 4 cards (CONTRACT-8), or
        # trios of exactly 3 and runs of at least 4 (runs_at_least).
        initial_sizes_exact=not p("DISPUTE-31", "at_least"),
        initial_runs_exact=p("DISPUTE-31", "exact"),
        # VARIANT-03: the one-joker limit of JOKER-2 kept on table melds (JOKER-3).
        later_joker_limit=1 if p("VARIANT-03", "kept") else None,
        **_shared_points(p),
    )


def _shared_points(p: Callable[[str, str], bool]) -> dict[str, Any]:
    """Parameters of the Argentine points every profile plays alike, by their options."""
    return {
        # VARIANT-02: the ace only below the 2 (CARDS-3, MELD-RUN-2).
        "ace_high": not p("VARIANT-02", "low_only"),
        # DISPUTE-10: a trio of at most the 8 natural copies of a rank (MELD-TRIO-4).
        "max_trio_size": 8 if p("DISPUTE-10", "cap") else None,
        # DISPUTE-35 penalty: 10 points per refused action, scored at the close (TURN-1).
        "illegal_action_penalty": 10 if p("DISPUTE-35", "penalty") else 0,
    }


def _derive_chilean(profile: Profile) -> Profile:
    """The Chilean parameters that follow from its rulings (seed 001, CHILE-* rules)."""
    p = profile.plays
    rulings = dict(profile.rulings)
    # e.g. DISPUTE-48 natural sets DISPUTE-25 natural
    for point, by_option in _RESTATED.items():
        rulings.update(by_option[profile.ruling(point)])
    wild = p("DISPUTE-48", "wild")  # CHILE-WILD-1
    # CHILE-SCORE-2: A 15, 2 25 (a natural 2: 2), 3..10 face value, J Q K 10, joker 50.
    values = [15, 25 if wild else 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    joker_value = 30 if p("DISPUTE-55", "joker_30") else 20 if p("DISPUTE-55", "joker_20") else 50
    if p("DISPUTE-55", "two_20") and wild:
        values[1] = 20  # DISPUTE-55 two_20: a wild 2 left in hand costs 20
    wild_ranks = frozenset({Rank.TWO}) if wild else frozenset()
    return replace(
        profile,
        rulings=MappingProxyType(rulings),
        rank_values=tuple(values),
        joker_value=joker_value,
        wild_ranks=wild_ranks,
        # CHILE-DEAL-7: only a wild upcard is buried (DISPUTE-51 stays: none is).
        bury_ranks=wild_ranks,
        natural_in_place=p("DISPUTE-49", "in_place"),  # CHILE-WILD-3
        # CHILE-DEAL-3, DISPUTE-42: 11 cards and 13 in round 8, or 12 in every round.
        hand_sizes=(12,) * 8 if p("DISPUTE-42", "twelve") else (11,) * 7 + (13,),
        # CHILE-CARDS-2, DISPUTE-43: 4 jokers with the third pack (160 cards), or 3 (159).
        big_jokers=3 if p("DISPUTE-43", "one_fifty_nine") else 4,
        **_chilean_pack(p),
        initial_sizes_exact=not p("DISPUTE-41", "at_least"),  # CONTRACT-8
        initial_runs_exact=p("DISPUTE-41", "exact"),  # runs_at_least: runs of 4 or more
        short_runs=p("DISPUTE-52", "three"),  # MELD-RUN-1: runs of 3 cards too
        # DISPUTE-40 three_card_runs: round 8's four runs may be of 3 cards (L55 "12 cards").
        going_out_run_size=3 if p("DISPUTE-40", "three_card_runs") else None,
        # CHILE-WILD-2, DISPUTE-50: no wild limit per meld, or 000's one per laid-down meld.
        initial_joker_limit=1 if p("DISPUTE-50", "one_per_meld") else None,
        max_run_length=13 if p("DISPUTE-77", "forbidden") else 14,  # MELD-RUN-4
        out_score=-10 if p("DISPUTE-46", "minus_ten") else 0,  # SCORE-1
        **_shared_points(p),
    )


def _chilean_pack(p: Callable[[str, str], bool]) -> dict[str, Any]:
    """The Chilean pack by DISPUTE-78: CHILE-CARDS-1 and -2 (``by_players``: 106 cards for 2
    to 4 players, the third pack from 5 on), or the house game's 108 cards (two packs and 4
    jokers, as CARDS-1) for every player count, DISPUTE-43 then having no effect."""
    if p("DISPUTE-78", "always_108"):
        return {"jokers": 4, "big_pack_players": None}
    return {"jokers": 2, "big_pack_players": 5}


#: The option seed 001 is read to take on every point (docs/rules.md, "Chilean profile").
_CHILEAN_RULINGS: Mapping[str, str] = MappingProxyType(
    {
        **{point: option for point, option in ARGENTINE.rulings.items()},
        # Where 001 differs from 000 on an Argentine point (docs/rules.md gives each reason).
        "DISPUTE-02": "b",
        "DISPUTE-07": "closes",
        "DISPUTE-09": "bury",
        "DISPUTE-11": "c",
        "DISPUTE-13": "yes",
        "DISPUTE-25": "wild",
        "DISPUTE-26": "table_001",
        "DISPUTE-27": "eight",
        "DISPUTE-28": "taker_keeps",
        "DISPUTE-32": "more_players",
        "DISPUTE-33": "thirteen",
        # The Chilean points: the first option of each is the profile's.
        **{point: options[0] for point, options in OPTIONS.items() if _chilean_point(point)},
    }
)

CHILEAN = _derive(
    Profile(
        name="chilean",
        max_players=6,  # CHILE-PLAYERS-1
        jokers=2,  # CHILE-CARDS-1: 106 cards
        big_pack_players=5,  # CHILE-CARDS-2
        deals=8,  # CHILE-GAME-1
        contracts=(*ARGENTINE.contracts, (4, 0)),  # CONTRACT-1..7, CHILE-ROUND8-1
        alternative_contracts=MappingProxyType({8: ((0, 4),)}),  # CHILE-ROUND8-1
        going_out_deals=frozenset({8}),  # CHILE-ROUND8-2
        wild_swap="to_hand",  # CHILE-SWAP-1..3
        rulings=_CHILEAN_RULINGS,
    )
)
"""Seed 001: Chilean Carioca, 8 rounds, 106 cards (160 for 5-6 players), jokers and 2s wild."""


def _derive_pagat(profile: Profile) -> Profile:
    """The Pagat parameters that follow from its rulings (seed 002, PAGAT-* rules).

    Seed 002 is seed 000's game: every Argentine point keeps its Argentine derivation, and the
    Pagat points only add to it.
    """
    p = profile.plays
    rulings = dict(profile.rulings)
    # e.g. DISPUTE-58 melding sets DISPUTE-13 yes
    for point, by_option in _PAGAT_RESTATED.items():
        rulings.update(by_option[profile.ruling(point)])
    derived = _derive_argentine(replace(profile, rulings=MappingProxyType(rulings)))
    return replace(
        derived,
        # PAGAT-RUN-4, DISPUTE-57: "not both at the same time": no run holds a low and a
        # high ace, so 13 cards at most; ``allowed``: 000's 14-card run (MELD-RUN-4).
        max_run_length=13 if p("DISPUTE-57", "forbidden") else 14,
    )


def _pagat_point(point: str) -> bool:
    """True for the points seed 002 raises or leaves silent (DISPUTE-57..60, the shared
    silences DISPUTE-47, -53, -54 and DISPUTE-74..76)."""
    number = int(point.split("-")[1]) if point.startswith("DISPUTE-") else 0
    return 57 <= number <= 60 or number in (47, 53, 54, 74, 75, 76)


PAGAT = _derive(
    Profile(
        name="pagat",
        max_players=5,  # PAGAT-PLAYERS-1; CARDS-1: one 108-card pack for every count (002 L7)
        # Every Argentine point at its Argentine option (002 restates 000), then the Pagat
        # points at their first option (docs/rules.md, "Pagat profile", gives each reason).
        rulings=MappingProxyType(
            {
                **ARGENTINE.rulings,
                "DISPUTE-32": "more_players",  # PAGAT-PLAYERS-1: a fifth player
                **{point: options[0] for point, options in OPTIONS.items() if _pagat_point(point)},
            }
        ),
    )
)
"""Seed 002: Pagat-style Argentine Carioca, 7 hands, 108 cards, 2 to 5 players, no run holding
two aces."""


def _perla_point(point: str) -> bool:
    """True for the points seed 003 raises: DISPUTE-61..73, and the shared DISPUTE-47, -49,
    -50 and -74..77 (docs/rules.md, Perla points)."""
    number = int(point.split("-")[1]) if point.startswith("DISPUTE-") else 0
    return 61 <= number <= 77 or number in (47, 49, 50)


#: Perla's contracts: CONTRACT-1..6, then four trios (PERLA-CONTRACT-7) and three runs
#: (PERLA-CONTRACT-8).
_PERLA_CONTRACTS: tuple[tuple[int, int], ...] = (*ARGENTINE.contracts[:6], (4, 0), (0, 3))


def _derive_perla(profile: Profile) -> Profile:
    """The Perla parameters that follow from its rulings (seed 003, PERLA-* rules)."""
    p = profile.plays
    rulings = dict(profile.rulings)
    # e.g. DISPUTE-64 after_passes sets DISPUTE-29 steal
    for point, by_option in _PERLA_RESTATED.items():
        rulings.update(by_option[profile.ruling(point)])
    # PERLA-GAME-1, DISPUTE-69: both rounds 7 and 8, or only one of them as the last round.
    contracts = _PERLA_CONTRACTS
    if p("DISPUTE-69", "round_7_only"):
        contracts = _PERLA_CONTRACTS[:7]
    elif p("DISPUTE-69", "round_8_only"):
        contracts = (*_PERLA_CONTRACTS[:6], _PERLA_CONTRACTS[7])
    # PERLA-DEAL-3, DISPUTE-68: 11 cards, 13 in the last round; or 11 in every round.
    hand_sizes = [11] * len(contracts)
    if p("DISPUTE-68", "thirteen_last"):
        hand_sizes[-1] = 13
    different = p("DISPUTE-63", "different")  # PERLA-TRIO-1
    shared = _shared_points(p)
    if different:
        shared["max_trio_size"] = 4  # PERLA-TRIO-4: one card of each suit at most
    return replace(
        profile,
        rulings=MappingProxyType(rulings),
        deals=len(contracts),
        contracts=contracts,
        hand_sizes=tuple(hand_sizes),
        jokers=2 if p("DISPUTE-61", "two_jokers") else 4,  # CARDS-1
        max_players=4 if p("DISPUTE-73", "two_to_four") else 8,  # PERLA-PLAYERS-1
        # PERLA-SCORE-2, DISPUTE-62: a red ace left in hand costs 25 like a joker, or 15.
        wild_card_value=25 if p("DISPUTE-62", "joker_value") else None,
        natural_in_place=p("DISPUTE-49", "in_place"),  # PERLA-WILD-3
        # PERLA-WILD-2, DISPUTE-50: no wild limit per meld, or 000's one per laid-down meld.
        initial_joker_limit=1 if p("DISPUTE-50", "one_per_meld") else None,
        # PERLA-TRIO-1, PERLA-TRIO-4: 3 or 4 cards of different suits; or 000's free trios.
        trio_suits_differ=different,
        initial_sizes_exact=p("DISPUTE-66", "exact"),  # PERLA-OPEN-1
        lowering_out_score=None if p("DISPUTE-65", "zero") else -30,  # PERLA-SCORE-1
        lowering_out_by_discard=p("DISPUTE-65", "same_turn"),
        cut_score=-10 if p("DISPUTE-67", "minus_ten") else 0,  # PERLA-CUT-2
        wild_swap="none" if p("DISPUTE-72", "none") else "run_end",  # PERLA-WILD-4
        max_run_length=13 if p("DISPUTE-77", "forbidden") else 14,  # MELD-RUN-4
        **shared,
    )


#: The option seed 003 is read to take on every point (docs/rules.md, "Perla profile").
_PERLA_RULINGS: Mapping[str, str] = MappingProxyType(
    {
        **{point: option for point, option in ARGENTINE.rulings.items()},
        # Where 003 differs from 000 on an Argentine point (docs/rules.md gives each reason).
        "DISPUTE-20": "same_turn",  # PERLA-LAYOFF-1: lay-offs from the lowering turn on
        "DISPUTE-26": "table_003",  # PERLA-SCORE-2 (DISPUTE-62 sets the red aces)
        "DISPUTE-33": "thirteen",  # PERLA-DEAL-3 (DISPUTE-68)
        # The Perla points: the first option of each is the profile's,
        **{point: options[0] for point, options in OPTIONS.items() if _perla_point(point)},
        # except the empty stock: with legs of at most four cards and no new meld after
        # lowering, a recycled stock can keep a round from ever ending (docs/rules.md).
        "DISPUTE-75": "round_ends",
    }
)

PERLA = _derive(
    Profile(
        name="perla",
        max_players=8,  # PERLA-PLAYERS-1
        deals=8,  # PERLA-GAME-1
        contracts=_PERLA_CONTRACTS,
        # PERLA-WILD-1: the red aces are wild beside the jokers.
        wild_cards=frozenset({Card(Rank.ACE, Suit.HEARTS), Card(Rank.ACE, Suit.DIAMONDS)}),
        # PERLA-SCORE-2: A 15, 2..10 face value, J Q K 10, joker 25.
        rank_values=(15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
        joker_value=25,
        bury_ranks=frozenset(),  # DISPUTE-09 bury: only wild cards are buried
        rulings=_PERLA_RULINGS,
    )
)
"""Seed 003: Perla's Cariocas, 8 rounds, 108 cards, jokers and red aces wild, steals, -30 for
going out on the lowering turn, -10 for a perfect cut."""

PROFILES: Mapping[str, Profile] = MappingProxyType(
    {
        ARGENTINE.name: ARGENTINE,
        CHILEAN.name: CHILEAN,
        PAGAT.name: PAGAT,
        PERLA.name: PERLA,
    }
)


def find_profile(name: str) -> Profile:
    """The profile called ``name``.

    :raises ValueError: ``unsupported profile: <name>`` for an unknown name.
    """
    try:
        return PROFILES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unsupported profile: {name!r}") from None


def own_point(profile: Profile, point: str) -> str | None:
    """The point under which ``profile`` plays Argentine ``point``: the point itself, the
    profile's own point that sets it (``DISPUTE-48`` for ``DISPUTE-25`` in ``chilean``), or
    None where the profile plays it only one way (``DISPUTE-27`` in ``chilean``)."""
    fixed = _FIXED.get(profile.name, {}).get(point)
    if fixed is None:
        return point
    return fixed.removeprefix("set by ") if fixed.startswith("set by ") else None
