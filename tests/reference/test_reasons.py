"""The reference's reason for every refusal kind of each profile equals docs/reasons.md
("The reason for each refusal, by profile"): the kinds, their profiles and their reasons are
read from that page; this module holds only an example of each kind."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import pytest
from ref_helpers import cards, make_state, run, trio

from reference import (
    PROFILES,
    Discard,
    DrawDiscard,
    DrawStock,
    End,
    IllegalActionError,
    LayOff,
    Open,
    Phase,
    Profile,
    Reason,
    SwapJoker,
    apply,
    check_meld,
    next_deal,
    redeal,
)
from reference.game import GameState
from reference.melds import Meld
from tests.paths import ROOT

REASONS_MD = ROOT / "docs" / "reasons.md"

#: A kind's example, played in a profile: the reason it is refused for (None: accepted).
Example = Callable[[Profile], "Reason | None"]

# --- the examples ---------------------------------------------------------------------------
# Three players in deal 2 (a trio and a run, in every profile); player 0 has opened with the
# kings and 4D JK 6D 7D; player 1 is to move. No 2 and no red ace in a run or trio unless the
# kind is about one, so that each profile reads the cards alike.

KINGS = trio("KS KH KD")
RUN_WITH_JOKER = run("4D JK 6D 7D")
OPENING_RUN = run("4S 5S 6S 7S")
OPENING_TRIO = trio("8C 8S 8H")


def _state(
    profile: Profile,
    hand: str = "8C 8S 8H 4S 5S 6S 7S 5D 9C QC JS",
    *,
    opened: bool = False,
    turn_opened: bool = False,
    phase: str = "play",
    table: tuple[tuple[int, Meld], ...] = ((0, KINGS), (0, RUN_WITH_JOKER)),
    deal_number: int = 2,
    discard: str = "6H",
) -> GameState:
    return make_state(
        ["3C 4C 9H QH", hand, "AC 5C 6C 10S JC 3D JD 9S 10D QD KC"],
        deal_number=deal_number,
        turn=1,
        phase=phase,
        opened=[True, opened, False],
        turn_opened=turn_opened,
        table=table,
        discard=discard,
        profile=profile,
    )


def _refused(state: GameState, action: object) -> Reason | None:
    try:
        apply(state, action)  # type: ignore[arg-type]
    except IllegalActionError as refused:
        return Reason(str(refused.reason))
    return None


def _opening(*melds: Meld, hand: str = "8C 8S 8H 4S 5S 6S 7S 5D 9C QC JS") -> Example:
    def example(profile: Profile) -> Reason | None:
        laid = [str(c) for m in melds for c in m.cards]
        rest = list(hand.split())
        for card in laid:
            if card in rest:
                rest.remove(card)
        return _refused(_state(profile, " ".join(laid + rest)), Open(1, tuple(melds)))

    return example


def _act(action: object, **state: object) -> Example:
    def example(profile: Profile) -> Reason | None:
        return _refused(_state(profile, **state), action)  # type: ignore[arg-type]

    return example


def _swap(card: str, meld: int, to: str, *, to_meld: int | None = None, **state: object) -> Example:
    """A replacement; a Chilean swap sends the wild card to the taker's hand (CHILE-SWAP-2),
    so there the example asks for that, and the kind is about the rest of the swap."""

    def example(profile: Profile) -> Reason | None:
        where = "hand" if profile.wild_swap == "to_hand" else to
        action = SwapJoker(1, meld, cards(card)[0], where, to_meld=to_meld)
        return _refused(_state(profile, **state), action)  # type: ignore[arg-type]

    return example


def _table(meld: Meld) -> Example:
    def example(profile: Profile) -> Reason | None:
        return check_meld(meld, initial=False, profile=profile)

    return example


def _deal_over(profile: Profile) -> Reason | None:
    over = replace(_state(profile), phase=Phase.DEAL_OVER, closer=0)
    return _refused(over, Discard(1, cards("9C")[0]))


def _game_over(profile: Profile) -> Reason | None:
    last = replace(_state(profile, deal_number=profile.deals), phase=Phase.GAME_OVER, closer=0)
    try:
        next_deal(last, ())
    except IllegalActionError as refused:
        return Reason(str(refused.reason))
    return None


def _deal_in_progress(profile: Profile) -> Reason | None:
    try:
        next_deal(_state(profile), ())
    except IllegalActionError as refused:
        return Reason(str(refused.reason))
    return None


def _redeal_too_late(profile: Profile) -> Reason | None:
    try:
        redeal(replace(_state(profile), drawn=True), ())
    except IllegalActionError as refused:
        return Reason(str(refused.reason))
    return None


def _round_8_leaving_two(profile: Profile) -> Reason | None:
    # Round 8: four trios (12 cards) from 14 held leave two cards, neither going out nor
    # leaving the one card to discard (CHILE-ROUND8-2).
    if not profile.rules_on("DISPUTE-39"):
        raise ValueError(f"{profile.name} has no round-8 going-out play")
    hand = "3C 3S 3H 4C 4S 4H 5C 5S 5H 6C 6S 6H 9C QC"
    state = _state(profile, hand, table=(), deal_number=8)
    state = replace(state, opened=(False, False, False))
    melds = tuple(trio(t) for t in ("3C 3S 3H", "4C 4S 4H", "5C 5S 5H", "6C 6S 6H"))
    return _refused(state, Open(1, melds))


def _must_lay_down(profile: Profile) -> Reason | None:
    return _refused(_state(profile), Discard(1, cards("9C")[0]))


LONG_LOW = run("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
LONG_JOKER = run("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS JK KS")

EXAMPLES: dict[str, Example] = {
    "deal_closed": _deal_over,
    "next_deal_after_the_last": _game_over,
    "next_deal_during_the_deal": _deal_in_progress,
    "redeal_after_the_first_draw": _redeal_too_late,
    "discard_taken_out_of_turn": _act(DrawDiscard(2), phase="draw"),
    "action_out_of_turn": _act(Discard(2, cards("9S")[0])),
    "meld_or_discard_before_the_draw": _act(Discard(1, cards("9C")[0]), phase="draw"),
    "second_draw": _act(DrawStock(1)),
    "draw_from_an_empty_pile": _act(DrawDiscard(1), phase="draw", discard=""),
    "card_not_held": _act(Discard(1, cards("2D")[0])),
    "second_opening": _act(Open(1, (OPENING_TRIO, OPENING_RUN)), opened=True),
    "opening_not_the_contract": _opening(OPENING_TRIO),
    "opening_trio_of_two": _opening(trio("8C 8S"), OPENING_RUN),
    "opening_run_of_three": _opening(OPENING_TRIO, run("4S 5S 6S")),
    "opening_meld_with_two_jokers": _opening(trio("8C JK JK"), OPENING_RUN),
    "trio_of_two_ranks": _opening(trio("8C 8S 9H"), OPENING_RUN),
    "trio_with_one_suit_twice": _opening(trio("8C 8C 8H"), OPENING_RUN),
    "run_of_two_suits": _opening(OPENING_TRIO, run("4S 5S 6H 7S")),
    "run_with_a_gap": _opening(OPENING_TRIO, run("4S 5S 7S 8S")),
    "table_run_of_jokers_only": _table(run("JK JK JK JK")),
    "last_card_melded": _act(LayOff(1, cards("KC")[0], 0, None), opened=True, hand="KC"),
    "lay_off_before_opening": _act(LayOff(1, cards("KC")[0], 0, None), hand="KC 9C 3H"),
    "lay_off_on_the_opening_turn": _act(
        LayOff(1, cards("KC")[0], 0, None), opened=True, turn_opened=True, hand="KC 9C 3H"
    ),
    "no_such_meld": _act(LayOff(1, cards("KC")[0], 9, None), opened=True, hand="KC 9C 3H"),
    "replacement_in_a_trio": _swap(
        "KC",
        0,
        "low",
        opened=True,
        hand="KC 9C 3H",
        table=((0, trio("KS KH JK")), (0, RUN_WITH_JOKER)),
    ),
    "replacement_by_the_wrong_card": _swap("5C", 1, "high", opened=True, hand="5C 9C 3H"),
    "replaced_joker_to_a_hand": _swap("5D", 1, "hand", opened=True, hand="5D 9C 3H"),
    "replaced_joker_to_another_meld": _swap(
        "5D", 1, "high", to_meld=0, opened=True, hand="5D 9C 3H"
    ),
    "replaced_joker_past_an_ace": _swap(
        "JD",
        1,
        "high",
        opened=True,
        hand="JD 9C 3H",
        table=((0, KINGS), (0, run("10D JK QD KD AD"))),
    ),
    "lay_off_that_does_not_extend": _act(
        LayOff(1, cards("9C")[0], 0, None), opened=True, hand="9C QC 3H"
    ),
    "card_a_perla_trio_cannot_take": _act(
        LayOff(1, cards("9C")[0], 0, None),
        opened=True,
        hand="9C QC 3H",
        table=((0, trio("9C 9H 9D")), (0, RUN_WITH_JOKER)),
    ),
    "fourteenth_card_checked": _table(run("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")),
    "fourteenth_card_laid_off": _act(
        LayOff(1, cards("AS")[0], 1, End.HIGH),
        opened=True,
        hand="AS 9C 3H",
        table=((0, KINGS), (0, LONG_LOW)),
    ),
    "fourteenth_card_by_a_replacement": _swap(
        "QS",
        1,
        "high",
        opened=True,
        hand="QS 9C 3H",
        table=((0, KINGS), (0, LONG_JOKER)),
    ),
    "round_8_play_leaving_two_cards": _round_8_leaving_two,
    "discard_before_a_legal_laying_down": _must_lay_down,
    "any_wild_card_replacement": _act(
        SwapJoker(1, 1, cards("5D")[0], "high"), opened=True, hand="5D 9C 3H"
    ),
    # Several reasons equally true (docs/reasons.md, second table).
    "corner_with_naturals_on_both_sides": _table(run("JS QS KS AS 2S 3S")),
    "joker_past_an_ace": _table(run("QS KS AS JK")),
    "lay_off_past_an_ace_not_the_next_rank": _act(
        LayOff(1, cards("10S")[0], 1, End.HIGH),
        opened=True,
        hand="10S 9C 3H",
        table=((0, KINGS), (0, run("JS QS KS AS"))),
    ),
    "opening_run_of_jokers_only": _opening(OPENING_TRIO, run("JK JK JK JK")),
    "opening_meld_of_the_wrong_size_with_two_jokers": _opening(trio("8C JK JK 8S"), OPENING_RUN),
    "fourteen_cards_with_a_repeated_rank": _table(
        run("2S 3S 4S 5S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    ),
    "discard_out_of_turn_of_a_card_not_held": _act(Discard(2, cards("2D")[0])),
}


# --- the table of docs/reasons.md -------------------------------------------------------------

PROFILE_ORDER = ("argentine", "chilean", "pagat", "perla")
ROW = re.compile(r"^\| `([a-z0-9_]+)` \| (.+?) \| (.+) \| (.+) \| (.+) \| (.+) \|$")
UNDER = re.compile(r"under ((?:DISPUTE|VARIANT)-[0-9]+) `([a-z0-9_]+)`")
REASON = re.compile(r"`([a-z_]+)`")


def _tables() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """The one-reason table and the several-reasons table, each kind -> profile -> cell."""
    text = REASONS_MD.read_text(encoding="utf-8")
    head, several = text.split("### Refusals with several reasons equally true", 1)
    head = head.split("## The reason for each refusal, by profile", 1)[1]
    several = several.split("\n## ", 1)[0]

    def rows(part: str) -> dict[str, dict[str, str]]:
        found = {}
        for line in part.splitlines():
            match = ROW.match(line)
            if match:
                found[match[1]] = dict(zip(PROFILE_ORDER, match.groups()[2:], strict=True))
        return found

    return rows(head), rows(several)


ONE, SEVERAL = _tables()
CELLS = [
    pytest.param(kind, profile, cell, several, id=f"{kind}-{profile}")
    for table, several in ((ONE, False), (SEVERAL, True))
    for kind, by_profile in table.items()
    for profile, cell in by_profile.items()
]


def test_the_tables_name_every_kind_with_an_example_and_every_reason() -> None:
    assert ONE and SEVERAL
    assert not set(ONE) & set(SEVERAL)
    assert set(ONE) | set(SEVERAL) == set(EXAMPLES), "docs/reasons.md and EXAMPLES differ"
    named = {c for table in (ONE, SEVERAL) for row in table.values() for c in row.values()}
    reasons = {r for cell in named for r in REASON.findall(UNDER.sub("", cell))}
    assert reasons == {r.value for r in Reason}, "a reason no kind gives, or an unknown one"


@pytest.mark.parametrize(("kind", "profile", "cell", "several"), CELLS)
def test_the_reference_gives_the_documented_reason(
    kind: str, profile: str, cell: str, several: bool
) -> None:
    played = PROFILES[profile]
    under = UNDER.search(cell)
    if under:
        played = played.with_rulings({under[1]: under[2]})
    reasons = REASON.findall(UNDER.sub("", cell))
    if cell.strip() == "—":
        try:
            answer = EXAMPLES[kind](played)
        except (ValueError, KeyError):
            return  # the example cannot be played in this profile
        assert answer is None, f"{kind} in {profile}: refused ({answer}), the table says —"
        return
    assert reasons and (several or len(reasons) == 1), f"{kind} in {profile}: {cell}"
    if under:
        assert EXAMPLES[kind](PROFILES[profile]) is None, "accepted under the profile's option"
    answer = EXAMPLES[kind](played)
    # Several reasons equally true: the reference gives the first, in the precedence order.
    assert answer == Reason(reasons[0]), f"{kind} in {profile}: {answer}, docs say {cell}"
