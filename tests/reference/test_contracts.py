"""Deal contracts: CONTRACT-1..8, GAME-1, JOKER-2 per meld, DISPUTE-23/24."""

from __future__ import annotations

import pytest
from ref_helpers import run, trio

from reference import ARGENTINE, Contract, Reason, check_contract, contract_for

# Contracts as the rules text lists them: deal -> (trios, runs, cards).
LADDER = {1: (2, 0, 6), 2: (1, 1, 7), 3: (0, 2, 8), 4: (3, 0, 9), 5: (2, 1, 10), 6: (1, 2, 11)}
LADDER[7] = (0, 3, 12)


@pytest.mark.parametrize("deal", range(1, 8))
def test_contract_n_ladder(deal: int) -> None:
    # CONTRACT-1 .. CONTRACT-7, GAME-1: deal n uses contract n
    trios, runs, count = LADDER[deal]
    contract = contract_for(ARGENTINE, deal)
    assert contract == Contract(trios, runs)
    assert contract.card_count == count


def test_game_1_there_is_no_deal_8() -> None:
    # GAME-1: exactly 7 deals
    assert ARGENTINE.deals == 7
    with pytest.raises(ValueError):
        contract_for(ARGENTINE, 8)


T1, T2, T3 = trio("8C 8D 8H"), trio("KS KH JK"), trio("3C 3C 3D")
R1, R2, R3 = run("4S 5S 6S 7S"), run("JK 10H JH QH"), run("AD 2D 3D 4D")

VALID = {
    1: [T1, T2],
    2: [T1, R1],
    3: [R1, R2],
    4: [T1, T2, T3],
    5: [T1, T2, R1],
    6: [T1, R1, R2],
    7: [R1, R2, R3],
}


@pytest.mark.parametrize("deal", range(1, 8))
def test_contract_n_accepts_its_own_melds_and_refuses_another_deals(deal: int) -> None:
    # CONTRACT-1, CONTRACT-2, CONTRACT-3, CONTRACT-4, CONTRACT-5, CONTRACT-6, CONTRACT-7:
    # accepted with the deal's own contract, rejected with the next deal's (all differ).
    assert check_contract(VALID[deal], deal) is None
    assert check_contract(VALID[deal % 7 + 1], deal) == Reason.CONTRACT_MISMATCH


@pytest.mark.parametrize(
    ("deal", "melds", "why"),
    [
        (1, [T1], "CONTRACT-9: part of the contract alone"),
        (1, [T1, T2, T3], "an extra trio"),
        (1, [T1, R1], "a run instead of a trio"),
        (2, [T1, T2], "GAME-1: deal 2 is not deal 1's contract"),
        (2, [R1, T1, T2], "an extra meld"),
        (3, [R1], "one run short"),
        (7, [R1, R2], "one run short"),
        (7, [R1, R2, R3, T1], "an extra trio"),
    ],
)
def test_contract_8_wrong_melds_are_a_contract_mismatch(deal: int, melds: list, why: str) -> None:
    assert check_contract(melds, deal) == Reason.CONTRACT_MISMATCH, why


def test_contract_8_oversized_melds_are_rejected_by_size() -> None:
    # CONTRACT-8 / DISPUTE-31: the right kinds, but a meld beyond its initial size
    assert check_contract([trio("8C 8D 8H 8S"), R1], 2) == Reason.TRIO_SIZE
    assert check_contract([T1, run("4S 5S 6S 7S 8S")], 2) == Reason.RUN_SIZE


def test_melds_are_judged_in_the_order_given() -> None:
    bad_trio, bad_run = trio("8C 8D 9H"), run("KS AS 2S 3S")
    assert check_contract([bad_trio, bad_run], 2) == Reason.TRIO_MIXED_RANKS
    assert check_contract([bad_run, bad_trio], 2) == Reason.RUN_WRAPS


def test_contract_mismatch_comes_before_meld_problems() -> None:
    assert check_contract([trio("8C JK JK")], 2) == Reason.CONTRACT_MISMATCH


def test_joker_2_one_joker_per_meld_not_per_opening() -> None:
    # JOKER-2, DISPUTE-24: deal 4 with a joker in each of three trios is fine
    three = [trio("8C 8D JK"), trio("KS KH JK"), trio("3C 3D JK")]
    assert check_contract(three, 4) is None
    two_in_one = [trio("8C JK JK"), trio("KS KH KD"), trio("3C 3D 3H")]
    assert check_contract(two_in_one, 4) == Reason.TOO_MANY_JOKERS


def test_dispute_23_same_rank_trios_and_adjacent_same_suit_runs() -> None:
    assert check_contract([trio("8C 8D 8H"), trio("8C 8D 8S")], 1) is None
    assert check_contract([run("3S 4S 5S 6S"), run("7S 8S 9S 10S")], 3) is None
