"""The reference engine behind the JSON adapter protocol (docs/protocol.md).

Run as ``python -m reference.adapter``. One request per stdin line, one
response per stdout line. Nothing but protocol lines is ever written to
stdout: diagnostics go to stderr, and any failure inside the engine becomes an
``internal`` error response rather than a traceback.

This module is written from the protocol document alone and shares no code
with the harness, so that passing the corpus through it tests the document as
much as the engine.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import IO, Any

from . import __version__, trace
from .cards import Card
from .codec import (
    action_from_json,
    meld_from_json,
    state_from_json,
    state_to_json,
)
from .contracts import check_contract
from .deadwood import trace_values
from .errors import IllegalActionError, InvalidActionError, InvalidStateError, RulesError
from .game import (
    GameState,
    apply,
    new_game,
    next_deal,
    redeal,
    refuse,
    start_deal,
    validate_state,
)
from .interface import Interface
from .melds import check_meld
from .profiles import ARGENTINE, PROFILES, Profile, own_point, ruling_problems
from .scoring import penalty

PROTOCOL_VERSION = 1
ALL_CAPABILITIES = ("melds", "turns", "deals", "reasons")

#: Environment variable naming a rule-trace file, as ``--trace-rules`` does.
TRACE_ENV = "CARIOCA_TRACE_RULES"

#: The prefix of the rule IDs each profile states on its own (docs/rules.md).
_OWN_PREFIX = {"chilean": "CHILE-", "pagat": "PAGAT-", "perla": "PERLA-"}

#: Which capability each op needs; ops outside a claimed capability answer ``unsupported``.
OP_CAPABILITY = {
    "check_meld": "melds",
    "check_contract": "melds",
    "penalty": "melds",
    "load_state": "turns",
    "act": "turns",
    "start_deal": "deals",
    "next_deal": "deals",
    "redeal": "deals",
    "new_game": "deals",
}


class BadRequest(Exception):
    """A request the protocol does not allow; answered with ``bad_request``."""


class Unsupported(Exception):
    """An op or profile this adapter does not serve; answered with ``unsupported``."""


def _field(request: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    """Return ``request[name]``, checking presence and JSON type (bools are not ints)."""
    if name not in request:
        raise BadRequest(f"missing field {name!r}")
    value = request[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise BadRequest(f"field {name!r} must be {kinds[0].__name__}, got a boolean")
    if not isinstance(value, kinds):
        raise BadRequest(f"field {name!r} must be {kinds[0].__name__}, got {type(value).__name__}")
    return value


def _cards(codes: Any, where: str) -> list[Card]:
    if not isinstance(codes, list):
        raise BadRequest(f"{where} must be a list of card codes")
    cards = []
    for i, code in enumerate(codes):
        if not isinstance(code, str):
            raise BadRequest(f"{where}[{i}] must be a card code string")
        try:
            cards.append(Card.from_code(code))
        except InvalidActionError as exc:
            raise BadRequest(f"{where}[{i}]: {exc}") from exc
    return cards


def _cut(request: dict[str, Any]) -> int | None:
    """The optional ``cut`` of a ``start_deal`` or ``next_deal`` (perla, docs/protocol.md §10).

    :raises BadRequest: when it is not a whole number of cards from 1 on.
    """
    cut = request.get("cut")
    if cut is None:
        return None
    if not isinstance(cut, int) or isinstance(cut, bool) or cut < 1:
        raise BadRequest(f"field 'cut' must be a positive integer, not {cut!r}")
    return cut


def _takes(profile: Profile, point: str) -> bool:
    """True if ``profile`` accepts another option on ``point`` (see Profile.with_rulings)."""
    try:
        profile.with_rulings({point: profile.ruling(point)})
    except (KeyError, ValueError):
        return False
    return True


class Adapter:
    """Serves protocol requests against the reference engine, one game at a time."""

    def __init__(
        self,
        capabilities: Iterable[str] = ALL_CAPABILITIES,
        rulings: Mapping[str, str] | None = None,
        profiles: Iterable[str] | None = None,
        trace_rules: str | None = None,
        interface: Interface | None = None,
    ) -> None:
        """Serve ``capabilities``, playing ``rulings`` (``{"DISPUTE-31": "at_least"}``)
        instead of the profile's options on those points, for ``profiles`` (default: all;
        fewer to act as an engine that lacks a profile). ``trace_rules`` names a file to
        append one rule-trace line to per request answered (:class:`RuleTrace`);
        ``interface`` makes it an engine that declares other interface choices
        (reference/interface.py).

        :raises ValueError: for an unknown point, option or profile.
        """
        self.interface = interface or Interface()
        strange = sorted(set(self.interface.profile_players) - set(PROFILES))
        if strange:
            raise ValueError(f"--profile-players: unknown profiles {', '.join(strange)}")
        self.rule_trace = None if trace_rules is None else RuleTrace(trace_rules)
        self.capabilities = tuple(c for c in ALL_CAPABILITIES if c in set(capabilities))
        # Every profile plays the rulings in force at start-up that are points of its own
        # (DISPUTE-44 is Chilean only; DISPUTE-25 is set through DISPUTE-48 there); no
        # rulings, no copy. A point no profile takes is an error.
        self.profiles: dict[str, Profile] = dict(PROFILES)
        taken: set[str] = set()
        for name, profile in PROFILES.items():
            own = {p: o for p, o in (rulings or {}).items() if _takes(profile, p)}
            if own:
                self.profiles[name] = profile.with_rulings(own)
                taken |= set(own)
        problems = ruling_problems({p: o for p, o in (rulings or {}).items() if p not in taken})
        if problems:
            raise ValueError("; ".join(problems))
        for point in set(rulings or {}) - taken:
            raise ValueError(f"no profile can play {point} another way")
        if profiles is not None:
            served = list(profiles)
            unknown = sorted(set(served) - set(PROFILES))
            if unknown or not served:
                raise ValueError(f"unknown profiles {unknown} (known: {', '.join(PROFILES)})")
            self.profiles = {n: p for n, p in self.profiles.items() if n in served}
        self.state: GameState | None = None
        self.handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "hello": self.hello,
            "check_meld": self.check_meld,
            "check_contract": self.check_contract,
            "penalty": self.penalty,
            "load_state": self.load_state,
            "act": self.act,
            "start_deal": self.start_deal,
            "next_deal": self.next_deal,
            "redeal": self.redeal,
            "new_game": self.new_game,
        }

    # -- helpers -------------------------------------------------------------------------------

    def _profile(self, request: dict[str, Any]) -> Profile:
        name = _field(request, "profile", str)
        try:
            return self.profiles[name]
        except KeyError:
            raise Unsupported(f"unsupported profile: {name!r}") from None

    def _reason(self, reason: str) -> dict[str, Any]:
        return {"reason": reason} if "reasons" in self.capabilities else {}

    def _game(self) -> GameState:
        if self.state is None:
            raise BadRequest("no game loaded: send load_state, start_deal or new_game first")
        return self.state

    def _outcome(self, step: Callable[[], GameState]) -> dict[str, Any]:
        """Run one state transition; a rule rejection keeps the current state."""
        try:
            self.state = step()
        except IllegalActionError as exc:
            return {"accepted": False, **self._reason(exc.reason.value), "state": self._dump()}
        return {"accepted": True, "state": self._dump()}

    def _dump(self) -> dict[str, Any]:
        return self.interface.mask(state_to_json(self._game()))

    def _check_players(self, profile: Profile, players: int) -> None:
        """Refuse, as ``unsupported``, a player count the profile allows but the engine does
        not play (its declared ``players``)."""
        counts = self.interface.counts(profile)
        if profile.min_players <= players <= profile.max_players and players not in counts:
            played = ", ".join(map(str, counts))
            raise Unsupported(f"{players} players: this engine plays {played} in {profile.name}")

    # -- ops -----------------------------------------------------------------------------------

    def hello(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer the handshake (any requested version: the harness judges the answer)."""
        return {
            "protocol": PROTOCOL_VERSION,
            "implementation": {"name": "reference", "version": __version__, "language": "python"},
            "profiles": sorted(self.profiles),
            "capabilities": list(self.capabilities),
            # Argentine's options, then every point only other profiles rule on (DISPUTE-39..77)
            # where they all play one option: a harness that reads only `rulings` grades those
            # right (DISPUTE-75 differs between chilean and perla: profile_rulings only).
            "rulings": {
                **{
                    point: options.pop()
                    for point, options in self._later_points().items()
                    if len(options) == 1
                },
                **self.profiles.get("argentine", ARGENTINE).rulings,
            },
            **self._players_declared(),
            **self.interface.declared(),
            # docs/protocol.md §8: each other profile's options, replacing `rulings` for it.
            "profile_rulings": {
                name: dict(profile.rulings)
                for name, profile in self.profiles.items()
                if name != "argentine"
            },
        }

    def _players_declared(self) -> dict[str, Any]:
        """Interface declarations (docs/protocol.md §2): every count some profile plays, and
        the counts of each profile (2-4 in argentine, not 2-8); none when told to declare
        none."""
        if not self.interface.declare_players:
            return {}
        counts = {name: self.interface.counts(p) for name, p in sorted(self.profiles.items())}
        return {
            "players": sorted({n for c in counts.values() for n in c}),
            "profile_players": {name: list(c) for name, c in counts.items()},
        }

    def _later_points(self) -> dict[str, set[str]]:
        """Every point Argentine does not rule on, with the options the profiles play there."""
        found: dict[str, set[str]] = {}
        for profile in self.profiles.values():
            for point, option in profile.rulings.items():
                if point not in ARGENTINE.rulings:
                    found.setdefault(point, set()).add(option)
        return found

    def check_meld(self, request: dict[str, Any]) -> dict[str, Any]:
        """Is this meld valid, as laid in an opening or as it may stand on the table?"""
        profile = self._profile(request)
        meld = meld_from_json(_field(request, "meld", dict), "meld")
        # Required (docs/protocol.md §7): an opening meld and a table meld differ, so a
        # request that does not say which is malformed, not a guess.
        initial = _field(request, "initial", bool)
        meld = self.interface.arrange(meld, profile, initial=initial)
        reason = check_meld(meld, initial=initial, profile=profile)
        return {"valid": True} if reason is None else {"valid": False, **self._reason(reason)}

    def check_contract(self, request: dict[str, Any]) -> dict[str, Any]:
        """Do these melds lay exactly the contract of this deal?"""
        profile = self._profile(request)
        deal_number = _field(request, "deal_number", int)
        if not 1 <= deal_number <= len(profile.contracts):
            raise BadRequest(f"deal_number {deal_number} is outside 1..{len(profile.contracts)}")
        raw = _field(request, "melds", list)
        judged = profile.for_deal(deal_number)
        melds = tuple(
            self.interface.arrange(meld_from_json(m, f"melds[{i}]"), judged, initial=True)
            for i, m in enumerate(raw)
        )
        reason = check_contract(melds, deal_number, profile=profile)
        return {"valid": True} if reason is None else {"valid": False, **self._reason(reason)}

    def penalty(self, request: dict[str, Any]) -> dict[str, Any]:
        """The penalty points of the cards still held."""
        profile = self._profile(request)
        cards = _cards(_field(request, "cards", list), "cards")
        trace_values(profile, [cards])
        return {"points": penalty(cards, profile)}

    def load_state(self, request: dict[str, Any]) -> dict[str, Any]:
        """Replace the session's game with an explicit state."""
        state = state_from_json(_field(request, "state", dict))
        # The state names its profile; it is played under the rulings in force.
        state = replace(state, profile=self.profiles.get(state.profile.name, state.profile))
        self._check_players(state.profile, state.players)
        problems = validate_state(state)
        if problems:
            raise InvalidStateError(tuple(problems))
        self.state = state
        return {"state": self._dump()}

    def _dealt(self, deal: Callable[[GameState], GameState], game: GameState) -> GameState:
        """``deal`` (a next deal or a redeal) of ``game``, dealt from the dealer this engine
        plays the new deal with: the reference's own rules give the new dealer as a step
        from the old one, so the old one is moved by what the new one must move, and the
        player to move with it (a deal not yet drawn from stays one)."""
        dealt = deal(game)
        dealer = self.interface.own_dealer(dealt.players, dealt.deal_number)
        if dealer is None or dealer == dealt.dealer:
            return dealt
        moved = dealer - dealt.dealer
        return deal(
            replace(
                game,
                dealer=(game.dealer + moved) % game.players,
                turn=(game.turn + moved) % game.players,
            )
        )

    def act(self, request: dict[str, Any]) -> dict[str, Any]:
        """Apply one action to the session's game."""
        game = self._game()
        action = self.interface.arrange_action(
            game, action_from_json(_field(request, "action", dict))
        )
        answer = self._outcome(lambda: apply(game, action))
        if not answer["accepted"] and game.profile.illegal_action_penalty:
            self.state = refuse(game, action)  # DISPUTE-35 penalty: owed at the close
            answer["state"] = self._dump()
        return answer

    def start_deal(self, request: dict[str, Any]) -> dict[str, Any]:
        """Deal a deck in the protocol's dealing order and start that deal."""
        profile = self._profile(request)
        totals = _field(request, "totals", list)
        if not all(isinstance(t, int) and not isinstance(t, bool) for t in totals):
            raise BadRequest("field 'totals' must be a list of integers")
        players = _field(request, "players", int)
        deal_number = _field(request, "deal_number", int)
        self._check_players(profile, players)
        own = self.interface.own_dealer(players, deal_number) if deal_number >= 1 else None
        self.state = start_deal(
            profile,
            players,
            deal_number,
            _field(request, "dealer", int) if own is None else own,
            tuple(totals),
            tuple(_cards(_field(request, "deck", list), "deck")),
            cut=_cut(request),
        )
        return {"state": self._dump()}

    def next_deal(self, request: dict[str, Any]) -> dict[str, Any]:
        """Move on after a closed or cancelled deal, dealing the given deck."""
        game = self._game()
        deck = tuple(_cards(_field(request, "deck", list), "deck"))
        # The cut only when given: a deal without one is the plain two-argument call.
        cut = {"cut": c} if (c := _cut(request)) is not None else {}
        return self._outcome(lambda: self._dealt(lambda g: next_deal(g, deck, **cut), game))

    def redeal(self, request: dict[str, Any]) -> dict[str, Any]:
        """Replace an incorrect deal by a fresh one, before the first draw."""
        game = self._game()
        deck = tuple(_cards(_field(request, "deck", list), "deck"))
        return self._outcome(lambda: self._dealt(lambda g: redeal(g, deck), game))

    def new_game(self, request: dict[str, Any]) -> dict[str, Any]:
        """Start deal 1 with the first dealer chosen by lot from the seed."""
        profile = self._profile(request)
        players = _field(request, "players", int)
        if not profile.min_players <= players <= profile.max_players:
            raise BadRequest(
                f"players {players} not in {profile.min_players}..{profile.max_players}"
            )
        self._check_players(profile, players)
        lot = request.get("lot")
        drawn = None if lot is None else tuple(_cards(lot, "lot"))
        if drawn is not None and profile.name != "perla":
            raise BadRequest(f"profile {profile.name} draws no card for the first dealer")
        try:
            self.state = new_game(profile, players, _field(request, "seed", int), drawn)
        except InvalidStateError as exc:
            raise BadRequest(f"lot: {exc}") from exc
        return {"state": self._dump()}

    # -- dispatch ------------------------------------------------------------------------------

    def handle(self, line: str) -> tuple[dict[str, Any], bool]:
        """Answer one request line; the flag says whether the session should end.

        With a rule trace, also append the rules the answer was decided by to it.
        """
        if self.rule_trace is None:
            return self._handle(line)
        with trace.recording() as record:
            response, done = self._handle(line)
        self.rule_trace.write(line, response, record, self._traced_profile(line))
        return response, done

    def _traced_profile(self, line: str) -> Profile | None:
        """The profile a traced request played: its own ``profile`` field, else the game's."""
        try:
            name = json.loads(line).get("profile")
        except (ValueError, RecursionError, AttributeError):
            name = None
        if isinstance(name, str) and name in self.profiles:
            return self.profiles[name]
        return None if self.state is None else self.state.profile

    def _handle(self, line: str) -> tuple[dict[str, Any], bool]:
        try:
            request = json.loads(line)
        except json.JSONDecodeError as exc:
            return _error(None, "bad_request", f"not JSON: {exc}"), False
        except (ValueError, RecursionError) as exc:
            # Valid JSON that Python still refuses: a 5000-digit number, very deep nesting.
            return _error(None, "bad_request", f"cannot decode: {type(exc).__name__}"), False
        if not isinstance(request, dict):
            return _error(None, "bad_request", "a request must be a JSON object"), False
        rid = request.get("id")
        if not isinstance(rid, int) or isinstance(rid, bool):
            return _error(None, "bad_request", "a request needs an integer 'id'"), False
        op = request.get("op")
        if op == "bye":
            return {"id": rid}, True
        if not isinstance(op, str) or op not in self.handlers:
            # Not an op of the protocol at all: the request is wrong, not the engine short.
            return _error(rid, "bad_request", f"unknown op {op!r}"), False
        handler = self.handlers[op]
        needed = OP_CAPABILITY.get(op)
        if needed is not None and needed not in self.capabilities:
            return _error(rid, "unsupported", f"op {op!r} needs capability {needed!r}"), False
        action = request.get("action")
        kind = action.get("type") if op == "act" and isinstance(action, dict) else None
        if op in self.interface.unsupported or kind in self.interface.unsupported:
            return _error(rid, "unsupported", f"this engine lacks {kind or op}"), False
        try:
            return {"id": rid, **handler(request)}, False
        except BadRequest as exc:
            return _error(rid, "bad_request", str(exc)), False
        except Unsupported as exc:
            return _error(rid, "unsupported", str(exc)), False
        except InvalidStateError as exc:
            # Only a loaded state is "invalid_state"; bad dealing parameters are a bad request.
            kind = "invalid_state" if op == "load_state" else "bad_request"
            return _error(rid, kind, str(exc)), False
        except (InvalidActionError, RulesError, ValueError) as exc:
            # Malformed content that the engine's own parsers caught.
            return _error(rid, "bad_request", str(exc)), False
        except Exception as exc:  # an engine bug must not kill the session
            traceback.print_exc(file=sys.stderr)
            return _error(rid, "internal", f"{type(exc).__name__}: {exc}"), False


