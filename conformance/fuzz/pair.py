"""The engine-versus-reference pair: both adapters, each request put to both, and the
answers compared (acceptance, reason, state) into a :class:`~conformance.fuzz.model.Divergence`.

The reference is started as a subprocess configured with the engine's declared rulings;
where the protocol lets the engine differ (a recycled stock's order, its own run
arrangement), the reference loads the engine's state so that later steps agree."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from conformance.adapter.declarations import Declarations, declarations
from conformance.adapter.engine import EngineSession, Handshake
from conformance.errors import EngineError, EngineReportedError
from conformance.grading.compare import (
    ENDED_PHASES,
    Mismatch,
    compare_state,
    compare_unchanged,
    dealt_from,
    seated_for,
)
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.optionfacts import with_options
from conformance.knowledge.profiles import ProfileData, find_profile

from .judge import (
    DISPUTED_POINTS,
    OP_RULES,
    REASON_ORDER,
    RUN_LENGTH_RULE,
    action_rule,
    answer_outcome,
    canonical_state,
    classify_state,
    deciding_rules,
    expected_state,
    field_of,
    length_decides,
    new_game_check,
    pool_mismatches,
    reason_rule,
    recycle_drawer,
    recycled_in,
    reference_rulings,
    same_fair_family,
    same_reason,
)
from .model import Divergence, EndGame, EngineFault, FuzzOptions, SetupRefused, Trace
from .readings import both_true, fair_reading, take_engine_state
from .states import built_state


class Pair:
    """The engine under test and the reference, each in its own adapter process."""

    def __init__(
        self,
        engine_argv: Sequence[str],
        options: FuzzOptions,
        catalogue: Catalogue,
        *,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.options = options
        self.catalogue = catalogue
        self.engine = EngineSession(engine_argv, timeout=options.timeout, env=env)
        self.engine.start()
        hs = self.engine.handshake
        assert hs is not None
        #: The handshake as read in the fuzzed profile (the report's ``engine``).
        self.handshake: Handshake = hs.for_profile(options.profile)
        #: What the engine declares in this profile: the one view every judge reads
        #: (conformance/adapter/declarations.py); nothing below reads the handshake's fields.
        self.decl: Declarations = declarations(hs, options.profile, catalogue)
        #: The profile's facts as the engine plays them under its rulings: its packs
        #: (DISPUTE-78 ``always_108``, DISPUTE-61 ``two_jokers``...), its hand sizes and wild
        #: ranks: what decks and states are built from (only setups its declarations allow),
        #: as ``run`` and the laws compose them.
        self.facts: ProfileData = with_options(find_profile(options.profile), self.decl.ruling)
        self.rulings, self.warnings = reference_rulings(self.decl)
        self.rulings.update(dict(options.reference_rulings))
        ref_argv = [*options.reference_argv]
        for point, option in self.rulings.items():
            ref_argv += ["--ruling", f"{point}={option}"]
        # The reference reads the protocol as the engine declares it does (it plays every
        # interface choice): an engine that arranges runs is asked the same question, so a
        # query on a run listed out of order is never a finding against it.
        for key, value in self.decl.interface.items():
            if value == "engine":
                ref_argv += ["--interface", f"{key}={value}"]
        self.reference_argv = ref_argv
        self.reference = EngineSession(ref_argv, timeout=options.timeout, env=env)
        try:
            self.reference.start()
        except EngineError:
            self.engine.close()
            raise
        decl = self.decl
        #: Rejection reasons are compared: the engine claims them and the campaign asks
        #: for it (``--reasons exact``, the default; ``outcome`` compares acceptance only).
        self.reasons = "reasons" in decl.capabilities and options.reasons != "outcome"
        self.runs_as_sets = decl.runs_as_sets
        #: A lay-off's reason is judged by its cards at the named end (the engine takes
        #: the end it is asked for, its jokers where they are listed); else by family (it
        #: may have judged another end, or its joker standing elsewhere).
        self.by_cards = decl.run_ends == "requested" and decl.run_order == "listed"
        self.can_load = "turns" in decl.capabilities
        self.can_deal = "deals" in decl.capabilities
        self.can_query = "melds" in decl.capabilities
        #: The player counts games seat: the engine's within the profile's.
        self.player_counts = [p for p in decl.players if p in decl.profile_players] or [
            min(decl.profile_players)
        ]
        self.unsupported_ops: set[str] = set()
        #: Each op (``act:<type>``) the engine answered, and refused as ``unsupported``, at
        #: a player count (``act:discard at 2 players``): one on both sides is refused
        #: where it would be played, which hides what it would fail.
        self.answered_at: set[str] = set()
        self.refused_at: set[str] = set()
        if self.can_load:
            self._probe_load_state()
        self.ref_state: dict[str, Any] = {}
        self.eng_state: dict[str, Any] = {}
        self.steps = 0
        #: Whether the last deal compared was dealt from a first player of the engine's own
        #: (an engine that keeps no dealer, _state_diff).
        self.dealt_own_way = False
        self.queries = 0
        #: Requests both adapters answered, so compared (graded): an engine that answers
        #: ``unsupported`` to everything has none, and its campaign grades nothing.
        self.compared = 0
        #: What the games exercised: accepted actions by type, recycles, cancels, closes.
        self.events: Counter[str] = Counter()
        #: Why games stopped before their last step (an op unsupported, a state refused).
        self.ended_early: Counter[str] = Counter()
        #: While a list, the traces of the game under way over which the engine and the
        #: reference agreed (what a hint must not break, conformance/fuzz/explain.py).
        self.agreed: list[Trace] | None = None

    def _probe_load_state(self) -> None:
        """Learn once, before any game, whether the engine loads states, so that every
        worker plays the same games for a seed (an engine may lack ``load_state``)."""
        rng = random.Random("carioca-fuzz:probe")
        players = self.player_counts[0]
        state = built_state(rng, players, 1, 0, [0] * players, self.options.profile)
        try:
            self.engine.request("load_state", state=state)
        except EngineReportedError as exc:
            if exc.kind == "unsupported":
                self.can_load = False
                self.unsupported_ops.add("load_state")

    def agreed_on(self, trace: Trace) -> None:
        """Keep ``trace``, played with no divergence, when this game's agreed traces are
        kept (:attr:`agreed`)."""
        if self.agreed is not None:
            self.agreed.append(trace)

    def close(self) -> None:
        """Say bye to both adapters."""
        self.engine.close()
        self.reference.close()

    def restart_engine(self) -> None:
        """After an engine crash: start it again (the reference too, if it died)."""
        if not self.engine.alive:
            self.engine.restart()
        if not self.reference.alive:
            self.reference.restart()

    # -- requests ----------------------------------------------------------------------

    def _both(self, op: str, **fields: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        try:
            ref = self.reference.request(op, **fields)
        except EngineReportedError as exc:
            raise EndGame(f"the reference answered {exc.kind} to {op}: {exc.message}") from None
        label = op if op != "act" else f"act:{fields['action']['type']}"
        seated = fields.get("players") or len(self.ref_state.get("hands") or ()) or None
        at = label if seated is None else f"{label} at {seated} players"
        try:
            eng = self.engine.request(op, **fields)
        except EngineReportedError as exc:
            if exc.kind == "unsupported":
                self.unsupported_ops.add(label)
                self.refused_at.add(at)
                raise EndGame(f"engine: {op} unsupported") from None
            self.compared += 1  # an error answer is graded: it is a divergence
            self.answered_at.add(at)
            raise EngineFault(op, exc, ref) from None
        self.compared += 1
        self.answered_at.add(at)
        return ref, eng

    # -- setup and steps ---------------------------------------------------------------

    def setup(self, setup: Mapping[str, Any]) -> Divergence | None:
        """Deal or load the setup on both; compare the states."""
        op = setup["op"]
        fields = {k: v for k, v in setup.items() if k != "op"}
        if op == "load_state":
            try:
                ref = self.reference.request("load_state", **fields)
            except EngineReportedError as exc:
                raise SetupRefused(f"the reference refuses the setup: {exc}") from None
            try:
                eng = self.engine.request("load_state", **fields)
            except EngineReportedError as exc:
                if exc.kind == "unsupported":
                    self.can_load = False
                    self.unsupported_ops.add("load_state")
                    raise EndGame("engine: load_state unsupported") from None
                self.compared += 1
                # The state the reference loaded: the example's expected state (a draft
                # of the refusal checks it), never the one a game before left here.
                self.ref_state = ref["state"]
                if exc.kind == "invalid_state":
                    return Divergence(
                        "CARDS-1",
                        "load_state",
                        "setup",
                        "engine refuses a reachable state",
                        [str(exc)],
                    )
                return Divergence(
                    "CARDS-1", "load_state", "error", f"engine answered {exc.kind}", [str(exc)]
                )
        else:
            try:
                ref, eng = self._both(op, **fields)
            except EngineFault as exc:
                self.ref_state = exc.reference.get("state", self.ref_state)
                return Divergence(
                    OP_RULES.get(op, "DEAL-3"),
                    op,
                    "error",
                    f"engine answered {exc.kind}",
                    [str(exc)],
                )
        # A load_state both answered is not counted as graded: the harness built the state,
        # and an engine that only echoes it back holds it (a difference is still a finding).
        self.ref_state, self.eng_state = ref["state"], eng["state"]
        if op == "new_game":
            # The shuffle and the dealer drawn by lot are each engine's own: compare what
            # the rules fix (the counts, the dealer among the players, who moves first).
            found = compare_state(
                new_game_check(ref["state"]), eng["state"], unmodelled=self.decl.unmodelled
            )
        else:
            found = self._state_diff(
                ref["state"],
                eng["state"],
                recycled=False,
                first_turn=op,
                totals_before=fields.get("totals"),
                deck=fields.get("deck"),
            )
        if found:
            return classify_state(op, found, ref["state"], eng["state"], kind="setup")
        allowed = op == "load_state" or self.can_load
        take_engine_state(self, allowed=allowed, dealt=self.dealt_own_way)
        return None

    def step(self, step: Mapping[str, Any], *, deal_mode: bool) -> Divergence | None:
        """Put one step to both; return the divergence, if any."""
        before = self.ref_state
        eng_before = self.eng_state
        op = step["op"]
        action = step.get("action")
        label = action["type"] if action is not None else op
        try:
            if action is not None:
                ref, eng = self._both("act", action=action)
            else:
                ref, eng = self._both(op, deck=step["deck"])
        except EngineFault as exc:
            self.steps += 1
            return Divergence(
                OP_RULES.get(label, "TURN-1"),
                label,
                "error",
                f"engine answered {exc.kind}",
                [str(exc)],
            )
        # Counted once both answered: a step the engine answered unsupported was not played.
        self.steps += 1
        if action is not None and eng.get("accepted") and not ref.get("accepted"):
            ref = fair_reading(self, before, action, ref)
        ref_after, eng_after = ref["state"], eng["state"]
        accepted = bool(ref.get("accepted"))
        recycled = accepted and recycled_in(before, ref_after, action)
        drawer = recycle_drawer(before, action) if recycled else None
        self.ref_state, self.eng_state = ref_after, eng_after
        if accepted != bool(eng.get("accepted")):
            reason = ref.get("reason") if not accepted else eng.get("reason")
            rule, disputed = self._answer_rule(label, action or {}, before, ref, reason)
            shown = answer_outcome(eng) if self.reasons or eng.get("accepted") else "rejected"
            summary = f"reference {answer_outcome(ref)}, engine {shown}"
            mismatch = [f"{label}: {summary}"]
            return Divergence(rule, label, "outcome", summary, mismatch, disputed=disputed)
        if not accepted:
            if self.reasons and not same_reason(
                ref.get("reason"), eng.get("reason"), action, before, by_cards=self.by_cards
            ):
                rule, disputed = self._answer_rule(
                    label, action or {}, before, ref, ref.get("reason")
                )
                summary = (
                    f"reference rejected ({ref.get('reason')}), "
                    f"engine rejected ({eng.get('reason')})"
                )
                order = self.reason_order(before, action, ref.get("reason"), eng.get("reason"))
                if order is not None:
                    return Divergence(
                        order[0],
                        label,
                        REASON_ORDER,
                        summary,
                        [summary],
                        rules=order,
                        also_fair=(str(eng.get("reason")),),
                    )
                return Divergence(rule, label, "reason", summary, [summary], disputed=disputed)
            # Trios are multisets, and so are runs an engine arranges itself: a rejection
            # may list them its own way and still leave the state unchanged.
            changed = compare_unchanged(
                canonical_state(eng_before, self.runs_as_sets),
                canonical_state(eng_after, self.runs_as_sets),
                unmodelled=self.decl.unmodelled,
            )
            if changed:
                return Divergence(
                    "DISPUTE-35",
                    label,
                    "unchanged",
                    "a rejected action changed the engine's state: "
                    + ", ".join(sorted({field_of(m.what) for m in changed})),
                    [str(m) for m in changed],
                )
            return None
        count_events(self.events, label, before, ref_after, recycled)
        found = self._state_diff(
            ref_after,
            eng_after,
            recycled=recycled,
            drawer=drawer,
            first_turn=label,
            totals_before=before.get("totals"),
            deck=step.get("deck"),
        )
        if drawer is not None:
            found += pool_mismatches(ref_after, eng_after, before, drawer)
        if found:
            return classify_state(
                label, found, ref_after, eng_after, kind="state", recycled=recycled
            )
        take_engine_state(self, allowed=not deal_mode, dealt=self.dealt_own_way)
        return None

    def reason_order(
        self,
        before: dict[str, Any],
        action: Mapping[str, Any] | None,
        ref_reason: Any,
        eng_reason: Any,
    ) -> tuple[str, ...] | None:
        """The rules of both reasons (the reference's first, in the profile's IDs) when the
        engine's reason is true of the state too (:func:`~conformance.fuzz.readings.both_true`):
        the action breaks both rules, and which is named first is the engine's choice."""
        if action is None or not isinstance(ref_reason, str) or not isinstance(eng_reason, str):
            return None
        known = self.catalogue.reasons
        if ref_reason not in known or eng_reason not in known:
            return None
        if not both_true(self, before, action, ref_reason, eng_reason):
            return None
        rules = (known[ref_reason].rule, known[eng_reason].rule)
        return tuple(dict.fromkeys(self.facts.rule_id(r) for r in rules))

    def _answer_rule(
        self,
        label: str,
        request: Mapping[str, Any],
        before: Mapping[str, Any],
        ref: Mapping[str, Any],
        reason: Any,
    ) -> tuple[str, bool]:
        """The rule an outcome or reason divergence is filed under, and whether a disputed
        point decides it: the run-length rule for a run of 14 cards it decides, else the
        rule of what the action is (:func:`~conformance.fuzz.judge.action_rule`: an empty
        stock, a wrap, a natural wild card), else the reason's rule, else the op's."""
        if length_decides(label, request, before, ref):
            return RUN_LENGTH_RULE, True
        took = bool(ref.get("accepted") or ref.get("valid"))
        by_action = action_rule(label, request, before, self.facts, reference_took=took)
        if by_action is not None:
            return by_action, by_action in DISPUTED_POINTS
        return reason_rule(
            self.catalogue, reason if isinstance(reason, str) else None, label
        ), False

    def _state_diff(
        self,
        ref_state: Mapping[str, Any],
        eng_state: Mapping[str, Any],
        *,
        recycled: bool,
        drawer: int | None = None,
        first_turn: str = "",
        totals_before: Any = None,
        deck: Any = None,
    ) -> list[Mismatch]:
        """The state check's mismatches. After an op that starts a deal (``first_turn``),
        who moves first reads the dealer: for an engine that keeps none, its own first player
        was dealt the first hand, so its deal is read from the reference's first player
        (:func:`conformance.grading.compare.seated_for`; ``totals_before``: the totals before the
        deal; ``deck``: the deck dealt, which tells the seat the engine dealt from), and the
        turn is not compared. ``dealt_own_way`` says whether it was read so."""
        unmodelled = self.decl.unmodelled_after(first_turn)
        first = ref_state.get("turn")
        self.dealt_own_way = False
        if self.decl.picks_first_player(first_turn) and isinstance(first, int):
            source = dealt_from(eng_state, deck)
            if source is not None and source != first:
                eng_state = seated_for(eng_state, first, source, totals_before) or eng_state
                self.dealt_own_way = True
        return compare_state(
            expected_state(ref_state, recycled=recycled, drawer=drawer),
            eng_state,
            unmodelled=unmodelled,
            runs_as_sets=self.runs_as_sets,
        )

    def query(self, setup: Mapping[str, Any]) -> tuple[Divergence | None, dict[str, Any]]:
        """Put one melds-level query to both; compare valid/reason or points."""
        op = setup["query"]
        fields = {k: v for k, v in setup.items() if k != "query"}
        try:
            ref, eng = self._both(op, **fields)
        except EngineFault as exc:
            self.queries += 1
            summary = f"engine answered {exc.kind}"
            return Divergence(OP_RULES[op], op, "error", summary, [str(exc)]), exc.reference
        self.queries += 1  # answered by both (one answered unsupported was not put)
        if op == "penalty":
            if ref.get("points") != eng.get("points"):
                summary = f"reference {ref.get('points')} points, engine {eng.get('points')}"
                return Divergence("SCORE-2", op, "check", "points differ", [summary]), ref
            return None, ref
        if ref.get("valid") != eng.get("valid"):
            reason = ref.get("reason") if not ref.get("valid") else eng.get("reason")
            rule, disputed = self._answer_rule(op, fields, {}, ref, reason)
            summary = f"reference valid={ref.get('valid')}, engine valid={eng.get('valid')}"
            if not ref.get("valid") and ref.get("reason"):
                summary += f" (reference: {ref['reason']})"
            found = Divergence(rule, op, "check", summary, [summary], disputed=disputed)
            second = self.second_fault(op, fields, ref)
            if second is not None:
                # The meld breaks two rules: the finding is filed under both.
                rules = deciding_rules(self.catalogue, self.facts, rule, disputed)
                other = self.facts.rule_id(self.catalogue.reasons[second].rule)
                found = replace(found, rule=rules[0], rules=(*rules, other))
                found = replace(found, rules=tuple(dict.fromkeys(found.rules)))
            return found, ref
        if (
            self.reasons
            and ref.get("valid") is False
            and not same_fair_family(ref.get("reason"), eng.get("reason"))
        ):
            rule, disputed = self._answer_rule(op, fields, {}, ref, ref.get("reason"))
            summary = f"reference reason {ref.get('reason')}, engine reason {eng.get('reason')}"
            second = self.second_fault(op, fields, ref)
            if second is not None and second == eng.get("reason"):
                # Both reasons true of the meld (docs/reasons.md): the engine's choice.
                rules = deciding_rules(self.catalogue, self.facts, rule, disputed)
                other = self.facts.rule_id(self.catalogue.reasons[second].rule)
                both = tuple(dict.fromkeys((*rules, other)))
                order = Divergence(
                    both[0], op, REASON_ORDER, summary, [summary], rules=both, also_fair=(second,)
                )
                return order, ref
            return Divergence(rule, op, "reason", summary, [summary], disputed=disputed), ref
        return None, ref

    def second_fault(
        self, op: str, fields: Mapping[str, Any], ref: Mapping[str, Any]
    ) -> str | None:
        """The other fault of a ``check_meld`` run the reference refuses as too long: the
        reason the reference gives with a card taken off either end (a 14-card Pagat run
        with a gap: ``run_gap`` beside ``run_size``, docs/reasons.md); None when the
        shortened run is valid at both ends, or the refusal is another."""
        meld = fields.get("meld")
        if (
            op != "check_meld"
            or ref.get("reason") != "run_size"
            or not isinstance(meld, Mapping)
            or meld.get("kind") != "run"
        ):
            return None
        cards = list(meld.get("cards") or [])
        if len(cards) <= self.facts.run_size:
            return None  # too short, not too long: no card to take off
        for shorter in (cards[1:], cards[:-1]):
            try:
                answer = self.reference.request(
                    "check_meld", **{**fields, "meld": {**meld, "cards": shorter}}
                )
            except EngineReportedError:
                continue
            reason = answer.get("reason")
            known = reason in self.catalogue.reasons
            if answer.get("valid") is False and known and reason != "run_size":
                return str(reason)
        return None


def count_events(
    events: Counter[str],
    label: str,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    recycled: bool,
) -> None:
    """Count what an accepted step exercised: its type, a recycle, a close, a cancel, a
    game end and a tied game end (the report's ``events``)."""
    events[label] += 1
    if recycled and after["phase"] != "cancelled":
        events["recycle"] += 1
    if after["phase"] != before["phase"] and after["phase"] in ENDED_PHASES:
        events[
            {"deal_over": "close", "cancelled": "cancel", "game_over": "game_over"}[after["phase"]]
        ] += 1
        winners = after.get("winners")
        if after["phase"] == "game_over" and isinstance(winners, list) and len(winners) > 1:
            events["tied game end"] += 1  # END-5: equal lowest totals share the win
