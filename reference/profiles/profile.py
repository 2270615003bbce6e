"""The :class:`Profile` value, and how each profile's parameters follow from its rulings.

Each profile's module (argentine, chilean, pagat, perla) registers its derivation with
:func:`register`: the rule parameters that follow from its rulings, and the points it plays
only one way. :meth:`Profile.with_rulings` derives through it by the profile's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from reference.cards import Card, Rank
from reference.profiles.points import OPTIONS, check_ruling, ruling_problems


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
    max_run_length: int = 14
    max_trio_size: int | None = None
    """Most cards in a table trio (``None``: only the cards that exist limit it)."""
    trio_suits_differ: bool = False
    """A trio's natural cards are all of different suits, laid down and later; each wild card
    stands for a missing suit (PERLA-TRIO-1, DISPUTE-63 different)."""
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

        The pair is checked against the catalogue (:data:`~reference.profiles.points.OPTIONS`)
        first, so a misspelt point or option fails loudly instead of reading as "another
        option".

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

        ``point`` is a ``DISPUTE-nn`` or ``VARIANT-nn`` id of docs/rules.md. A rules branch
        asks :meth:`plays` instead, which checks the option it compares with.

        :raises KeyError: for a point the profile does not rule on.
        """
        return self.rulings[point]

    def with_rulings(self, changes: Mapping[str, str]) -> Profile:
        """This profile playing other options on some points (``{"DISPUTE-31": "at_least"}``).

        The rule parameters that follow from a ruling (card values, hand sizes, meld sizes,
        joker limits, aces) are derived here; every other option is read with
        :meth:`plays` by the rules code at the branch that cites it.

        :raises ValueError: naming an unknown point, or an option the point does not have.
        """
        problems = list(ruling_problems(changes))
        for point in changes:
            if point in OPTIONS and point not in self.rulings:
                problems.append(f"{point} is not a point of the {self.name} profile")
            elif point in fixed_points(self.name):
                problems.append(
                    f"{point} is {fixed_points(self.name)[point]} in the {self.name} profile"
                )
        if problems:
            raise ValueError("; ".join(problems))
        rulings = {**self.rulings, **changes}
        return derive(replace(self, rulings=MappingProxyType(rulings)))

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


@dataclass(frozen=True)
class Derivation:
    """How one profile's rule parameters follow from its rulings."""

    derive: Callable[[Profile], Profile]
    """The profile with the parameters its rulings give (card values, hand sizes...)."""
    fixed: Mapping[str, str]
    """Points the profile plays only one way, with what decides them instead; naming an
    option for them is an error (the profile *is* that choice, or a point of its own settles
    it)."""


#: Each profile's derivation by name, filled in by the profile modules as they load.
_DERIVATIONS: dict[str, Derivation] = {}
_NONE_FIXED: Mapping[str, str] = MappingProxyType({})


def register(
    name: str, derive: Callable[[Profile], Profile], fixed: Mapping[str, str] = _NONE_FIXED
) -> None:
    """Derive the profile called ``name`` with ``derive``; ``fixed`` are its points played
    one way (:attr:`Derivation.fixed`).

    :raises ValueError: for a name registered twice.
    :raises UnknownRulingError: for a fixed point the catalogue lacks.
    """
    if name in _DERIVATIONS:
        raise ValueError(f"profile {name!r} registered twice")
    for point in fixed:
        check_ruling(point)
    _DERIVATIONS[name] = Derivation(derive, MappingProxyType(dict(fixed)))


def fixed_points(name: str) -> Mapping[str, str]:
    """The points the profile called ``name`` plays only one way (:attr:`Derivation.fixed`)."""
    found = _DERIVATIONS.get(name)
    return _NONE_FIXED if found is None else found.fixed


def derive(profile: Profile) -> Profile:
    """Set the rule parameters that follow from the profile's rulings (see each rule ID).

    A profile of another name (a test's own) is derived as the Argentine game.
    """
    found = _DERIVATIONS.get(profile.name) or _DERIVATIONS["argentine"]
    derived = found.derive(profile)
    # DISPUTE-09 jokers: a joker upcard is buried, any other card stays.
    return replace(derived, bury_wild_naturals=not derived.plays("DISPUTE-09", "jokers"))
