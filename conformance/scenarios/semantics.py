"""The semantic checks of a scenario's setup beyond its schema (docs/scenario-format.md,
"Semantic checks"): states and decks against the facts of each profile the case lists.
Names (rules, reasons, points, options) are checked by :mod:`conformance.scenarios.names`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from conformance.knowledge.profiles import Pack, ProfileData
from conformance.knowledge.reachability import unreachable_problems
from conformance.scenarios.model import DeckSpec
from conformance.scenarios.options import NOT_ASSERTED, branches_of, is_by_option, is_wrapper
from conformance.scenarios.packs import (
    _default_profile,
    _state_cards,
    conservation_problems,
    fill_after,
    table_meld_problem,
)
from conformance.scenarios.reporter import Reporter


class StateChecks(Reporter):
    """Setup states and decks against one profile's facts (pack, players, deals)."""

    def check_state(
        self,
        state: Mapping[str, Any],
        base: list[Any],
        stock_given: bool,
        profile: ProfileData | None = None,
    ) -> None:
        profile = profile or _default_profile()
        players = state["players"]
        if not self.check_players(players, profile, [*base, "players"]):
            return
        if not self.check_deal_number(state["deal_number"], profile, [*base, "deal_number"]):
            return
        if len(state["hands"]) != players:
            self.error(f"{len(state['hands'])} hands for {players} players", [*base, "hands"])
        for key in ("opened", "totals", "deal_scores"):
            value = state.get(key)
            if isinstance(value, list) and len(value) != players:
                self.error(f"{key} has {len(value)} entries for {players} players", [*base, key])
        for key in ("turn", "dealer", "closer"):
            value = state.get(key)
            if isinstance(value, int) and not 0 <= value < players:
                self.error(f"{key} {value} is out of range for {players} players", [*base, key])
        for i, winner in enumerate(state.get("winners") or []):
            if not 0 <= winner < players:
                self.error(f"winner {winner} is out of range", [*base, "winners", i])
        for i, score in enumerate(state.get("deal_scores") or []):
            low, high = profile.deal_score_min, profile.deal_score_max
            if score < low or (high is not None and score > high):
                self.error(
                    f"deal score {score} is outside the {profile.name} range "
                    f"{low}..{'' if high is None else high} (profiles.json deal_score)",
                    [*base, "deal_scores", i],
                )
        opened = state.get("opened")
        for i, meld in enumerate(state.get("table", [])):
            path = [*base, "table", i]
            if not 0 <= meld["owner"] < players:
                self.error(f"owner {meld['owner']} is out of range for {players} players", path)
            elif isinstance(opened, list) and len(opened) == players and not opened[meld["owner"]]:
                self.error(f"table meld owned by player {meld['owner']}, who has not opened", path)
            problem = table_meld_problem(
                meld["kind"], meld["cards"], profile.wild_ranks, profile.wild_cards
            )
            if problem is not None:
                self.error(f"table meld {i} is not a valid {meld['kind']}: {problem}", path)
        cards = list(_state_cards(state))
        pack = profile.pack(players)
        for problem in conservation_problems(
            cards, exact=stock_given, pack=pack, profile=profile.name
        ):
            self.error(f"state: {problem}", base)
        # A state play cannot reach tests a position no game produces: refuse it unless the
        # scenario says why it is built that way (docs/scenario-format.md, `built`).
        if not (isinstance(self.data, Mapping) and self.data.get("built")):
            for problem in unreachable_problems(state, profile):
                self.error(
                    f"play cannot reach this state: {problem}; if it is built on "
                    "purpose, say why in `built:`",
                    base,
                )

    def check_players(self, players: int, profile: ProfileData, path: list[Any]) -> bool:
        """Whether ``profile`` plays ``players`` players (an error names what it plays)."""
        if players in profile.players:
            return True
        counts = ", ".join(map(str, profile.players))
        self.error(f"profile {profile.name} plays {counts} players, not {players}", path)
        return False

    def check_deal_number(self, number: int, profile: ProfileData, path: list[Any]) -> bool:
        """Whether ``profile`` has deal ``number`` (an error names its deals)."""
        if 1 <= number <= profile.deal_count:
            return True
        self.error(
            f"profile {profile.name} has deals 1 to {profile.deal_count}, not deal {number}", path
        )
        return False

    def expand_state(
        self, raw: Mapping[str, Any], profile: str, pack: Pack | None = None
    ) -> dict[str, Any]:
        players = raw["players"]
        state: dict[str, Any] = {
            "profile": raw.get("profile", profile),
            "players": players,
            "deal_number": raw["deal_number"],
            "dealer": raw["dealer"],
            "turn": raw["turn"],
            "phase": raw["phase"],
            "hands": [list(h) for h in raw["hands"]],
            "opened": list(raw.get("opened", [False] * players)),
            "turn_opened": raw.get("turn_opened", False),
            "table": [
                {"owner": m["owner"], "kind": m["kind"], "cards": list(m["cards"])}
                for m in raw.get("table", [])
            ],
            "stock": [],
            # An empty discard pile is a legal (if rare) state, so it may be omitted.
            "discard": list(raw.get("discard", [])),
            "totals": list(raw.get("totals", [0] * players)),
            "deal_scores": raw.get("deal_scores"),
            "closer": raw.get("closer"),
            "winners": raw.get("winners"),
        }
        if "stock" in raw:
            state["stock"] = list(raw["stock"])
        else:
            placed = [c for h in state["hands"] for c in h]
            placed += [c for m in state["table"] for c in m["cards"]]
            placed += state["discard"]
            state["stock"] = fill_after(list(raw.get("stock_top", [])), placed, pack)
        return state

    def check_deck(
        self,
        spec: DeckSpec,
        path: list[Any],
        players: int | None,
        deal_number: int | None,
        profile: ProfileData | None = None,
    ) -> None:
        profile = profile or _default_profile()
        if spec.cut is not None and not profile.cut:
            self.error(
                f"profile {profile.name} deals without a cut: only a profile that cuts "
                "(perla, docs/protocol.md §10) takes one",
                [*path, "cut"],
            )
        if deal_number is not None and not self.check_deal_number(
            deal_number, profile, [*path, "deal_number"]
        ):
            return
        if spec.hands is not None:
            if players is not None and len(spec.hands) != players:
                self.error(f"{len(spec.hands)} hands for {players} players", [*path, "hands"])
            sizes = {len(h) for h in spec.hands}
            dealt = {d.hand_size for d in profile.deals}
            if deal_number is not None:
                want = profile.hand_size(deal_number)
                for i, hand in enumerate(spec.hands):
                    if len(hand) != want:
                        self.error(
                            f"hand {i} has {len(hand)} cards; deal {deal_number} deals {want} "
                            f"({profile.name})",
                            [*path, "hands", i],
                        )
            elif len(sizes) > 1 or not sizes <= dealt:
                self.error(
                    f"dealt hands must all hold {profile.hand_sizes_text()} cards ({profile.name})",
                    [*path, "hands"],
                )
            cards = [c for h in spec.hands for c in h] + [spec.upcard or "", *spec.stock_top]
            cards = [c for c in cards if c]
        elif spec.deck_top is not None:
            cards = list(spec.deck_top)
        else:
            cards = list(spec.deck or [])
        pack = (
            profile.pack(players)
            if players in profile.players
            else max(profile.packs, key=lambda p: p.size)  # bounds only: players unknown
        )
        for problem in conservation_problems(
            cards, exact=spec.deck is not None, pack=pack, profile=profile.name
        ):
            self.error(f"deck: {problem}", path)

    def check_expected_state(
        self, expected: Any, players: int, profile: ProfileData, base: list[Any], label: str
    ) -> None:
        """An expected state (``final:`` or a step's ``state:``) against the seats and the
        pack: per-player lists hold one entry per player, seats and owners are in range,
        and the cards named fit the pack. Values written per option are checked in each
        branch; a state no game of ``players`` players can reach would fail every engine.
        """
        if players not in profile.players:  # the setup already said so
            return
        pack = profile.pack(players)
        for key, value in _expected_keys(expected):
            path = [*base, key]
            for plain in _plain_values(value):
                for problem in _seat_problems(key, plain, players, pack.size):
                    self.error(f"{label}: {problem}", path)
                cards = _named_cards(key, plain)
                for problem in conservation_problems(
                    cards, exact=False, pack=pack, profile=profile.name
                ):
                    self.error(f"{label}: {key}: {problem}", path)


