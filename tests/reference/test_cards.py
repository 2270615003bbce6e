"""Cards and notation: CARDS-1..3 and the card codes of docs/protocol.md §3."""

from __future__ import annotations

from collections import Counter

import pytest

from reference import ARGENTINE, JOKER, Card, CardParseError, Rank, Suit, full_pack, parse_cards
from reference.cards import Card as CardClass  # for eval() of reprs

RANK_CODES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def test_cards_1_pack_has_108_cards_two_copies_of_each_natural_and_four_jokers() -> None:
    # CARDS-1
    pack = full_pack()
    assert len(pack) == 108
    counts = Counter(pack)
    assert counts[JOKER] == 4
    naturals = [c for c in counts if not c.is_joker]
    assert len(naturals) == 52
    assert all(counts[c] == 2 for c in naturals)


def test_full_pack_is_in_canonical_order() -> None:
    pack = full_pack()
    assert [c.code() for c in pack[:14]] == [
        "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AH",
    ]  # fmt: skip
    assert pack[51].code() == "KC"
    assert pack[52].code() == "AS"
    assert [c.code() for c in pack[103:]] == ["KC", "JK", "JK", "JK", "JK"]


def test_every_code_round_trips() -> None:
    codes = [r + s for s in "SHDC" for r in RANK_CODES] + ["JK"]
    for code in codes:
        assert Card.from_code(code).code() == code


def test_parse_fields() -> None:
    ten = Card.from_code("10H")
    assert ten.rank is Rank.TEN and ten.suit is Suit.HEARTS and not ten.is_joker
    assert Card.from_code("JK") == JOKER and JOKER.is_joker


def test_glyphs() -> None:
    assert Card.from_code("10H").glyph() == "10♥"
    assert Card.from_code("AS").glyph() == "A♠"
    assert Card.from_code("QD").glyph() == "Q♦"
    assert Card.from_code("2C").glyph() == "2♣"
    assert JOKER.glyph() == "JK"


def test_repr_evaluates_back() -> None:
    for code in ("10H", "AS", "JK"):
        card = Card.from_code(code)
        assert repr(card) == f"Card.from_code({code!r})"
        assert eval(repr(card), {"Card": CardClass}) == card


@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        ("1S", "rank '1'"),
        ("11S", "rank '11'"),
        ("10X", "suit 'X'"),
        ("as", "upper case ('AS')"),
        ("10h", "upper case ('10H')"),
        ("J", "a rank without a suit"),
        ("10", "a rank without a suit"),
        ("S", "too short"),
        ("", "too short"),
        ("JOKER", "suit 'R'"),
    ],
)
def test_bad_codes_say_what_is_wrong(code: str, fragment: str) -> None:
    with pytest.raises(CardParseError) as info:
        Card.from_code(code)
    assert fragment in str(info.value)
    assert repr(code) in str(info.value)


def test_card_parse_error_is_an_invalid_action_and_a_value_error() -> None:
    with pytest.raises(ValueError):
        Card.from_code("ZZ")


def test_parse_cards_keeps_order_and_duplicates() -> None:
    assert [c.code() for c in parse_cards("AS 10H JK AS")] == ["AS", "10H", "JK", "AS"]
    with pytest.raises(CardParseError):
        parse_cards("AS 1H")


def test_cards_2_only_jokers_are_wild_twos_are_natural() -> None:
    # CARDS-2 (accepted: the joker is wild; rejected: a two is not)
    assert ARGENTINE.is_wild(JOKER)
    assert not ARGENTINE.is_wild(Card.from_code("2S"))
    assert ARGENTINE.wild_ranks == frozenset()


def test_cards_3_thirteen_ranks_in_order() -> None:
    # CARDS-3: A, 2..10, J, Q, K; the ace's low place is 1 (its high place is run position 14)
    assert [r.code for r in Rank] == RANK_CODES
    assert Rank.ACE.value == 1 and Rank.KING.value == 13


def test_sorting_is_canonical_order_with_jokers_last() -> None:
    hand = parse_cards("JK KC AS 2H AS")
    assert [c.code() for c in sorted(hand)] == ["AS", "AS", "2H", "KC", "JK"]


def test_cards_are_frozen_values() -> None:
    card = Card.from_code("AS")
    with pytest.raises(AttributeError):
        card.rank = Rank.TWO  # type: ignore[misc]
    assert Card.from_code("AS") == card and hash(Card.from_code("AS")) == hash(card)