def _error(rid: int | None, kind: str, message: str) -> dict[str, Any]:
    return {"id": rid, "error": {"kind": kind, "message": message}}


class RuleTrace:
    """Appends one JSON line per request answered to a file, for coverage by execution:
    ``{"id": <request id>, "op": "<op>", "decided": [rule IDs], "refused": [rule IDs]}``.

    ``decided``: the rules whose branches accepted or applied something while answering
    (in a refused action, the checks it passed on the way); ``refused``: the rules a
    refusal cites (empty unless the answer refuses). An error answer decided nothing. IDs
    are Argentine where the rule is shared and the profile's own otherwise (reference/trace.py);
    a point the profile restates under its own ID is named by both (``DISPUTE-25`` and
    ``DISPUTE-48`` in ``chilean``), and a rule only another profile states is left out.
    Each line is one ``write`` to a file opened for appending, so sessions sharing a file
    never interleave their lines.
    """

    def __init__(self, path: str) -> None:
        """Open (create) ``path`` for appending.

        :raises OSError: when it cannot be opened.
        """
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(
        self,
        line: str,
        response: Mapping[str, Any],
        record: trace.Record,
        profile: Profile | None,
    ) -> None:
        """Append the trace line of the request ``line`` answered by ``response``."""
        try:
            request = json.loads(line)
        except (ValueError, RecursionError):
            request = None
        request = request if isinstance(request, dict) else {}
        op = request.get("op")
        failed = "error" in response
        refusal = response.get("accepted") is False or response.get("valid") is False
        entry = {
            "id": request.get("id") if isinstance(request.get("id"), int) else None,
            "op": op if isinstance(op, str) else None,
            "decided": [] if failed else _own_ids(record.decided, profile),
            "refused": _own_ids(record.refused, profile) if refusal and not failed else [],
        }
        os.write(self.fd, (json.dumps(entry, separators=(",", ":")) + "\n").encode())


