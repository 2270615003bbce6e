"""Scoring laws (reference.scoring): penalties, deal scores, running totals and winners."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import Playout, pack_multisets, playouts

from reference import Card, Phase, Rank, penalty, ranking, score_deal, winners
from reference.play import play_game

# Card values straight from the rules text (SCORE-2): 2-10 face value, J/Q/K 10, A 20,
# joker 50.
VALUES = {Rank.ACE: 20, Rank.JACK: 10, Rank.QUEEN: 10, Rank.KING: 10} | {
    r: r.value for r in Rank if Rank.TWO <= r <= Rank.TEN
}


def value(card: Card) -> int:
    """One card's penalty by the rules text."""
    return 50 if card.rank is None else VALUES[card.rank]


@given(pack_multisets(0, 30))
def test_penalty_is_the_sum_of_card_values(cards: tuple[Card, ...]) -> None:
    """A hand's penalty is the sum of its cards' values; no other table is used.

    Rules: SCORE-2, SCORE-5, JOKER-7.
    """
    assert penalty(cards) == sum(value(c) for c in cards)


@given(pack_multisets(0, 15), pack_multisets(0, 15))
def test_penalty_adds_up_over_parts_of_a_hand(a: tuple[Card, ...], b: tuple[Card, ...]) -> None:
    """Penalty is additive: splitting the held cards in two splits the points in two.

    Rules: SCORE-2.
    """
    assert penalty(a + b) == penalty(a) + penalty(b)


@given(
    st.lists(pack_multisets(0, 12), min_size=2, max_size=4).flatmap(
        lambda hands: st.tuples(
            st.just(hands),
            st.integers(0, len(hands) - 1),
            st.lists(st.integers(0, 500), min_size=len(hands), max_size=len(hands)),
        )
    )
)
def test_closer_scores_zero_and_totals_grow_by_the_deal_scores(
    picked: tuple[list[tuple[Card, ...]], int, list[int]],
) -> None:
    """At a close the closer scores 0, everyone else the value of their held cards, and each
    score is added to the running total, so totals never decrease.

    Rules: SCORE-1, SCORE-2, SCORE-3, SCORE-4.
    """
    hands, closer, totals = picked
    scores, new_totals = score_deal(hands, closer, totals)
    assert scores[closer] == 0
    for i, hand in enumerate(hands):
        if i != closer:
            assert scores[i] == sum(value(c) for c in hand)
        assert new_totals[i] == totals[i] + scores[i] >= totals[i]


@given(st.lists(st.integers(0, 400), min_size=2, max_size=4))
def test_winners_are_every_player_on_the_lowest_total(totals: list[int]) -> None:
    """All players on the lowest total win together; ranking is 1, 1, 3 style.

    Rules: END-4, END-5, DISPUTE-15.
    """
    best = min(totals)
    assert winners(totals) == tuple(i for i, t in enumerate(totals) if t == best)
    places = ranking(totals)
    for i, t in enumerate(totals):
        assert places[i] == 1 + sum(1 for u in totals if u < t)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(playouts(max_steps=400))
def test_a_real_close_scores_the_hands_left(playout: Playout) -> None:
    """When a played deal closes, deal_scores are the held cards' values (closer 0) and the
    totals grew by exactly them.

    Rules: SCORE-1, SCORE-2, SCORE-3, SCORE-4, END-1.
    """
    start, end = playout.states[0], playout.final
    if end.closer is None:
        assert end.deal_scores is None and end.totals == start.totals
        return
    assert end.deal_scores is not None
    expected = [0 if i == end.closer else sum(map(value, h)) for i, h in enumerate(end.hands)]
    assert list(end.deal_scores) == expected
    assert list(end.totals) == [t + s for t, s in zip(start.totals, expected, strict=True)]


@settings(max_examples=max(2, settings.default.max_examples // 25))
@given(st.integers(0, 2**32 - 1), st.integers(2, 4))
def test_a_whole_game_ends_with_the_lowest_totals_winning(seed: int, players: int) -> None:
    """Over seven deals totals never decrease, each closed deal adds its scores (closer 0),
    cancelled deals add nothing, and after deal 7 the winners are exactly the players on the
    lowest total.

    Rules: SCORE-1, SCORE-4, STOCK-2, END-4, END-5.
    """
    record = play_game(seed, players, "greedy")
    assert record.finished
    totals = (0,) * players
    for deal in record.deals:
        if deal.cancelled:
            assert deal.totals == totals and deal.deal_scores is None
            continue
        assert deal.closer is not None and deal.deal_scores is not None
        assert deal.deal_scores[deal.closer] == 0
        grown = tuple(t + s for t, s in zip(totals, deal.deal_scores, strict=True))
        assert deal.totals == grown
        assert all(new >= old for new, old in zip(grown, totals, strict=True))
        totals = grown
    final = record.final
    assert final.phase is Phase.GAME_OVER
    best = min(final.totals)
    assert final.winners == tuple(i for i, t in enumerate(final.totals) if t == best)
