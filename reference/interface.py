"""Interface modes: the reference as an engine that differs only where the protocol lets it.

docs/protocol.md §2 lets an engine declare, in its handshake, choices the rules do not make:
``run_order: engine`` (it arranges a run's cards itself and reads them as a set),
``run_ends: engine`` (it picks the end of a run a lay-off or a moved joker goes to),
``unmodelled`` state fields (it sends a placeholder of the field's type), and the player
counts it plays (``players``, ``profile_players``). ``python -m reference.adapter --interface
run_order=engine --interface run_ends=engine --unmodelled dealer,winners --players 3,4,5``
plays such an engine, so the harness's judges can be shown to honour each declaration.

The rules engine itself is untouched: this module rewrites what comes in (a run arranged,
an end picked) and what goes out (unmodelled fields masked) around it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from reference import trace
from reference.actions import Action, End, LayOff, Open, SwapJoker
from reference.cards import Card, Rank
from reference.game import GameState, is_legal
from reference.melds import HIGH_ACE, LOW_ACE, Meld, Run, check_meld
from reference.profiles import Profile
from reference.reasons import Reason

#: Each interface field and its values, the protocol's default first (docs/protocol.md §2).
INTERFACE_VALUES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"run_order": ("listed", "engine"), "run_ends": ("requested", "engine")}
)

#: Behaviours of a test double that the handshake does not declare, each with its values
#: (the reference's own first). ``first_player=deal_index``: an engine that keeps no dealer
#: and starts deal *k* with player (k - 1) mod n, dealing the first card to that player as
#: docs/protocol.md §7 deals to the dealer's right-hand neighbour (declare ``--unmodelled
#: dealer`` with it: an engine that keeps no dealer says so).
DOUBLE_VALUES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"first_player": ("dealer", "deal_index")}
)

#: The state fields an engine may leave unmodelled, with the placeholder it sends for each.
UNMODELLED_FIELDS = ("dealer", "turn_opened", "totals", "deal_scores", "closer", "winners")


@dataclass(frozen=True)
class Interface:
    """How the adapter presents the reference: the protocol's defaults unless declared."""

    run_order: str = "listed"
    run_ends: str = "requested"
    unmodelled: frozenset[str] = frozenset()
    players: tuple[int, ...] | None = None
    """The player counts played in every profile (within its range); None: all of them."""
    profile_players: Mapping[str, tuple[int, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    """Per profile, the counts played there, replacing ``players``."""
    declare_players: bool = True
    """False: the handshake names no player counts (the engine still plays every one)."""
    first_player: str = "dealer"
    """``deal_index``: deal *k* starts with player (k - 1) mod n whoever the request or the
    state names as dealer (:data:`DOUBLE_VALUES`); never declared in the handshake."""
    unsupported: frozenset[str] = frozenset()
    """Ops and action types answered ``unsupported`` (a test double of an engine lacking
    them, as ``smoke`` would list it); never declared in the handshake."""
    max_in_flight: int | None = 16
    """How many requests it takes written before it answered the first: it reads one line
    at a time, so any number may wait in the pipe. None: declare nothing (the harness then
    writes one at a time, as to an engine that reads a chunk of stdin as one request)."""

    def declared(self) -> dict[str, Any]:
        """The handshake fields of the choices made here (none for a protocol default)."""
        found: dict[str, Any] = {}
        if self.run_order != "listed":
            found["run_order"] = self.run_order
        if self.run_ends != "requested":
            found["run_ends"] = self.run_ends
        if self.unmodelled:
            found["unmodelled"] = [f for f in UNMODELLED_FIELDS if f in self.unmodelled]
        if self.max_in_flight is not None:
            found["max_in_flight"] = self.max_in_flight
        return found

    def own_dealer(self, players: int, deal_number: int) -> int | None:
        """The dealer this engine plays deal ``deal_number`` with whatever it was told (the
        seat before its first player), or None when it plays the dealer it is given."""
        if self.first_player != "deal_index" or players < 1:
            return None
        return (deal_number - 2) % players

    def counts(self, profile: Profile) -> tuple[int, ...]:
        """The player counts played in ``profile``."""
        every = range(profile.min_players, profile.max_players + 1)
        chosen = self.profile_players.get(profile.name, self.players)
        return tuple(n for n in every if chosen is None or n in chosen)

    def mask(self, state: dict[str, Any]) -> dict[str, Any]:
        """A state document with every unmodelled field replaced by a placeholder of its type
        (docs/protocol.md §5: any value, never compared)."""
        if not self.unmodelled:
            return state
        placeholders: dict[str, Any] = {
            "dealer": 0,
            "turn_opened": False,
            "totals": [0] * len(state.get("hands", ())),
            "deal_scores": None,
            "closer": None,
            "winners": None,
        }
        return {k: placeholders[k] if k in self.unmodelled else v for k, v in state.items()}

    def arrange(self, meld: Meld, profile: Profile, *, initial: bool) -> Meld:
        """``meld`` as this engine reads it: under ``run_order: engine`` a run's cards are a
        set, arranged into a run where some arrangement is one (:func:`arrange_run`)."""
        if self.run_order != "engine" or not isinstance(meld, Run):
            return meld
        return arrange_run(meld, profile, initial=initial)

    def arrange_action(self, state: GameState, action: Action) -> Action:
        """``action`` as this engine reads it: an opening's runs arranged (a run with
        declared jokers keeps its listing, DISPUTE-30), a run's end picked by the engine."""
        if isinstance(action, Open) and self.run_order == "engine":
            judged = state.profile.for_deal(state.deal_number)
            declared = (*action.declared, *(None,) * (len(action.melds) - len(action.declared)))
            melds = tuple(
                m if d is not None else self.arrange(m, judged, initial=True)
                for m, d in zip(action.melds, declared, strict=True)
            )
            return replace(action, melds=melds)
        if isinstance(action, LayOff | SwapJoker) and self.run_ends == "engine":
            return pick_end(state, action)
        return action


def pick_end(state: GameState, action: LayOff | SwapJoker) -> LayOff | SwapJoker:
    """``action`` with the end of a table run chosen by the engine: the first of low and high
    where the action is legal, whatever end was asked for. When neither is, the request
    stands as asked (low when it named none), so the refusal is the rules' own."""
    if not 0 <= action.meld < len(state.table) or not isinstance(
        state.table[action.meld].meld, Run
    ):
        return action
    if isinstance(action, SwapJoker) and action.to not in ("low", "high"):
        return action  # a joker to the hand or another meld is not an end
    for end in (End.LOW, End.HIGH):
        trial = (
            replace(action, end=end)
            if isinstance(action, LayOff)
            else replace(action, to=end.value)
        )
        if is_legal(state, trial):
            return trial
    if isinstance(action, LayOff) and action.end is None:
        return replace(action, end=End.LOW)
    return action


def arrange_run(run: Run, profile: Profile, *, initial: bool) -> Run:
    """``run``'s cards arranged into a valid run, as an engine that reads them as a set.

    The listing is kept when it already is one. Otherwise the natural cards go to their
    ranks' positions (an ace low or high) and the wild cards fill the gaps, then the ends,
    trying the lowest placement first. When no arrangement is a run, the order whose refusal
    says most about the set: a wrap or a card beyond an ace where some order shows one (the
    natural cards low to high, turned round the K-A corner), else the listing.
    """
    with trace.quiet():  # trying arrangements decides nothing
        if check_meld(run, initial=initial, profile=profile) is None:
            return run
        for candidate in _arrangements(run.cards, profile):
            if check_meld(candidate, initial=initial, profile=profile) is None:
                return candidate
        for order in _corner_orders(run.cards, profile):
            reason = check_meld(order, initial=initial, profile=profile)
            if reason in (Reason.RUN_WRAPS, Reason.BEYOND_ACE):
                return order
    return run


def _corner_orders(cards: Sequence[Card], profile: Profile) -> Iterator[Run]:
    """The natural cards low to high, wild cards after them, in every rotation (so a set
    that is a sequence only round the K-A-2 corner is listed round it)."""
    naturals = sorted(
        (c for c in cards if not profile.is_wild(c)), key=lambda c: (_position(c), c.sort_key())
    )
    wilds = [c for c in cards if profile.is_wild(c)]
    for i in range(len(naturals)):
        yield Run((*naturals[i:], *naturals[:i], *wilds))


def _position(card: Card) -> int:
    assert card.rank is not None
    return card.rank.value


def _arrangements(cards: Sequence[Card], profile: Profile) -> Iterator[Run]:
    """Every arrangement of ``cards`` as a sequence of positions, lowest placement first:
    each natural card at its rank (an ace at 1 or 14), natural wild cards (a Chilean 2, a
    Perla red ace) either at theirs or filling a gap, jokers filling gaps."""
    fixed = [c for c in cards if not c.is_joker and not profile.is_wild(c)]
    flexible = [c for c in cards if not c.is_joker and profile.is_wild(c)]
    jokers = [c for c in cards if c.is_joker]
    n = len(cards)
    seen: set[tuple[Card, ...]] = set()
    for placed_mask in itertools.product((True, False), repeat=len(flexible)):
        placed = fixed + [c for c, p in zip(flexible, placed_mask, strict=True) if p]
        fillers = jokers + [c for c, p in zip(flexible, placed_mask, strict=True) if not p]
        aces = [i for i, c in enumerate(placed) if c.rank is Rank.ACE]
        for high in itertools.product((False, True), repeat=len(aces)):
            at = {i: HIGH_ACE if h else LOW_ACE for i, h in zip(aces, high, strict=True)}
            positions = [at.get(i, _position(c)) for i, c in enumerate(placed)]
            if len(set(positions)) != len(positions):
                continue
            lowest, highest = (min(positions), max(positions)) if positions else (LOW_ACE, LOW_ACE)
            for low in range(max(LOW_ACE, highest - n + 1), lowest + 1):
                if low + n - 1 > HIGH_ACE:
                    break
                by_position = dict(zip(positions, placed, strict=True))
                fill = iter(fillers)
                arranged = tuple(
                    by_position[p] if p in by_position else next(fill) for p in range(low, low + n)
                )
                if arranged not in seen:
                    seen.add(arranged)
                    yield Run(arranged)


def parse_interface(
    pairs: Sequence[str],
    unmodelled: str | None = None,
    players: str | None = None,
    profile_players: Sequence[str] = (),
    max_in_flight: str | None = None,
) -> Interface:
    """The interface of ``--interface FIELD=VALUE`` pairs, ``--unmodelled F1,F2``,
    ``--players 3,4,5`` (or ``none``: declare no counts), ``--profile-players
    NAME=3,4`` and ``--max-in-flight N`` (or ``none``: declare nothing).

    :raises ValueError: naming an unknown field or value, or a malformed count.
    """
    chosen: dict[str, str] = {}
    choices = {**INTERFACE_VALUES, **DOUBLE_VALUES}
    for pair in pairs:
        name, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or name not in choices:
            known = ", ".join(choices)
            raise ValueError(
                f"--interface {pair!r}: expected FIELD=VALUE with FIELD one of {known}"
            )
        if value not in choices[name]:
            known = ", ".join(choices[name])
            raise ValueError(f"--interface {pair!r}: {name} is one of {known}")
        chosen[name] = value
    fields = frozenset(f.strip() for f in (unmodelled or "").split(",") if f.strip())
    unknown = sorted(fields - set(UNMODELLED_FIELDS))
    if unknown:
        known = ", ".join(UNMODELLED_FIELDS)
        raise ValueError(f"--unmodelled: unknown fields {', '.join(unknown)} (known: {known})")
    declare = players is None or players.strip() != "none"
    counts = _counts(players, "--players") if players is not None and declare else None
    per_profile: dict[str, tuple[int, ...]] = {}
    for item in profile_players:
        name, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not name:
            raise ValueError(f"--profile-players {item!r}: expected NAME=COUNTS, e.g. chilean=3,4")
        per_profile[name] = _counts(value, f"--profile-players {name}")
    return Interface(
        max_in_flight=_in_flight(max_in_flight),
        run_order=chosen.get("run_order", "listed"),
        run_ends=chosen.get("run_ends", "requested"),
        first_player=chosen.get("first_player", "dealer"),
        unmodelled=fields,
        players=counts,
        profile_players=MappingProxyType(per_profile),
        declare_players=declare,
    )


def _in_flight(text: str | None) -> int | None:
    """``--max-in-flight``: a count of at least 1, ``none``, or the default when not given."""
    if text is None:
        return Interface.max_in_flight
    if text.strip() == "none":
        return None
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError(f"--max-in-flight: expected a count of 1 or more, or none, not {text!r}")
    return count


def _counts(text: str, where: str) -> tuple[int, ...]:
    try:
        counts = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise ValueError(f"{where}: expected player counts such as 3,4,5, not {text!r}") from None
    if not counts or not all(2 <= n <= 8 for n in counts):
        raise ValueError(f"{where}: player counts run from 2 to 8, not {text!r}")
    return counts
