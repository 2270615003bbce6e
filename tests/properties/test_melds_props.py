"""Meld laws (reference.melds): what makes a trio or a run, and how a joker swap moves."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import (
    HIGH_ACE,
    LOW_ACE,
    SUITS,
    NearMiss,
    card_at,
    cards,
    near_valid_melds,
    valid_runs,
    valid_trios,
)

from reference import JOKER, Card, Rank, Run, Suit, Trio, check_meld
from reference.melds import swap_joker


def run_positions(cards_: tuple[Card, ...]) -> list[int] | None:
    """Positions 1..14 of a run's cards if they form one unbroken in-range sequence.

    Written from the rules text alone (MELD-RUN-1..6), independently of reference.melds:
    try every start position and check each natural card sits where it should.
    """
    n = len(cards_)
    for low in range(LOW_ACE, HIGH_ACE - n + 2):
        ok = True
        for i, c in enumerate(cards_):
            p = low + i
            if c.is_joker:
                continue
            want = Rank.ACE if p in (LOW_ACE, HIGH_ACE) else Rank(p)
            if c.rank != want:
                ok = False
                break
        if ok:
            return list(range(low, low + n))
    return None


@given(valid_trios(initial=True))
def test_initial_trios_are_accepted(trio: Trio) -> None:
    """Three cards of one rank, same-suit copies allowed, at most one joker open a trio.

    Rules: MELD-TRIO-1, MELD-TRIO-2, JOKER-2, DISPUTE-04.
    """
    assert check_meld(trio, initial=True) is None
    assert check_meld(trio, initial=False) is None


@given(valid_trios(initial=False))
def test_table_trios_of_any_size_are_valid(trio: Trio) -> None:
    """After opening a trio may hold more cards of its rank and any number of jokers.

    Rules: MELD-TRIO-4, JOKER-3, DISPUTE-03, DISPUTE-05, DISPUTE-10.
    """
    assert check_meld(trio, initial=False) is None


@given(valid_runs(initial=True))
def test_initial_runs_are_accepted(run: Run) -> None:
    """Four consecutive cards of one suit, aces low or high, at most one joker.

    Rules: MELD-RUN-1, MELD-RUN-2, JOKER-2.
    """
    assert check_meld(run, initial=True) is None


@given(valid_runs(initial=False))
def test_table_runs_up_to_a_to_a_are_valid(run: Run) -> None:
    """A table run may stretch to 14 cards, low ace to high ace, with jokers anywhere.

    Rules: MELD-RUN-4, MELD-RUN-5, MELD-RUN-6, JOKER-3, DISPUTE-12.
    """
    assert check_meld(run, initial=False) is None


@given(near_valid_melds())
def test_near_valid_initial_melds_are_rejected_with_their_flaw(miss: NearMiss) -> None:
    """One card off an opening meld is no opening meld, and the reason names the flaw.

    Rules: MELD-TRIO-1, MELD-TRIO-3, MELD-RUN-1, MELD-RUN-3, MELD-RUN-6, JOKER-2.
    """
    reason = check_meld(miss.meld, initial=True)
    assert reason is not None, miss.flaw
    assert reason.value in miss.reasons, (miss.flaw, reason)


def _mutated_runs() -> st.SearchStrategy[tuple[Card, ...]]:
    """Valid table runs with a few cards overwritten: a mix of valid and invalid runs."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[Card, ...]:
        base = list(draw(valid_runs(initial=False)).cards)
        for _ in range(draw(st.integers(0, 2))):
            op = draw(st.sampled_from(["set", "append", "prepend", "drop"]))
            card = draw(cards())
            if op == "set":
                base[draw(st.integers(0, len(base) - 1))] = card
            elif op == "append":
                base.append(card)
            elif op == "prepend":
                base.insert(0, card)
            elif len(base) > 1:
                base.pop(draw(st.integers(0, len(base) - 1)))
        return tuple(base)

    return st.one_of(build(), st.lists(cards(), min_size=4, max_size=15).map(tuple))


@given(_mutated_runs())
def test_accepted_runs_are_one_suit_consecutive_and_within_a_to_a(cards_: tuple[Card, ...]) -> None:
    """Whatever the engine accepts as a table run is one suit, consecutive in listed order,
    never turns K-A-2, and spans at most A..A (14 cards); and every such run is accepted.

    Rules: MELD-RUN-1, MELD-RUN-3, MELD-RUN-4, MELD-RUN-5, MELD-RUN-6.
    """
    naturals = [c for c in cards_ if not c.is_joker]
    jokers_only = not naturals
    one_suit = len({c.suit for c in naturals}) == 1
    positions = run_positions(cards_)
    expected_valid = 4 <= len(cards_) <= 14 and not jokers_only and one_suit and positions
    accepted = check_meld(Run(cards_), initial=False) is None
    assert accepted == bool(expected_valid), positions


@st.composite
def _runs_with_a_joker(draw: st.DrawFn) -> tuple[Run, int]:
    run = draw(valid_runs(initial=False))
    jokers = [i for i, c in enumerate(run.cards) if c.is_joker]
    assume(jokers)
    return run, draw(st.sampled_from(jokers))


@given(_runs_with_a_joker(), st.sampled_from(["low", "high"]))
def test_joker_swap_keeps_the_run_continuous_and_the_joker_in_it(
    picked: tuple[Run, int], to: str
) -> None:
    """Replacing a run joker with the exact card it stands for keeps every card of the run
    in its place, keeps the joker in that run at the chosen end, and the run stays valid.

    The run grows by the natural card: the brief's "keeps the run's length" is read as
    "every old position stays filled by the same card or its natural twin".
    Rules: JOKER-4, JOKER-5, JOKER-6, DISPUTE-11.
    """
    run, i = picked
    suit = next(c.suit for c in run.cards if not c.is_joker)
    assert suit is not None
    positions = run_positions(run.cards)
    assert positions is not None
    natural = card_at(positions[i], suit)
    free_end = (to == "low" and positions[0] > LOW_ACE) or (
        to == "high" and positions[-1] < HIGH_ACE
    )
    assume(free_end)
    after = swap_joker(run, natural, to)
    assert check_meld(after, initial=False) is None
    assert len(after.cards) == len(run.cards) + 1
    assert sum(c.is_joker for c in after.cards) == sum(c.is_joker for c in run.cards)
    new_positions = run_positions(after.cards)
    assert new_positions is not None
    shift = 1 if to == "low" else 0
    # The old span keeps its cards, the replaced joker now natural; the joker took an end.
    for k, card in enumerate(run.cards):
        assert after.cards[k + shift] == (natural if k == i else card)
    assert after.cards[0 if to == "low" else -1] == JOKER
    assert new_positions[0] == positions[0] - shift


@given(st.sampled_from(SUITS), st.integers(0, 1))
def test_full_a_to_a_run_is_valid_and_cannot_grow(suit: Suit, joker_end: int) -> None:
    """The 14-card run from low ace to high ace is valid and nothing lies beyond it.

    Rules: MELD-RUN-4, MELD-RUN-5, DISPUTE-12.
    """
    cards_ = [card_at(p, suit) for p in range(1, 15)]
    if joker_end:
        cards_[-1] = JOKER  # a joker may stand for the high ace after opening (DISPUTE-12)
    full = Run(tuple(cards_))
    assert check_meld(full, initial=False) is None
    assert check_meld(Run((*cards_, card_at(2, suit))), initial=False) is not None
    assert check_meld(Run((JOKER, *cards_)), initial=False) is not None
