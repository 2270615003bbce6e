"""``python -m reference --seed 7 --players 3``: play and print one whole game."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from reference.cards import cards_text
from reference.play import POLICIES, play_game


def main(argv: Sequence[str] | None = None) -> int:
    """Play a game from the command line and print it deal by deal."""
    parser = argparse.ArgumentParser(prog="python -m reference", description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--policy", default="greedy", choices=POLICIES)
    args = parser.parse_args(argv)
    record = play_game(args.seed, args.players, args.policy)
    print(f"seed {record.seed}, {record.players} players, policy {record.policy}")
    for deal in record.deals:
        print(f"\ndeal {deal.deal_number}: dealer player {deal.dealer}")
        for i, hand in enumerate(deal.dealt):
            print(f"  player {i} dealt: {cards_text(hand, glyphs=True)}")
        if deal.cancelled:
            print(f"  cancelled after {deal.actions} actions: stock exhausted, nothing to recycle")
            continue
        if deal.closer is None:
            print(f"  unfinished after {deal.actions} actions")
            continue
        print(f"  closed by player {deal.closer} after {deal.actions} actions")
        print(f"  deal scores: {list(deal.deal_scores or ())}")
        print(f"  totals:      {list(deal.totals)}")
    if record.finished:
        print(f"\nwinners: {', '.join(f'player {w}' for w in record.winners)}")
    else:
        print("\ngame unfinished: a deal hit the action cap")
    return 0 if record.finished else 1


if __name__ == "__main__":
    sys.exit(main())