def _own_ids(rules: Sequence[str], profile: Profile | None) -> list[str]:
    """``rules`` once each, with the profile's own point beside an Argentine point it
    restates, and no rule another profile states on its own."""
    found: list[str] = []
    own_prefix = _OWN_PREFIX.get(profile.name, "") if profile is not None else ""
    for rule in rules:
        prefix = next((p for p in _OWN_PREFIX.values() if rule.startswith(p)), None)
        if prefix is not None and prefix != own_prefix:
            continue
        own = own_point(profile, rule) if profile is not None else None
        found.extend(r for r in (rule, own) if r is not None and r not in found)
    return found


def serve(
    stdin: IO[str],
    stdout: IO[str],
    capabilities: Iterable[str] = ALL_CAPABILITIES,
    rulings: Mapping[str, str] | None = None,
    profiles: Iterable[str] | None = None,
    trace_rules: str | None = None,
    interface: Interface | None = None,
) -> None:
    """Answer requests from ``stdin`` until ``bye`` or end of input, playing ``rulings``
    (tracing rules into ``trace_rules``, when given, and presenting ``interface``)."""
    serve_adapter(Adapter(capabilities, rulings, profiles, trace_rules, interface), stdin, stdout)


def serve_adapter(adapter: Adapter, stdin: IO[str], stdout: IO[str]) -> None:
    """Answer requests from ``stdin`` by ``adapter`` until ``bye`` or end of input."""
    for line in stdin:
        if not line.strip():
            continue
        response, done = answer_line(adapter, line)
        stdout.write(response)
        stdout.flush()
        if done:
            return


def answer_line(adapter: Adapter, line: str) -> tuple[str, bool]:
    """The response line (with its newline) to the request ``line``; the flag says whether
    the session ends (after ``bye``)."""
    response, done = adapter.handle(line)
    return json.dumps(response, separators=(",", ":"), ensure_ascii=False) + "\n", done


if __name__ == "__main__":
    # The command line lives apart from the protocol (reference/adapter_cli.py).
    from reference.adapter_cli import main

    main()
