"""Which ops an engine answered and which it refused as ``unsupported``, per player count.

A run keeps one :class:`OpBook` per worker; :func:`merged` sums them into the run's
:class:`~conformance.grading.results.OpSupport` entries, which the verdict reads: an op answered in
one case and refused in another at the same player count is an inconsistency, and a player
count the engine declares but refused every request of is not played (conformance/run/verdict.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance.grading.results import OP_EXAMPLES, OpSupport

#: (op, players) -> [answered, refused, the cases answered in, the cases refused in]
_Entry = list[Any]


def op_label(op: str, fields: Mapping[str, Any] | None = None) -> str:
    """The name an op is counted under: the op, or ``act:<type>`` for an action."""
    if op == "act" and fields is not None:
        action = fields.get("action")
        if isinstance(action, Mapping):
            return f"act:{action.get('type')}"
    return op


class OpBook:
    """One worker's count of the requests answered and refused, by op and player count."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, int | None], _Entry] = {}

    def answered(self, op: str, players: int | None, case: str) -> None:
        """``op`` was answered in ``case`` (seating ``players``)."""
        self._note(op, players, case, 0)

    def refused(self, op: str, players: int | None, case: str) -> None:
        """``op`` was answered ``unsupported`` in ``case`` (seating ``players``)."""
        self._note(op, players, case, 1)

    def _note(self, op: str, players: int | None, case: str, side: int) -> None:
        entry = self._entries.get((op, players))
        if entry is None:
            entry = self._entries[(op, players)] = [0, 0, set(), set()]
        entry[side] += 1
        entry[2 + side].add(case)


def merged(books: Iterable[OpBook]) -> tuple[OpSupport, ...]:
    """The run's OpSupport entries from its workers' books, by op then player count; each
    names the first cases by id on each side, whichever worker ran them."""
    total: dict[tuple[str, int | None], _Entry] = {}
    for book in books:
        for key, (answered, refused, yes, no) in book._entries.items():
            entry = total.setdefault(key, [0, 0, set(), set()])
            entry[0] += answered
            entry[1] += refused
            entry[2] |= yes
            entry[3] |= no
    return tuple(
        OpSupport(
            op,
            players,
            answered,
            refused,
            tuple(sorted(yes)[:OP_EXAMPLES]),
            tuple(sorted(no)[:OP_EXAMPLES]),
            len(yes),
            len(no),
        )
        for (op, players), (answered, refused, yes, no) in sorted(
            total.items(), key=lambda item: (item[0][0], item[0][1] or 0)
        )
    )


def refused_states(books: Iterable[OpBook]) -> frozenset[str]:
    """The cases whose ``load_state`` was answered ``unsupported`` at a player count where
    the engine loaded the state of another case: a state it refuses, not an op it lacks
    (graded as one: conformance.grading.refusals)."""
    answered: set[int | None] = set()
    refused: dict[int | None, set[str]] = {}
    for book in books:
        for (op, players), (yes, no, _, cases) in book._entries.items():
            if op != "load_state":
                continue
            if yes:
                answered.add(players)
            if no:
                refused.setdefault(players, set()).update(cases)
    return frozenset(case for players in answered for case in refused.get(players, ()))


def inconsistent(ops: Iterable[OpSupport]) -> list[OpSupport]:
    """The ops answered in some cases and refused as ``unsupported`` in others. A
    ``load_state`` is not one: refusing it says the engine cannot hold the state it is
    handed (docs/protocol.md §1), and each case so refused fails once, as a refusal of
    its state (:func:`refused_states`)."""
    return [
        entry
        for entry in ops
        if entry.inconsistent and entry.op != "load_state" and not entry.expected
    ]


def refused_at_one_count(ops: Iterable[OpSupport]) -> list[OpSupport]:
    """The ops refused as ``unsupported`` at a player count where the engine played other
    ops, and answered at another count: discards refused at 2 players, answered at 3 and
    4, while the 2-player draws were answered. docs/protocol.md §1 lets ``unsupported`` say
    "this op", "this player count" or "this action", never "this action at this count":
    refusing there hides what it would fail, as an op refused case by case does."""
    entries = list(ops)
    answered_at: dict[str, set[int | None]] = {}
    played: set[int | None] = set()
    for entry in entries:
        if entry.answered:
            answered_at.setdefault(entry.op, set()).add(entry.players)
            if entry.op != "load_state":
                played.add(entry.players)
    return [
        entry
        for entry in entries
        if entry.players is not None
        and entry.refused
        and not entry.answered
        and not entry.expected
        and entry.players in played
        and answered_at.get(entry.op, set()) - {entry.players, None}
    ]


#: Each capability's ops (an action by its type, ``act:``), its *gateway* (the op every
#: case of it starts with), and the ops that show it played (``load_state`` shows nothing
#: played: echoing a state the harness built plays nothing).
CAPABILITY_OPS: Mapping[str, tuple[str, ...]] = {
    "melds": ("check_meld", "check_contract", "penalty"),
    "turns": ("load_state", "act:"),
    "deals": ("start_deal", "next_deal", "redeal", "new_game"),
}
_GATEWAY: Mapping[str, str] = {"melds": "check_meld", "turns": "load_state", "deals": "start_deal"}
_PLAYED: Mapping[str, tuple[str, ...]] = {**CAPABILITY_OPS, "turns": ("act:",)}


