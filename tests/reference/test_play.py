"""Whole seeded games: determinism, bounded length, and bookkeeping that adds up."""

from __future__ import annotations

import pytest

from reference import Phase, validate_state, winners
from reference.__main__ import main
from reference.play import play_game


@pytest.mark.parametrize(("seed", "players"), [(7, 3), (1, 2), (2, 4)])
def test_a_greedy_game_plays_all_seven_deals(seed: int, players: int) -> None:
    record = play_game(seed, players)
    assert record.finished and record.final.phase is Phase.GAME_OVER
    closed = [d for d in record.deals if not d.cancelled]
    assert [d.deal_number for d in closed] == [1, 2, 3, 4, 5, 6, 7]  # GAME-1
    totals = [0] * players
    dealer = closed[0].dealer
    for deal in closed:
        assert deal.dealer == dealer  # DEAL-2: passes to the right after each close
        dealer = (dealer + 1) % players
        assert deal.deal_scores is not None and deal.closer is not None
        assert deal.deal_scores[deal.closer] == 0  # SCORE-1
        totals = [t + s for t, s in zip(totals, deal.deal_scores, strict=True)]
        assert tuple(totals) == deal.totals  # SCORE-4
        assert all(len(h) == (12 if deal.deal_number == 7 else 11) for h in deal.dealt)
    assert record.winners == winners(record.final.totals)  # END-4


def test_games_are_deterministic_from_the_seed() -> None:
    assert play_game(11, 3) == play_game(11, 3)
    assert play_game(11, 3) != play_game(12, 3)


def test_random_policy_is_deterministic_and_keeps_states_valid() -> None:
    record = play_game(3, 2, "random", max_actions_per_deal=120)
    assert record == play_game(3, 2, "random", max_actions_per_deal=120)
    assert record.deals and validate_state(record.final) == ()


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown policy"):
        play_game(1, 3, "clever")


def test_command_line_prints_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seed", "7", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "deal 1: dealer player" in out and "deal 7:" in out
    assert "dealt:" in out and "totals:" in out and "winners: player" in out
    assert "♠" in out or "♥" in out or "♦" in out or "♣" in out
