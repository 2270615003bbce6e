"""The harness's profile data (conformance/data/profiles.json) agrees with the reference.

The harness never imports reference/ (tests/test_layering.py), so it keeps its own copy of
every fact it needs about a profile. This test, which may import both, compares them fact
by fact for every profile the reference plays. Facts are read through the reference's
adapter where the protocol shows them (the pack, hand sizes, contracts, card values, the
deal-score range, the state's fields), so the comparison holds however the reference
stores them; player counts, deal count, meld sizes and wild ranks are read from its
``Profile``. The reference plays every profile the harness has data for: one it did not
play would fail here, not be skipped.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import product
from typing import Any

import pytest

from conformance.knowledge.cards import CANONICAL_ORDER, JOKER, RANKS, SUITS
from conformance.knowledge.profiles import ProfileData, default_profiles
from reference.adapter import Adapter
from reference.profiles import OPTIONS, PROFILES, find_profile

HARNESS = default_profiles()


def ask(adapter: Adapter, op: str, **fields: Any) -> dict[str, Any]:
    """One request through the reference adapter, in process."""
    answer, _ = adapter.handle(json.dumps({"id": 1, "op": op, **fields}))
    return answer


def _facts(name: str) -> ProfileData:
    assert name in PROFILES, f"the reference does not play profile {name!r}"
    return HARNESS[name]


def _all_cards(state: dict[str, Any]) -> Counter[str]:
    cards: Counter[str] = Counter()
    for hand in state["hands"]:
        cards.update(hand)
    for meld in state["table"]:
        cards.update(meld["cards"])
    cards.update(state["stock"])
    cards.update(state["discard"])
    return cards


def test_every_reference_profile_has_harness_data() -> None:
    missing = sorted(set(PROFILES) - set(HARNESS))
    assert not missing, f"add {missing} to conformance/data/profiles.json"


def test_the_default_pack_is_the_argentine_one() -> None:
    # cards.CANONICAL_ORDER is kept for callers that name no profile.
    assert HARNESS["argentine"].pack(2).canonical_order() == CANONICAL_ORDER


@pytest.mark.parametrize("name", list(HARNESS))
def test_player_counts_and_deals_agree(name: str) -> None:
    facts = _facts(name)
    ref = find_profile(name)
    assert facts.players == tuple(range(ref.min_players, ref.max_players + 1))
    assert facts.deal_count == ref.deals
    assert (facts.trio_size, facts.run_size) == (ref.initial_trio_size, ref.initial_run_size)
    assert facts.wild_ranks == {rank.code for rank in ref.wild_ranks}
    assert facts.wild_cards == {card.code() for card in ref.wild_cards}


@pytest.mark.parametrize("name", list(HARNESS))
def test_the_pack_for_every_player_count_agrees(name: str) -> None:
    facts = _facts(name)
    adapter = Adapter()
    for players in facts.players:
        answer = ask(adapter, "new_game", profile=name, players=players, seed=7)
        assert "state" in answer, answer
        want = Counter(facts.pack(players).canonical_order())
        assert _all_cards(answer["state"]) == want, f"{name}, {players} players"
    for players in (min(facts.players) - 1, max(facts.players) + 1):
        answer = ask(adapter, "new_game", profile=name, players=players, seed=7)
        assert "error" in answer, f"{name} should not deal to {players} players"


@pytest.mark.parametrize("name", list(HARNESS))
def test_hand_sizes_agree(name: str) -> None:
    facts = _facts(name)
    adapter = Adapter()
    players = min(facts.players)
    deck = list(facts.pack(players).canonical_order())
    for deal in facts.deals:
        answer = ask(
            adapter,
            "start_deal",
            profile=name,
            players=players,
            deal_number=deal.number,
            dealer=0,
            totals=[0] * players,
            deck=deck,
        )
        sizes = [len(hand) for hand in answer["state"]["hands"]]
        assert sizes == [deal.hand_size] * players, f"{name} deal {deal.number}"
    beyond = ask(
        adapter,
        "start_deal",
        profile=name,
        players=players,
        deal_number=facts.deal_count + 1,
        dealer=0,
        totals=[0] * players,
        deck=deck,
    )
    assert "error" in beyond, f"{name} has no deal {facts.deal_count + 1}"


def _contract_melds(trios: int, runs: int) -> list[dict[str, Any]]:
    """An opening of ``trios`` natural trios and ``runs`` natural runs, no card shared."""
    melds: list[dict[str, Any]] = []
    # Trios of ranks 3..K in three different suits; runs from 3 to 6 in one suit each.
    trio_ranks = ["K", "Q", "J", "10"]
    for i in range(trios):
        melds.append({"kind": "trio", "cards": [trio_ranks[i] + s for s in SUITS[:3]]})
    for i in range(runs):
        melds.append({"kind": "run", "cards": [r + SUITS[i] for r in RANKS[2:6]]})
    return melds


@pytest.mark.parametrize("name", list(HARNESS))
def test_contracts_agree(name: str) -> None:
    facts = _facts(name)
    adapter = Adapter()
    for deal in facts.deals:
        allowed = {(c.trios, c.runs) for c in deal.contracts}
        for trios, runs in product(range(5), range(5)):
            if not 1 <= trios + runs <= 4:
                continue
            answer = ask(
                adapter,
                "check_contract",
                profile=name,
                deal_number=deal.number,
                melds=_contract_melds(trios, runs),
            )
            assert answer["valid"] == ((trios, runs) in allowed), (
                f"{name} deal {deal.number}: {trios} trios and {runs} runs"
            )


@pytest.mark.parametrize("name", list(HARNESS))
def test_card_values_agree(name: str) -> None:
    facts = _facts(name)
    adapter = Adapter()
    for code in [*RANKS, JOKER]:
        card = JOKER if code == JOKER else code + "H"
        answer = ask(adapter, "penalty", profile=name, cards=[card])
        assert answer["points"] == facts.card_value(card), f"{name}: {card}"
    for card in [rank + suit for rank in RANKS for suit in SUITS]:
        # Cards valued on their own (perla's red aces), and every other card by its rank.
        answer = ask(adapter, "penalty", profile=name, cards=[card])
        assert answer["points"] == facts.card_value(card), f"{name}: {card}"


def _closing_state(facts: ProfileData, lowering: bool = False) -> dict[str, Any]:
    """Deal 1, two players: player 0 has opened (this turn when ``lowering``) and discards
    their last card."""
    table = [
        {"owner": 0, "kind": "trio", "cards": ["KS", "KH", "KD"]},
        {"owner": 0, "kind": "trio", "cards": ["QS", "QH", "QD"]},
    ]
    hands = [["5H"], ["AS", "3S", "4S", "6S", "7S", "8S", "9S", "10S", "JS", "3H", "4H"]]
    discard = ["7D"]
    placed = Counter([c for h in hands for c in h] + [c for m in table for c in m["cards"]])
    placed.update(discard)
    stock = list((Counter(facts.pack(2).canonical_order()) - placed).elements())
    state = {
        "profile": facts.name,
        "players": 2,
        "deal_number": 1,
        "dealer": 1,
        "turn": 0,
        "phase": "play",
        "hands": hands,
        "opened": [True, False],
        "turn_opened": lowering,
        "table": table,
        "stock": stock,
        "discard": discard,
        "totals": [0, 0],
        "deal_scores": None,
        "closer": None,
        "winners": None,
    }
    return {field: state[field] for field in facts.state_fields}


@pytest.mark.parametrize("name", list(HARNESS))
def test_closer_score_and_deal_score_range_agree(name: str) -> None:
    """The closer's score at the profile's rulings (on a later turn, and on the laying-down
    turn), and the lowest one any option gives, are the data's ``closer_score``,
    ``lowering_turn_closer_score`` and ``deal_score.min``."""
    facts = _facts(name)
    scores: dict[str, int] = {}
    changes: list[dict[str, str]] = [{}]
    changes += [{point: option} for point, options in OPTIONS.items() for option in options[1:]]
    for change, lowering in product(changes, (False, True)):
        try:
            adapter = Adapter(rulings=change)
        except ValueError:
            continue  # an option this reference cannot play for every profile
        loaded = ask(adapter, "load_state", state=_closing_state(facts, lowering))
        if "state" not in loaded:
            continue  # a ruling under which this position cannot arise
        answer = ask(adapter, "act", action={"type": "discard", "player": 0, "card": "5H"})
        if not answer.get("accepted"):
            continue
        scores[json.dumps(change) + (" lowering" if lowering else "")] = answer["state"][
            "deal_scores"
        ][0]
        other = answer["state"]["deal_scores"][1]
        assert other >= facts.deal_score_min
        if facts.deal_score_max is not None:
            assert other <= facts.deal_score_max
    assert scores.get("{}") == facts.closer_score, f"{name}: the closer's score"
    lowering = facts.lowering_turn_closer_score
    assert scores.get("{} lowering") == (facts.closer_score if lowering is None else lowering)
    assert min(scores.values()) == facts.deal_score_min, f"{name}: lowest deal score {scores}"


@pytest.mark.parametrize("name", list(HARNESS))
def test_state_fields_agree(name: str) -> None:
    facts = _facts(name)
    answer = ask(Adapter(), "new_game", profile=name, players=min(facts.players), seed=1)
    fields = set(answer["state"]) - {"x"}  # x: the engine's private field (protocol §5)
    assert fields == set(facts.state_fields)


def _rules_md_fixed() -> dict[tuple[str, str], str]:
    """(point, profile) -> "set by X" or "fixed", read from docs/rules.md's profile lines."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "rules.md").read_text("utf-8")
    found: dict[tuple[str, str], str] = {}
    point = ""
    for line in text.splitlines():
        heading = re.match(r"^### ((?:DISPUTE|VARIANT)-\d+) ", line)
        if heading:
            point = heading.group(1)
            continue
        said = re.match(r"^- \*\*(\w+) profile:\*\* `[^`]+` — (.*)$", line)
        if point and said:
            profile, why = said.group(1).lower(), said.group(2)
            by = re.search(r"set by ((?:DISPUTE|VARIANT)-\d+)", why)
            if by:
                found[(point, profile)] = f"set by {by.group(1)}"
            elif why.startswith("fixed"):
                found[(point, profile)] = "fixed"
    return found


def test_points_fixed_in_a_profile_agree_in_rules_md_catalogue_and_reference() -> None:
    # docs/rules.md says "set by DISPUTE-nn" or "fixed" on a profile's line; the catalogue's
    # `fixed` field (coverage reads it) must say the same, and the reference must refuse to
    # play another option there (it has none of its own in that profile).
    from conformance.knowledge.catalogue import load_catalogue

    in_docs = _rules_md_fixed()
    catalogue = load_catalogue()
    in_catalogue = {
        (point, profile): why
        for point, dispute in catalogue.disputes.items()
        for profile, why in dispute.fixed.items()
    }
    assert in_catalogue == in_docs, "change conformance/data/catalogue.json 'fixed' to match"
    for name, profile in PROFILES.items():
        for point, option in profile.rulings.items():
            other = next((o for o in OPTIONS[point] if o != option), None)
            if other is None:
                continue
            try:
                profile.with_rulings({point: other})
                refused = False
            except ValueError:
                refused = True
            assert refused == ((point, name) in in_docs), (name, point)