#: Keys of a state holding one entry per player.
_PER_PLAYER: tuple[str, ...] = ("hands", "hand_sizes", "opened", "totals", "deal_scores")
#: Keys of a state naming one seat.
_SEATS: tuple[str, ...] = ("turn", "dealer", "closer")


def _expected_keys(expected: Any) -> Iterator[tuple[str, Any]]:
    """(key, value) of an expected state, each branch of a whole state written per option."""
    if is_by_option(expected):
        _point, branches = branches_of(expected["by_option"], None)
        for branch in branches.values():
            yield from _expected_keys(branch)
    elif isinstance(expected, Mapping):
        yield from ((str(key), value) for key, value in expected.items())


def _plain_values(value: Any, depth: int = 0) -> Iterator[Any]:
    """The plain values one expected key may take: through ``by_option`` branches and
    ``{expect: …}`` wrappers (bounded: the schema bounds the nesting)."""
    if depth > 8 or (isinstance(value, str) and value == NOT_ASSERTED):
        return
    if is_by_option(value):
        _point, branches = branches_of(value["by_option"], None)
        for branch in branches.values():
            yield from _plain_values(branch, depth + 1)
    elif is_wrapper(value):
        yield from _plain_values(value["expect"], depth + 1)
    else:
        yield value


def _seat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat_problems(key: str, value: Any, players: int, pack_size: int) -> Iterator[str]:
    """What in one plain expected value does not fit ``players`` seats."""
    if key in _PER_PLAYER and isinstance(value, list) and len(value) != players:
        yield f"{key} has {len(value)} entries for {players} players"
    if key == "hands" and isinstance(value, Mapping):  # per seat: {0: [...]}
        for seat in value:
            if not _seat(seat) or not 0 <= seat < players:
                yield f"hands names seat {seat!r}, out of range for {players} players"
    if key in _SEATS and _seat(value) and not 0 <= value < players:
        yield f"{key} {value} is out of range for {players} players"
    if key == "winners" and isinstance(value, list):
        for winner in value:
            if _seat(winner) and not 0 <= winner < players:
                yield f"winner {winner} is out of range for {players} players"
    if key == "table" and isinstance(value, list):
        for meld in value:
            owner: Any = meld.get("owner") if isinstance(meld, Mapping) else None
            if _seat(owner) and not 0 <= owner < players:
                yield f"table meld owner {owner} is out of range for {players} players"
    if key in ("stock_size", "discard_size") and _seat(value) and value > pack_size:
        yield f"{key} {value} is more than the {pack_size} cards of the pack"
    if key == "hand_sizes" and isinstance(value, list) and sum(filter(_seat, value)) > pack_size:
        yield f"hand_sizes add up to more than the {pack_size} cards of the pack"


def _named_cards(key: str, value: Any) -> list[str]:
    """The cards a plain expected value names, for the pack check."""
    if key == "hands":
        hands = value.values() if isinstance(value, Mapping) else value
        if isinstance(hands, list) or isinstance(value, Mapping):
            return [c for h in hands if isinstance(h, list) for c in h if isinstance(c, str)]
    if key == "table" and isinstance(value, list):
        return [
            c
            for meld in value
            if isinstance(meld, Mapping) and isinstance(meld.get("cards"), list)
            for c in meld["cards"]
            if isinstance(c, str)
        ]
    return []
