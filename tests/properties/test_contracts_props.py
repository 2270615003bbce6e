"""Contract and solver laws (reference.contracts, reference.solver): the solver and the
opening check agree, and every accepted opening is exactly the deal's contract."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st
from strategies import (
    candidate_openings,
    non_opening_hands,
    opening_hands,
    opening_key,
    state_with_hand,
)

from reference import (
    ARGENTINE,
    Card,
    IllegalActionError,
    Meld,
    Open,
    Run,
    Trio,
    apply,
    can_open,
    check_contract,
    contract_for,
    legal_actions,
    openings,
)

DEALS = st.integers(1, 7)

# Opening sizes straight from the rules text (CONTRACT-1..7): trios and runs per deal.
CONTRACTS = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}
CARD_COUNTS = {1: 6, 2: 7, 3: 8, 4: 9, 5: 10, 6: 11, 7: 12}


def assert_is_exact_contract(melds: tuple[Meld, ...], deal_number: int, hand: list[Card]) -> None:
    """The shape every accepted opening must have, judged from the rules text alone."""
    trios = sum(isinstance(m, Trio) for m in melds)
    runs = sum(isinstance(m, Run) for m in melds)
    assert (trios, runs) == CONTRACTS[deal_number]  # CONTRACT-8
    assert sum(len(m.cards) for m in melds) == CARD_COUNTS[deal_number]  # CONTRACT-8
    for m in melds:
        assert len(m.cards) == (3 if isinstance(m, Trio) else 4)  # MELD-TRIO-1, MELD-RUN-1
        assert sum(c.is_joker for c in m.cards) <= 1  # JOKER-2, DISPUTE-24
    laid = Counter(c for m in melds for c in m.cards)
    have = Counter(hand)
    assert all(have[c] >= n for c, n in laid.items())  # TURN-10


@given(DEALS)
def test_contract_card_counts_follow_the_rules_text(deal_number: int) -> None:
    """Deal n needs contract n: its trios, runs and card count (6..12).

    Rules: GAME-1, CONTRACT-1..7.
    """
    contract = contract_for(ARGENTINE, deal_number)
    assert (contract.trios, contract.runs) == CONTRACTS[deal_number]
    assert contract.card_count == CARD_COUNTS[deal_number]


@given(st.data(), DEALS)
def test_planted_openings_are_found_and_accepted(data: st.DataObject, deal_number: int) -> None:
    """A hand holding the contract can open: the solver lists at least one opening, and the
    opening planted in the hand is accepted by the opening check.

    Rules: CONTRACT-1..8, JOKER-2.
    """
    hand, planted = data.draw(opening_hands(deal_number))
    assert check_contract(planted, deal_number) is None
    assert can_open(hand, deal_number)
    found = openings(hand, deal_number)
    assert opening_key(planted) in {opening_key(o) for o in found}


@given(st.data(), DEALS)
def test_hands_without_a_meld_cannot_open(data: st.DataObject, deal_number: int) -> None:
    """A hand with no possible trio (for trio contracts) or no four-in-a-row of one suit (for
    run-only contracts) and no joker has no opening, and no sampled candidate is accepted.

    Rules: CONTRACT-8, CONTRACT-9, MELD-TRIO-1, MELD-RUN-1.
    """
    hand = data.draw(non_opening_hands(deal_number))
    assert not can_open(hand, deal_number)
    assert openings(hand, deal_number) == ()
    state = state_with_hand(hand, deal_number)
    for _ in range(3):
        melds = data.draw(candidate_openings(hand, deal_number))
        try:
            apply(state, Open(0, melds))
        except IllegalActionError:
            continue
        raise AssertionError(f"accepted an opening from a hand that holds none: {melds}")


def _hands() -> st.SearchStrategy[tuple[int, tuple[Card, ...]]]:
    return DEALS.flatmap(
        lambda d: st.one_of(opening_hands(d).map(lambda pair: pair[0]), non_opening_hands(d)).map(
            lambda hand: (d, hand)
        )
    )


@given(_hands())
def test_every_listed_opening_is_the_exact_contract_and_accepted(
    picked: tuple[int, tuple[Card, ...]],
) -> None:
    """Soundness of the solver: every opening it lists (and every opening legal_actions
    lists) is accepted by apply, lays exactly the contract's cards with at most one joker per
    meld, and uses only cards of the hand.

    Rules: CONTRACT-8, JOKER-2, TURN-6, TURN-10.
    """
    deal_number, hand = picked
    for melds in openings(hand, deal_number):
        assert check_contract(melds, deal_number) is None
        assert_is_exact_contract(melds, deal_number, list(hand))
    state = state_with_hand(hand, deal_number)
    listed = [a for a in legal_actions(state) if isinstance(a, Open)]
    assert {opening_key(a.melds) for a in listed} == {
        opening_key(o) for o in openings(hand, deal_number)
    }
    for action in listed:
        after = apply(state, action)
        assert after.opened[0] and after.turn_opened
        assert len(after.hands[0]) == len(hand) - CARD_COUNTS[deal_number]
        assert len(after.hands[0]) >= 1  # TURN-9: a card is kept for the discard


@given(st.data(), _hands())
def test_every_accepted_candidate_opening_is_listed(
    data: st.DataObject, picked: tuple[int, tuple[Card, ...]]
) -> None:
    """Completeness of the solver: any opening apply accepts is among the listed openings
    (compared without regard to meld order), and is the exact contract.

    Rules: CONTRACT-8, JOKER-2.
    """
    deal_number, hand = picked
    state = state_with_hand(hand, deal_number)
    listed = {opening_key(o) for o in openings(hand, deal_number)}
    for _ in range(8):
        melds = data.draw(candidate_openings(hand, deal_number))
        try:
            apply(state, Open(0, melds))
        except IllegalActionError:
            continue
        assert opening_key(melds) in listed
        assert_is_exact_contract(melds, deal_number, list(hand))
