"""Building a Scenario from one YAML document: schema, semantic checks, expansion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

from conformance.io.validation import best_match_of
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.optionfacts import Ruling, with_options
from conformance.knowledge.profiles import ProfileData, ProfileError, Profiles, default_profiles
from conformance.scenarios.ids import DRAFT_IDS, canonical_json, is_draft_id
from conformance.scenarios.model import (
    Check,
    DeckSpec,
    Disputed,
    Level,
    Scenario,
    Setup,
    Step,
    StepKind,
)
from conformance.scenarios.names import CatalogueChecks
from conformance.scenarios.plan import Planner
from conformance.scenarios.semantics import StateChecks
from conformance.scenarios.yamldoc import _jsonable, _mark, _pointer, _validator


class DocChecker(StateChecks, CatalogueChecks):
    """Validates and expands one YAML document into a Scenario, collecting errors."""

    def __init__(
        self,
        node: yaml.Node,
        data: Any,
        label: str,
        catalogue: Catalogue | None,
        profiles: Profiles | None = None,
    ):
        super().__init__(node, data, label)
        self.profiles = profiles if profiles is not None else default_profiles()
        self.catalogue = catalogue

    def check_schema(self) -> bool:
        if not isinstance(self.data, Mapping):
            self.error("a scenario document must be a mapping")
            return False
        doc = _jsonable(self.data)
        found = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
        # Report one error per location; the best match explains anyOf/oneOf failures.
        seen: set[str] = set()
        for err in found:
            best = best_match_of(err)
            pointer = _pointer(best.absolute_path)
            if pointer + best.message in seen:
                continue
            seen.add(pointer + best.message)
            self.error(f"schema: at {pointer}: {best.message}", list(best.absolute_path))
        return not found

    # -- semantics ------------------------------------------------------------

    def build(self) -> Scenario | None:
        if not self.check_schema():
            return None
        data = self.data
        self.check_catalogue()
        if is_draft_id(data["id"]) and data["review"] != "draft":
            self.error(
                f"id {data['id']} is in the range reserved for fuzz drafts "
                f"(cc-{DRAFT_IDS[0]}..cc-{DRAFT_IDS[1]}); a reviewed case takes a corpus id "
                "(docs/fuzzing.md, 'Draft scenarios')",
                ["id"],
            )
        level: Level = data["level"]
        checks: list[Check] = []
        for i, item in enumerate(data.get("checks", [])):
            line = _mark(self.node, ["checks", i])[0]
            if "check_meld" in item:
                request = {"meld": item["check_meld"], "initial": item.get("initial", True)}
                checks.append(Check(i, "check_meld", request, item["expect"], line))
            elif "check_contract" in item:
                checks.append(
                    Check(i, "check_contract", dict(item["check_contract"]), item["expect"], line)
                )
            else:
                checks.append(Check(i, "penalty", {"cards": item["penalty"]}, item["expect"], line))
        setup: Setup | None = None
        players: int | None = None
        setups: dict[str, Setup] = {}
        known = self.profiles_of(data)
        if not known:
            return None
        raw_setup = data.get("setup")
        if raw_setup is not None:
            # Checked and expanded once per listed profile: each has its own pack and facts.
            for facts in known:
                built = self.build_setup(raw_setup, facts, data["profiles"])
                if built is not None:
                    setups[facts.name] = built
            if self.errors:
                return None
            setup = setups[known[0].name]
            players = _setup_players(setup)
        steps: list[Step] = []
        for i, item in enumerate(data.get("steps", [])):
            path: list[Any] = ["steps", i]
            line = _mark(self.node, path)[0]
            if "action" in item:
                action = item["action"]
                if level == "melds":
                    self.error("steps are not allowed at level melds", path)
                if players is not None and not 0 <= action["player"] < players:
                    self.error(
                        f"player {action['player']} is out of range for {players} players",
                        [*path, "action", "player"],
                    )
                steps.append(
                    Step(
                        i,
                        "action",
                        action,
                        None,
                        item.get("expect"),
                        item.get("state"),
                        line,
                        dict(item.get("assumes", {})),
                    )
                )
            else:
                kind: StepKind = "next_deal" if "next_deal" in item else "redeal"
                if level != "deals":
                    self.error(f"{kind} steps need level deals", [*path, kind])
                spec = DeckSpec.from_mapping(item[kind])
                if spec.cut is not None and kind == "redeal":
                    # redeal is the same deal dealt again: the protocol gives it no cut.
                    self.error("a redeal step takes no cut (only next_deal)", [*path, kind, "cut"])
                for facts in known:
                    self.check_deck(spec, [*path, kind], players, spec.deal_number, facts)
                steps.append(
                    Step(
                        i,
                        kind,
                        None,
                        spec,
                        item.get("expect"),
                        item.get("state"),
                        line,
                        dict(item.get("assumes", {})),
                    )
                )
        if players is not None:
            self.check_expected_states(data, players, known)
        if self.errors:
            return None
        disputed = None
        if "disputed" in data:
            d = data["disputed"]
            disputed = Disputed(
                d["id"], d.get("question", ""), tuple(d["options"]), dict(d["profiles"])
            )
        return Scenario(
            id=data["id"],
            title=data["title"],
            rules=tuple(data["rules"]),
            source=data["source"],
            profiles=tuple(data["profiles"]),
            level=level,
            tags=tuple(data.get("tags", ())),
            review=data["review"],
            path=self.label,
            line=_mark(self.node, [])[0],
            disputed=disputed,
            assumes=dict(data.get("assumes", {})),
            interface=dict(data.get("interface", {})),
            checks=tuple(checks),
            setup=setup,
            steps=tuple(steps),
            final=data.get("final"),
            setups=setups,
            plans=Planner(data, self.line_of, self.catalogue, known).plans(checks, steps),
            canonical=canonical_json(data),
        )

    def _ruling(self, profile: str, assumes: Mapping[str, Any]) -> Ruling:
        """The option a case plays on each point in ``profile``: its ``assumes``, else the
        profile's own (by the catalogue)."""

        def ruling(point: str) -> str | None:
            if point in assumes:
                return str(assumes[point])
            dispute = self.catalogue.disputes.get(point) if self.catalogue else None
            return dispute.profiles.get(profile) if dispute is not None else None

        return ruling

    def check_expected_states(
        self, data: Mapping[str, Any], players: int, known: list[ProfileData]
    ) -> None:
        """``final`` and each step's ``state`` against the seats and each profile's pack."""
        expected: list[tuple[Any, list[Any], str]] = [(data.get("final"), ["final"], "final")]
        expected += [
            (item.get("state"), ["steps", i, "state"], f"step {i + 1} state")
            for i, item in enumerate(data.get("steps", []))
            if isinstance(item, Mapping)
        ]
        for facts in known:
            for value, path, label in expected:
                if value is not None:
                    self.check_expected_state(value, players, facts, path, label)

    def profiles_of(self, data: Mapping[str, Any]) -> list[ProfileData]:
        """The facts of every profile the case lists; an unknown name is an error."""
        known: list[ProfileData] = []
        assumes = data.get("assumes") or {}
        for i, name in enumerate(data["profiles"]):
            try:
                facts = self.profiles[name]
            except ProfileError as exc:
                self.error(str(exc), ["profiles", i])
                continue
            # A case that assumes an option is built as that option plays (DISPUTE-78
            # always_108: a 108-card chilean pack), as a draft of the fuzzer is.
            known.append(
                with_options(facts, self._ruling(facts.name, assumes)) if assumes else facts
            )
        return known if len(known) == len(data["profiles"]) else []

    def build_setup(
        self, raw_setup: Mapping[str, Any], facts: ProfileData, listed: Sequence[str]
    ) -> Setup | None:
        """The setup expanded and checked with one profile's facts (None after an error)."""
        before = len(self.errors)
        if "state" in raw_setup:
            raw_state = raw_setup["state"]
            name = raw_state.get("profile", facts.name)
            if name not in listed:
                self.error(
                    f"state profile {name!r} is not in profiles", ["setup", "state", "profile"]
                )
                return None
            players = raw_state["players"]
            pack = facts.pack(players) if players in facts.players else None
            # Each profile's copy names that profile: the run sends the one it plays.
            state = self.expand_state({**raw_state, "profile": facts.name}, facts.name, pack)
            self.check_state(state, ["setup", "state"], "stock" in raw_state, facts)
            if len(self.errors) != before:
                return None
            return Setup(state=state, stock_given="stock" in raw_state)
        if "deal" in raw_setup:
            raw_deal = raw_setup["deal"]
            players = raw_deal["players"]
            deal_number = raw_deal["deal_number"]
            if not self.check_players(players, facts, ["setup", "deal", "players"]):
                return None
            spec = DeckSpec.from_mapping(raw_deal)
            self.check_deck(spec, ["setup", "deal"], players, deal_number, facts)
            if not 0 <= raw_deal["dealer"] < players:
                self.error(
                    f"dealer {raw_deal['dealer']} is out of range for {players} players",
                    ["setup", "deal", "dealer"],
                )
            totals = raw_deal.get("totals", [0] * players)
            if len(totals) != players:
                self.error(
                    f"totals has {len(totals)} entries for {players} players",
                    ["setup", "deal", "totals"],
                )
            if len(self.errors) != before:
                return None
            try:
                deck = spec.compose(players, raw_deal["dealer"], deal_number, facts.pack(players))
            except ValueError as exc:
                self.error(f"deck: {exc}", ["setup", "deal"])
                return None
            return Setup(
                deck_spec=spec,
                deal={
                    "profile": raw_deal.get("profile", facts.name),
                    "players": players,
                    "deal_number": deal_number,
                    "dealer": raw_deal["dealer"],
                    "totals": list(totals),
                    "deck": deck,
                    # perla's cut (docs/protocol.md §10), sent only when the case gives one.
                    **({"cut": raw_deal["cut"]} if "cut" in raw_deal else {}),
                },
            )
        players = raw_setup["new_game"]["players"]
        if not self.check_players(players, facts, ["setup", "new_game", "players"]):
            return None
        if "lot" in raw_setup["new_game"]:
            self.check_lot(raw_setup["new_game"]["lot"], players, facts)
            if len(self.errors) != before:
                return None
        return Setup(new_game={"profile": facts.name, **raw_setup["new_game"]})

    def check_lot(self, lot: Sequence[str], players: int, facts: ProfileData) -> None:
        """A ``new_game`` ``lot`` (docs/protocol.md §10): one card per player, in a profile
        whose first dealer is drawn by cards (the one that cuts: the lowest card cuts,
        PERLA-DEAL-1), with one lowest card and no joker, which the text ranks nowhere."""
        path = ["setup", "new_game", "lot"]
        if not facts.cut:
            self.error(
                f"profile {facts.name} draws no card for the first dealer: only a profile "
                "that cuts (perla, docs/protocol.md §10) takes a lot",
                path,
            )
            return
        if len(lot) != players:
            self.error(f"lot has {len(lot)} cards for {players} players", path)
            return
        if "JK" in lot:
            self.error("a lot holds no joker: the text ranks none for the draw", path)
            return
        # Aces high (003 L27): 2 lowest, then 3 to K, the ace highest.
        order = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
        ranks = [order.index(card[:-1]) for card in lot]
        if ranks.count(min(ranks)) > 1:
            self.error("two players draw the lowest rank: the text settles no tie", path)


def _setup_players(setup: Setup) -> int:
    given = setup.state or setup.deal or setup.new_game
    assert given is not None
    return int(given["players"])
