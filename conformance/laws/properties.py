"""Observable laws checked through the protocol, for any engine that claims ``deals``.

The scenario corpus pins exact answers for hand-built positions; these checks instead play
whole seeded deals against the engine and watch for laws that must hold in *every* state:

- ``conservation`` (CARDS-1): every returned state holds exactly the profile's pack (108
  cards in argentine; 106, or 160 for 5-6 players, in chilean);
- ``rejected-leaves-unchanged`` (DISPUTE-35): after a rejected action the state equals
  the state before it (docs/protocol.md §6);
- ``illegal-actions-rejected`` (TURN-1, TURN-2, TURN-10): probes that break a rule outright
  (acting out of turn, drawing twice, using a card not held) are refused;
- ``determinism`` (DEAL-4): the same deck and the same actions give the same states;
- ``scoring-at-close`` (SCORE-1, SCORE-2, SCORE-4, END-1, END-4, END-5): at a close the
  closer scores 0 (or the profile's ``lowering_turn_closer_score`` when the hand emptied on
  the laying-down turn: perla's -30), everyone else the value of their held cards, and totals
  add up; a deal ending without a closer (an empty stock under DISPUTE-75 ``round_ends``, as
  ``perla`` plays) scores every hand.
- ``random-choices`` (DEAL-1, DEAL-4): over ``LOT_GAMES`` new games with different seeds, the
  first dealer drawn by lot is not always the same player, and the shuffles do not all deal
  the same hands. A fixed-seed scenario can only check that a dealer is allowed; this law
  catches an engine that always picks one. It never flakes: the seeds are fixed, and an
  engine that draws fairly fails it with probability 2 x (1/2)^32 < 1e-9.

Every law reads the engine's declarations in the profile through
conformance/adapter/declarations.py, as ``run`` does: deals seat only the counts it plays,
scoring follows its rulings, fields it
declares ``unmodelled`` are never compared (the harness uses what it knows itself where it
can: who emptied their hand, the totals it sent), runs of an engine that arranges them are
compared as multisets, and nothing depends on a recycled stock's order (docs/protocol.md
§2, §6). A law that could check nothing (every deal answered ``unsupported``, no deal
closed) is reported *not checked*, which is never a pass.

The harness never imports an engine (not even the reference): the playing policy and the
small opening search are written here from docs/protocol.md and docs/rules.md, and the
packs, player counts, deals, contracts, wild ranks and card values come from the profile's
data (conformance/data/profiles.json). Everything is seeded with ``random.Random(seed)``,
so a run replays.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from conformance.adapter.declarations import Declarations, declarations
from conformance.adapter.engine import EngineSession
from conformance.errors import EngineError, EngineReportedError, InvalidRequest, SessionError
from conformance.grading.compare import compare_unchanged, strip_private
from conformance.grading.results import PropertyResult
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.optionfacts import pack as engine_pack
from conformance.knowledge.profiles import DEFAULT_PROFILE, ProfileData, default_profiles
from conformance.laws.diffs import told
from conformance.laws.greedy import find_opening, keep_score, lay_off_candidates
from conformance.run.runner import RunOptions, start_session

#: Actions the harness plays in one deal before it gives up on a close (no law is broken by
#: a long deal; the cap only bounds the run time).
MAX_ACTIONS: Final = 400
#: Actions of the first deal replayed by the determinism check.
REPLAY_ACTIONS: Final = 60
#: Probe an illegal action every this many steps.
PROBE_EVERY: Final = 3
#: New 2-player games whose first dealer must not all agree (``random-choices``): a fair lot
#: gives the same dealer 32 times in a row with probability 2 x (1/2)^32, about 4.7e-10.
LOT_GAMES: Final = 32

PropertyName = str


#: What one refused action costs its player at the close under DISPUTE-35 ``penalty``
#: (docs/rules.md, DISPUTE-35 "Played as").
PENALTY_POINTS: Final = 10

RULES: Final[dict[str, tuple[str, ...]]] = {
    "conservation": ("CARDS-1",),
    "rejected-leaves-unchanged": ("DISPUTE-35",),
    "illegal-actions-rejected": ("TURN-1", "TURN-2", "TURN-10"),
    "determinism": ("DEAL-4",),
    "scoring-at-close": ("SCORE-1", "SCORE-2", "SCORE-4", "END-1", "END-4", "END-5"),
    "random-choices": ("DEAL-1", "DEAL-4"),
}


#: A scoring rule of any profile: SCORE-2, CHILE-SCORE-2, PERLA-SCORE-1...
_SCORING_RULE = re.compile(r"^(?:[A-Z]+-)?SCORE-[0-9]+$")
#: The rules that score the closer alone (SCORE-1, PERLA-SCORE-1) and those that value the
#: cards left in the other hands (SCORE-2, SCORE-3 and the profiles' own): a disputed point
#: bearing on the first and none of the second changes only the closer's deal score.
_CLOSER_RULE = re.compile(r"^(?:[A-Z]+-)?SCORE-1$")
_HAND_RULE = re.compile(r"^(?:[A-Z]+-)?SCORE-[23]$")


def own_scoring(rulings: Mapping[str, str], profile: str) -> tuple[str, ...]:
    """``POINT=option`` for each disputed point bearing on a scoring rule (by the catalogue)
    on which ``rulings`` take another option than ``profile`` does; DISPUTE-35 ``penalty``
    is played by the law itself (:data:`PENALTY_POINTS`)."""
    catalogue = load_catalogue()
    found = []
    for point, option in sorted(rulings.items()):
        dispute = catalogue.disputes.get(point)
        if dispute is None or dispute.profiles.get(profile, option) == option:
            continue
        if any(_SCORING_RULE.match(rule) for rule in dispute.rules):
            found.append(f"{point}={option}")
    return tuple(found)


def closer_only(point: str) -> bool:
    """True when disputed point ``point`` (by the catalogue's rules) changes only what the
    closer scores (DISPUTE-65 the going-out score, DISPUTE-46 chilean -10 for going out),
    never a card's value in another hand."""
    dispute = load_catalogue().disputes.get(point)
    if dispute is None:
        return False
    rules = dispute.rules
    return any(_CLOSER_RULE.match(r) for r in rules) and not any(_HAND_RULE.match(r) for r in rules)


# --- the run --------------------------------------------------------------------------------


@dataclass
class _Tally:
    """Running outcome of one law: how many times it was checked and the first failure."""

    checked: int = 0
    failure: str | None = None
    notes: list[str] = field(default_factory=list)

    def check(self, ok: bool, detail: Callable[[], str]) -> None:
        """Count one check; keep the first failure's detail (built only when it fails)."""
        self.checked += 1
        if not ok and self.failure is None:
            self.failure = detail()


def _canonical(state: dict[str, Any]) -> dict[str, Any]:
    """A state with hands and trio cards as sorted multisets and the private ``x`` dropped."""
    out = strip_private(state)
    out["hands"] = [sorted(h) for h in out.get("hands", [])]
    out["table"] = [
        {**m, "cards": sorted(m["cards"])} if m.get("kind") == "trio" else m
        for m in out.get("table", [])
    ]
    return out


def _runs_as_sets(state: dict[str, Any]) -> dict[str, Any]:
    """A state with every table meld's cards sorted: how states of an engine that arranges
    runs itself are compared (where it places a joker is its own choice)."""
    table = state.get("table")
    if not isinstance(table, list):
        return state
    melds = [
        {**m, "cards": sorted(m["cards"])} if isinstance(m, dict) and "cards" in m else m
        for m in table
    ]
    return {**state, "table": melds}


def _all_cards(state: dict[str, Any]) -> Counter[str]:
    cards: Counter[str] = Counter()
    for hand in state.get("hands", []):
        cards.update(hand)
    for meld in state.get("table", []):
        cards.update(meld.get("cards", []))
    cards.update(state.get("stock", []))
    cards.update(state.get("discard", []))
    return cards


def _describe_difference(want: Counter[str], got: Counter[str]) -> str:
    missing = want - got
    extra = got - want
    parts = []
    if missing:
        parts.append("missing " + " ".join(sorted(missing.elements())))
    if extra:
        parts.append("extra " + " ".join(sorted(extra.elements())))
    return "; ".join(parts) or "same cards"


class _ScoringLaw:
    """``scoring-at-close``: what each deal's close must score, as the engine declares it
    plays (its rulings and the fields it models)."""

    def __init__(self, declared: Declarations, profile: ProfileData, tally: _Tally) -> None:
        self.declared = declared
        self.profile = profile
        self.tally = tally
        #: Refused actions per player in the current deal, and what each costs at the close
        #: for an engine ruling DISPUTE-35 ``penalty`` (docs/rules.md reads it as 10 points).
        self.refusals: Counter[int] = Counter()
        self.refusal_cost = PENALTY_POINTS if declared.ruling("DISPUTE-35") == "penalty" else 0
        #: Scoring points the engine plays another way than the profile (VARIANT-01 thirty,
        #: DISPUTE-60 unmatched_only...): the deal scores are then its own, and the law checks
        #: only that the totals add them up, never a value the harness cannot know.
        self.own_scoring = own_scoring(declared.declared, profile.name)
        #: Of those, the points that change only the closer's score (DISPUTE-65): every
        #: other entry of ``deal_scores`` is still judged, and the totals with them.
        self.own_closer = tuple(p for p in self.own_scoring if closer_only(p.split("=")[0]))
        self.own_hands = tuple(p for p in self.own_scoring if p not in self.own_closer)
        #: Fields the law skipped because the engine does not model them.
        self.unjudged: set[str] = set()
        #: The totals sent with start_deal (the harness's own, for unmodelled ``totals``).
        self.start_totals: list[int] = []

    def new_deal(self, players: int) -> None:
        """A deal was started with ``players`` players and zero totals."""
        self.refusals.clear()
        self.start_totals = [0] * players

    def check(
        self, before: dict[str, Any], after: dict[str, Any], *, opened: bool, where: str
    ) -> None:
        """The closer scores 0, the others their held cards, and totals add up.

        Only what the engine models is compared (docs/protocol.md §2): for an unmodelled
        ``closer``, ``deal_scores`` or ``totals`` the harness uses what it knows itself (who
        emptied their hand, the scores it computes, the totals it sent), and an unmodelled
        ``winners`` is not judged. ``opened``: the player on turn laid down this turn.
        """
        models = self.declared.models
        hands = after["hands"]
        turn = before["turn"]
        emptied = hands[turn] == []
        if models("closer"):
            closer = after.get("closer")
        else:
            closer = turn if emptied else None
            self.unjudged.add("closer")
        scores = after.get("deal_scores") if models("deal_scores") else None
        out = self.profile.closer_score
        # PERLA-SCORE-1: emptied on the laying-down turn (or by the laying down itself).
        lowering = opened or not before["opened"][turn]
        if lowering and self.profile.lowering_turn_closer_score is not None:
            out = self.profile.lowering_turn_closer_score
        expected: list[int] | None = [
            (out if i == closer else sum(self.profile.card_value(c) for c in hand))
            + self.refusal_cost * self.refusals[i]  # DISPUTE-35 penalty
            for i, hand in enumerate(hands)
        ]
        tally = self.tally
        if self.own_hands:
            # The engine's own values (see own_scoring), when it shows them.
            expected = scores if isinstance(scores, list) else None
        elif self.own_closer and closer is not None and expected is not None:
            # The closer's score is the engine's own (DISPUTE-65 no_discard...); the others'
            # are judged. With no deal score shown the totals say what the closer scored.
            if isinstance(scores, list) and len(scores) == len(expected):
                expected[closer] = scores[closer]
            elif models("totals") and len(after["totals"]) == len(expected):
                start_of = before["totals"][closer]
                expected[closer] = after["totals"][closer] - start_of
            else:
                expected = None
        start = before["totals"] if models("totals") else self.start_totals
        totals = (
            None if expected is None else [t + s for t, s in zip(start, expected, strict=False)]
        )
        # A deal ends with the closer's empty hand, or (DISPUTE-75 round_ends) with nobody
        # closing when a stock draw meets an empty stock.
        stock_out = closer is None and not before["stock"]
        tally.check(
            stock_out or (closer == turn and emptied),
            lambda: (
                f"{where}: closer {closer}, but player {turn} emptied "
                f"their hand (hand left: {hands[turn]})"
                if models("closer")
                else f"{where}: the deal ended, but player {turn} kept "
                f"{hands[turn]} and the stock was not empty"
            ),
        )
        if models("deal_scores"):
            tally.check(
                scores == expected,
                lambda: (
                    f"{where}: deal_scores {scores}, expected {expected} "
                    f"(closer {out}, others the value of held cards)"
                ),
            )
        else:
            self.unjudged.add("deal_scores")
        if not models("totals"):
            self.unjudged.add("totals")
        elif totals is not None:
            tally.check(
                after["totals"] == totals,
                lambda: f"{where}: totals {after['totals']}, expected {totals}",
            )
        if after["phase"] != "game_over":
            return
        final = after["totals"] if models("totals") else totals
        if not models("winners"):
            self.unjudged.add("winners")
        elif final is not None:
            best = min(final)
            want = [i for i, t in enumerate(final) if t == best]
            tally.check(
                after.get("winners") == want,
                lambda: f"{where}: winners {after.get('winners')}, expected {want}",
            )

    def notes(self) -> str:
        """What the law's detail adds after "held in N checks"."""
        if self.own_hands:
            return (
                f"; the deal scores themselves not judged: the engine rules "
                f"{', '.join(self.own_scoring)}"
            )
        if self.own_closer:
            return (
                f"; the closer's deal score not judged (the others' are): the engine rules "
                f"{', '.join(self.own_closer)}"
            )
        return ""


class _Run:
    """One run of the properties against a session."""

    def __init__(
        self, session: EngineSession, seed: int, declared: Declarations, profile: ProfileData
    ) -> None:
        self.session = session
        self.seed = seed
        #: The profile played: its packs, deals, contracts and card values.
        self.profile = profile
        #: What the engine declares in this profile (conformance/adapter/declarations.py): the only
        #: place the laws read its rulings, players and unmodelled fields from.
        self.declared = declared
        #: Player counts both the engine and the profile allow; deals use only these.
        self.players = tuple(n for n in declared.players if n in profile.players)
        #: Deals the engine answered ``unsupported`` to: skipped, the laws go on.
        self.skipped: list[str] = []
        #: New games answered ``unsupported`` (random-choices), and deals played.
        self.skipped_games: list[str] = []
        self.played = 0
        #: What a law could not judge because the engine declares the field unmodelled
        #: (docs/protocol.md §2): named in the law's detail.
        self.unjudged: set[str] = set()
        self.rng = random.Random(seed)
        self.tallies = {name: _Tally() for name in RULES}
        self.scoring = _ScoringLaw(declared, profile, self.tallies["scoring-at-close"])
        self.where = "start"
        # Cards whose lay-off the engine refused this turn: not offered again until a discard.
        self.refused: set[str] = set()
        # Whether the player on turn opened this turn: known to the harness, read where the
        # engine declares ``turn_opened`` unmodelled.
        self.opened_this_turn = False

    # -- requests --------------------------------------------------------------------------

    def pack(self, players: int) -> Counter[str]:
        """The pack the engine deals ``players`` players, as a multiset."""
        return Counter(self.deck(players))

    def deck(self, players: int) -> list[str]:
        """The pack the engine deals ``players`` players under its rulings, in canonical
        order (conformance/knowledge/optionfacts.py: DISPUTE-61 ``two_jokers``, DISPUTE-78
        ``always_108`` change it), as ``run`` deals it."""
        return list(engine_pack(self.profile, players, self.declared.ruling).canonical_order())

    def turn_opened(self, state: dict[str, Any]) -> bool:
        """Whether the player on turn laid down this turn: the state's ``turn_opened``, or
        the harness's own count for an engine that does not model it."""
        if self.declared.models("turn_opened"):
            return bool(state.get("turn_opened"))
        return self.opened_this_turn

    def unchanged(self, before: dict[str, Any], after: dict[str, Any]) -> list[Any]:
        """What differs between two states that must be equal, compared as the protocol
        promises: unmodelled fields skipped, runs as multisets for an engine that arranges
        them itself (docs/protocol.md §2)."""
        if self.declared.runs_as_sets:
            before, after = _runs_as_sets(before), _runs_as_sets(after)
        return compare_unchanged(before, after, unmodelled=self.declared.unmodelled)

    def observe(self, state: dict[str, Any]) -> dict[str, Any]:
        """Check conservation on every state the engine returns."""
        cards = _all_cards(state)
        pack = self.pack(int(state["players"]))
        self.tallies["conservation"].check(
            cards == pack,
            lambda: (
                f"{self.where}: the state holds {sum(cards.values())} cards, "
                f"{_describe_difference(pack, cards)}"
            ),
        )
        return state

    def start_deal(self, deck: list[str], players: int, deal: int, dealer: int) -> dict[str, Any]:
        answer = self.session.request(
            "start_deal",
            profile=self.profile.name,
            players=players,
            deal_number=deal,
            dealer=dealer,
            totals=[0] * players,
            deck=deck,
        )
        self.scoring.new_deal(players)
        self.opened_this_turn = False
        return self.observe(answer["state"])

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        answer = self.session.request("act", action=action)
        if answer.get("accepted") is False:
            self.scoring.refusals[action["player"]] += 1
        return answer

    # -- laws ------------------------------------------------------------------------------

    def probe(self, state: dict[str, Any]) -> None:
        """Send an action that breaks a rule outright; it must be refused without a trace."""
        action = self.illegal_action(state)
        if action is None:
            return
        answer = self.act(action)
        after = self.observe(answer["state"])
        self.tallies["illegal-actions-rejected"].check(
            answer.get("accepted") is False,
            lambda: f"{self.where}: accepted the illegal action {action}",
        )
        if answer.get("accepted") is False:
            self.expect_unchanged(state, after, action)

    def expect_unchanged(
        self, before: dict[str, Any], after: dict[str, Any], action: dict[str, Any]
    ) -> None:
        """A rejected action must leave the state exactly as it was (DISPUTE-35)."""
        diff = self.unchanged(before, after)
        detail = f"{self.where}: after rejecting {action}:\n{told(diff, before, after)}"
        self.tallies["rejected-leaves-unchanged"].check(not diff, lambda: detail)

    def illegal_action(self, state: dict[str, Any]) -> dict[str, Any] | None:
        """One action no reading of the rules allows in ``state``, or None if none fits."""
        players, turn, phase = state["players"], state["turn"], state["phase"]
        hand = state["hands"][turn]
        other = (turn + 1 + self.rng.randrange(players - 1)) % players
        choices: list[dict[str, Any]] = [{"type": "draw_stock", "player": other}]  # TURN-1
        if state["hands"][other]:
            card = self.rng.choice(state["hands"][other])
            choices.append({"type": "discard", "player": other, "card": card})  # TURN-1
        if phase == "play":
            choices.append({"type": "draw_stock", "player": turn})  # TURN-2: second draw
            absent = [c for c in self.pack(players) if c not in hand]
            if absent:
                card = self.rng.choice(sorted(absent))
                choices.append({"type": "discard", "player": turn, "card": card})  # TURN-10
        elif phase == "draw":
            if hand:  # TURN-2: discarding before the draw
                choices.append({"type": "discard", "player": turn, "card": hand[0]})
        else:
            return None
        return self.rng.choice(choices)

    # -- play ------------------------------------------------------------------------------

    def choose(self, state: dict[str, Any]) -> dict[str, Any]:
        """The harness policy: draw, open when an opening is found, lay off, discard."""
        turn = state["turn"]
        hand = state["hands"][turn]
        if state["phase"] == "draw":
            if state["discard"] and self.rng.random() < 0.25:
                return {"type": "draw_discard", "player": turn}
            return {"type": "draw_stock", "player": turn}
        if not state["opened"][turn]:
            melds = find_opening(hand, state["deal_number"], self.profile)
            if melds is not None:
                return {"type": "open", "player": turn, "melds": melds}
        elif not self.turn_opened(state) and len(hand) > 1:
            for lay_off in lay_off_candidates(hand, state["table"]):
                if lay_off["card"] not in self.refused:
                    return {"type": "lay_off", "player": turn, **lay_off}
        fewest = min(keep_score(c, hand) for c in hand)
        card = self.rng.choice(sorted({c for c in hand if keep_score(c, hand) == fewest}))
        return {"type": "discard", "player": turn, "card": card}

    def play_deal(self, index: int) -> tuple[list[str], int, int, int, list[dict[str, Any]]] | None:
        """Deal a seeded deck and play it out; return how to replay its first actions.

        None when the engine answered ``unsupported`` to the deal: that deal is skipped
        (and noted), not the laws.
        """
        if len(self.profile.packs) == 1:
            deck = self.deck(self.profile.players[0])
            self.rng.shuffle(deck)
            if self.players == (2, 3, 4):
                players = self.rng.randint(2, 4)  # the draw every seed was recorded with
            else:
                players = self.rng.choice(self.players)
        else:
            # The pack depends on the player count (chilean: 3 packs for 5-6 players).
            players = self.rng.choice(self.players)
            deck = self.deck(players)
            self.rng.shuffle(deck)
        last = self.profile.deal_count
        # Every deal, then the last two again (argentine 6 and 7: opening closes).
        deal = self.rng.choice([*range(1, last + 1), last - 1, last])
        dealer = self.rng.randrange(players)
        self.where = f"deal {index} (deal_number {deal}, {players} players)"
        try:
            state = self.start_deal(deck, players, deal, dealer)
        except EngineReportedError as exc:
            if exc.kind != "unsupported":
                raise
            self.skipped.append(f"{self.where}: {exc.message}")
            return None
        self.played += 1
        actions: list[dict[str, Any]] = []
        self.refused = set()
        for step in range(MAX_ACTIONS):
            if state["phase"] not in ("draw", "play"):
                break
            self.where = f"deal {index} (deal_number {deal}, {players} players), step {step}"
            if step % PROBE_EVERY == 0:
                self.probe(state)
            action = self.choose(state)
            answer = self.act(action)
            after = self.observe(answer["state"])
            if answer.get("accepted") is False:
                # The policy's own search can be wrong; the refusal must still leave no trace.
                self.expect_unchanged(state, after, action)
                if action["type"] == "lay_off":
                    self.refused.add(action["card"])
                    continue
                if action["type"] == "open":
                    hand = state["hands"][state["turn"]]
                    action = {"type": "discard", "player": state["turn"], "card": hand[0]}
                    answer = self.act(action)
                    after = self.observe(answer["state"])
                    if answer.get("accepted") is False:
                        break  # cannot even discard a held card: nothing sensible to do
                else:
                    break
            if action["type"] == "discard":
                self.refused = set()
                self.opened_this_turn = False
            elif action["type"] == "open":
                self.opened_this_turn = True
            actions.append(action)
            if after["phase"] in ("deal_over", "game_over"):
                opened = self.turn_opened(state)
                self.scoring.check(state, after, opened=opened, where=self.where)
            state = after
        return deck, players, deal, dealer, actions

    def check_determinism(
        self, deck: list[str], players: int, deal: int, dealer: int, actions: list[dict[str, Any]]
    ) -> None:
        """Deal the same deck twice and replay the same actions: the states must agree.

        Only the actions before the first draw from an empty stock are replayed: a recycled
        stock's order is the engine's own (docs/protocol.md §6).
        """
        tally = self.tallies["determinism"]
        runs: list[list[dict[str, Any]]] = []
        for attempt in range(2):
            self.where = f"determinism replay {attempt + 1}"
            state = self.start_deal(deck, players, deal, dealer)
            seen = [_canonical(state)]
            for action in actions[:REPLAY_ACTIONS]:
                if action["type"] == "draw_stock" and not state["stock"]:
                    break
                state = self.observe(self.act(action)["state"])
                seen.append(_canonical(state))
            runs.append(seen)
        first, second = runs
        for i, (a, b) in enumerate(zip(first, second, strict=False)):
            diff = self.unchanged(a, b)
            detail = f"replaying the same deck and actions, state {i} differs:\n" + told(diff, a, b)
            tally.check(not diff, lambda: detail)  # noqa: B023 - called at once, never stored
            if diff:
                break
        tally.check(
            len(first) == len(second),
            lambda: f"replays reached {len(first)} and {len(second)} states",
        )

    def check_random_choices(self) -> None:
        """Start ``LOT_GAMES`` seeded new games: the dealer and the hands must not all agree.

        The seeds derive from the run's seed, so a run replays; each game's state is also
        checked for conservation like any other. Games use a player count the engine
        declares; the dealer is not judged for an engine that does not model one, and an
        engine that answers ``unsupported`` to ``new_game`` is skipped, not failed.
        """
        tally = self.tallies["random-choices"]
        judge_dealer = self.declared.models("dealer")
        if not judge_dealer:
            self.unjudged.add("dealer")
        # Try the declared counts smallest first: an engine that declared none may still
        # answer unsupported to some count, and that is an interface fact, not a law.
        counts = sorted(self.players)
        dealers: set[int] = set()
        deals: set[tuple[tuple[str, ...], ...]] = set()
        game = 0
        while game < LOT_GAMES:
            self.where = f"new game {game + 1} of {LOT_GAMES} ({counts[0]} players)"
            try:
                answer = self.session.request(
                    "new_game",
                    profile=self.profile.name,
                    players=counts[0],
                    seed=self.seed * 1000 + game,
                )
            except EngineReportedError as exc:
                if exc.kind != "unsupported":
                    raise
                self.skipped_games.append(f"{self.where}: {exc.message}")
                if game > 0 or len(counts) == 1:
                    return
                counts.pop(0)
                continue
            state = self.observe(answer["state"])
            dealers.add(int(state["dealer"]))
            deals.add(tuple(tuple(sorted(h)) for h in state["hands"]))
            game += 1
        if judge_dealer:
            tally.check(
                len(dealers) > 1,
                lambda: (
                    f"{LOT_GAMES} new games with different seeds all chose dealer "
                    f"{min(dealers)}: the first dealer is not drawn by lot (DEAL-1)"
                ),
            )
        tally.check(
            len(deals) > 1,
            lambda: f"{LOT_GAMES} new games with different seeds all dealt the same hands",
        )


#: The state fields each law would judge, named in its detail when the engine does not
#: model them.
UNJUDGED_BY: Final[dict[str, frozenset[str]]] = {
    "scoring-at-close": frozenset({"closer", "deal_scores", "totals", "winners"}),
    "random-choices": frozenset({"dealer"}),
}

#: Deals played beyond those asked for, when none of them closed: the scoring law would
#: otherwise check nothing (a slow engine's long deals, or ``--deals 1``).
EXTRA_DEALS: Final = 3


def not_checked(
    seed: int, why: str, profile: ProfileData | None = None, *, applies: bool = True
) -> list[PropertyResult]:
    """Every law, not checked for reason ``why`` (never a pass: nothing was shown);
    ``applies`` False when the engine lacks what the laws need (see PropertyResult)."""
    facts = profile or default_profiles()[DEFAULT_PROFILE]
    return [
        PropertyResult(
            name,
            tuple(facts.rule_id(rule) for rule in rules),
            False,
            f"not checked: {why}",
            seed,
            False,
            applies,
        )
        for name, rules in RULES.items()
    ]


def run_properties(
    session: EngineSession, *, seed: int, deals: int, profile: str = DEFAULT_PROFILE
) -> list[PropertyResult]:
    """Play ``deals`` seeded deals of ``profile`` through ``session`` and check the laws.

    The engine is judged by what it declares in ``profile`` (conformance/adapter/declarations.py):
    deals use the player counts both it and the profile allow, scoring follows its rulings,
    and fields it does not model are not compared. When no deal of the ``deals`` closes, up
    to :data:`EXTRA_DEALS` more are played so that the scoring law checks something.

    ``session`` must be started. An engine whose handshake lacks ``turns`` or ``deals``,
    the profile, or every player count of it cannot be observed: every law is then *not
    checked* (and not a pass), with the reason. An engine that misbehaves (an
    ``EngineError``: crash, timeout, malformed answer, error answer) ends the run: the laws
    checked so far keep their outcome, and an ``engine`` result reports the error. Nothing
    is raised for engine faults.
    """
    facts = default_profiles()[profile]
    handshake = session.handshake
    if handshake is None:
        return not_checked(seed, "the engine has not shaken hands", facts)
    declared = declarations(handshake, profile, load_catalogue())
    lacking = declared.lacks({"turns", "deals"})
    if lacking:
        why = (
            "needs the turns and deals capabilities (the laws play whole deals; the engine "
            f"does not claim {', '.join(lacking)})"
        )
        return not_checked(seed, why, facts, applies=False)
    if not declared.plays_profile:
        return not_checked(seed, f"the engine does not list profile {profile!r}", facts)
    run = _Run(session, seed, declared, facts)
    if not run.players:
        counts = ", ".join(map(str, facts.players))
        why = f"the engine plays none of the {profile} player counts ({counts})"
        return not_checked(seed, why, facts)
    error: str | None = None
    try:
        replay = None
        index = 0
        while index < deals or (
            index < deals + EXTRA_DEALS
            and run.played
            and not run.tallies["scoring-at-close"].checked
        ):
            played = run.play_deal(index)
            if replay is None and played is not None:
                replay = played
            index += 1
        if replay is not None:
            run.check_determinism(*replay)
        run.check_random_choices()
    except EngineError as exc:
        tail = f"\nstderr tail:\n{exc.stderr_tail}" if exc.stderr_tail else ""
        error = f"{run.where}: {exc}{tail}"
    except (SessionError, InvalidRequest) as exc:  # the harness's own mistake
        error = f"{run.where}: {exc}"
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        # A schema-valid but nonsensical state (a hand index past the players) is the
        # engine's fault too; report it rather than crash the harness.
        error = f"{run.where}: unusable state from the engine ({type(exc).__name__}: {exc})"
    return _results(run, error)


def _not_checked_because(run: _Run, name: str, error: str | None) -> str:
    """Why law ``name`` made no check at all."""
    if error is not None:
        return error
    if name == "random-choices" and run.skipped_games:
        return f"new_game answered unsupported ({run.skipped_games[-1]})"
    if run.skipped and not run.played:
        return f"every deal offered ({len(run.skipped)}) was answered unsupported"
    if name == "scoring-at-close":
        return f"no deal closed within the action cap in {run.played} deal(s)"
    return f"nothing to check in {run.played} deal(s)"


def _results(run: _Run, error: str | None) -> list[PropertyResult]:
    """One result per law; a law that made no check is not checked, never a pass."""
    out = []
    for name, tally in run.tallies.items():
        rules = tuple(run.profile.rule_id(rule) for rule in RULES[name])
        if tally.failure is None and tally.checked == 0:
            why = _not_checked_because(run, name, error)
            out.append(PropertyResult(name, rules, False, f"not checked: {why}", run.seed, False))
            continue
        if tally.failure is not None:
            passed, detail = False, tally.failure
        else:
            passed, detail = True, f"held in {tally.checked} checks"
            if name == "scoring-at-close":
                detail += run.scoring.notes()
        unjudged = sorted(
            (run.unjudged | run.scoring.unjudged) & UNJUDGED_BY.get(name, frozenset())
        )
        if unjudged:
            detail += f"; not judged, the engine declares unmodelled: {', '.join(unjudged)}"
        if name == "random-choices" and run.skipped_games:
            detail += f" (new_game answered unsupported: {run.skipped_games[0]})"
        elif name != "random-choices" and run.skipped:
            detail += f" ({len(run.skipped)} deal(s) skipped: the engine answered unsupported)"
        out.append(PropertyResult(name, rules, passed, detail, run.seed))
    if error is not None:
        out.append(PropertyResult("engine", (), False, error, run.seed))
    return out


def check_properties(
    argv: Sequence[str], options: RunOptions, *, seed: int, deals: int
) -> tuple[PropertyResult, ...]:
    """Play ``deals`` seeded deals on a fresh adapter and check the observable laws.

    Never raises for engine trouble: an adapter that cannot start is one failed result.
    """
    try:
        session = start_session(argv, options)
    except EngineError as exc:
        detail = f"the adapter could not start: {exc}"
        return (PropertyResult("engine", (), False, detail, seed),)
    try:
        return tuple(run_properties(session, seed=seed, deals=deals, profile=options.profile))
    finally:
        session.close()