def broken_claims(ops: Iterable[OpSupport], capabilities: Iterable[str]) -> list[str]:
    """The capabilities claimed and never played: none of their ops answered (a
    ``load_state`` echo aside), and their gateway op refused as ``unsupported`` (every
    ``load_state``, every ``start_deal``) or two of their ops at least. An engine may lack
    one op of a capability (docs/protocol.md §1), never all it is asked. The run graded
    around them, but the claim says the engine plays them: a broken claim (drop the
    capability from the handshake, or play it)."""
    entries = list(ops)
    broken = []
    for capability in sorted(set(capabilities) & set(CAPABILITY_OPS)):
        mine = [e for e in entries if e.op.startswith(CAPABILITY_OPS[capability])]
        if any(e.answered for e in mine if e.op.startswith(_PLAYED[capability])):
            continue
        refused = {e.op for e in mine if e.refused}
        gateway = _GATEWAY[capability]
        shut = gateway in refused and not any(e.answered for e in mine if e.op == gateway)
        if shut or len(refused) >= 2:
            broken.append(capability)
    return broken


def claim_text(capability: str, ops: Iterable[OpSupport]) -> str:
    """What a broken claim says: the capability, and how many of its requests were refused."""
    names = CAPABILITY_OPS[capability]
    refused = sum(e.refused for e in ops if e.op.startswith(names))
    return (
        f"the engine claims {capability} but never played it ({refused} request(s) of it "
        "refused as unsupported, none answered): a capability claimed and never played is "
        "a broken claim; drop it from capabilities, or play it"
    )


def refused_players(ops: Iterable[OpSupport], declared: Sequence[int]) -> tuple[int, ...]:
    """The player counts of ``declared`` the engine refused. Nothing seating them was
    answered but a ``load_state`` (echoing a state the harness built plays nothing), and
    either an op refused at that count is answered at another, or every request seating
    them was refused while the engine answered others (another count's, or a melds
    query). docs/protocol.md §1 lets ``unsupported`` mean "this player count", so they are
    not played, whatever the handshake says. An op refused at every count beside others
    answered is an op the engine lacks; an engine refusing everything lacks everything:
    neither is a count."""
    answered_at: dict[str, set[int | None]] = {}
    answered: set[int | None] = set()
    played: set[int | None] = set()
    for entry in ops:
        if entry.answered:
            answered_at.setdefault(entry.op, set()).add(entry.players)
            answered.add(entry.players)
            if entry.op != "load_state":
                played.add(entry.players)
    refused = {
        entry.players
        for entry in ops
        if entry.players is not None
        and entry.refused
        and (
            answered_at.get(entry.op, set()) - {entry.players, None}
            or (entry.players not in answered and answered - {entry.players})
        )
    }
    return tuple(sorted(n for n in refused - played if n is not None and n in declared))


def _cases(count: int, named: Sequence[str]) -> str:
    more = ", ..." if count > len(named) else ""
    return f"{count} case(s) ({', '.join(named)}{more})"


def _at(entry: OpSupport) -> str:
    return "" if entry.players is None else f" at {entry.players} players"


#: What an inconsistency warning says ``unsupported`` means, and what to do instead.
_MEANING = (
    "unsupported says the engine lacks the op, the player count or the action, in every "
    "case (docs/protocol.md §1)"
)


def support_warnings(ops: Sequence[OpSupport], declared: Sequence[int]) -> tuple[str, ...]:
    """One line per op answered inconsistently (case by case, or at one player count
    only), and one for the player counts refused."""
    lines = [
        f"unsupported is inconsistent: the engine answered {entry.op}{_at(entry)} in "
        f"{_cases(entry.answered_cases, entry.answered_in)} and refused it as unsupported in "
        f"{_cases(entry.refused_cases, entry.refused_in)}; {_MEANING}. If the engine cannot "
        f"play from the states those {entry.refused_cases} case(s) load, refuse their "
        "load_state instead: each such case then fails once, as a state the engine refuses, "
        "a failure an expectations entry can keep"
        for entry in inconsistent(ops)
    ]
    for entry in refused_at_one_count(ops):
        elsewhere = sorted(
            e.players
            for e in ops
            if e.op == entry.op and e.answered and e.players not in (None, entry.players)
        )
        lines.append(
            f"unsupported is inconsistent: the engine refused {entry.op}{_at(entry)} as "
            f"unsupported in {_cases(entry.refused_cases, entry.refused_in)}, answered it at "
            f"{', '.join(map(str, elsewhere))} players, and played other ops at "
            f"{entry.players} players; {_MEANING}: refuse every request seating "
            f"{entry.players} players (or leave the count out of players), or answer it"
        )
    for entry in ops:
        if entry.kept_inconsistency:
            why = entry.expected or "no reason given"
            lines.append(
                f"unsupported kept as expected: {entry.op}{_at(entry)} refused in "
                f"{_cases(entry.refused_cases, entry.refused_in)} ({why})"
            )
    refused = refused_players(ops, declared)
    if refused:
        counts = ", ".join(map(str, refused))
        lines.append(
            f"the engine declares {counts} players but refused those games as unsupported "
            "(nothing seating them was answered but a load_state): they are counted as not "
            "played"
        )
    return tuple(lines)
