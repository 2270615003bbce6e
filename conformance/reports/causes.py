"""Causes, not symptoms: a run's failing checks grouped by what went wrong, one line each.

A joker counted 30 instead of 50 fails a penalty here, a deal's scores there and every
total after it, each with its own numbers: thirty lines of symptoms for one cause. Failing
checks are grouped so that one cause is one line:

1. checks an option explains (:mod:`conformance.reports.explain`: the reference playing that option,
   graded as the engine declared, fails them the same way) are one cause per explanation;
2. the other failing checks of one step of a case (or of its ``final`` block) follow the
   first of them, the *lead*: what one action did wrong shows in several fields at once;
3. leads are one cause when they share the op or field, the rules, the direction of the
   difference and the engine's own words; for scores (``deal_scores``, ``totals``, a melds
   penalty) the family and direction, or the card value one rank is counted at when the
   difference is that (``JK counted 30 instead of 50``).

A cause says its one-line summary, how many checks and cases it holds, its rules, its
smallest example (the case with the fewest checks: case, check, file and line) and the
option(s) that explain it, if any (``explained_by``); most checks first. Expected failures
(``xfail``) are no cause. The JSON report writes them as ``causes`` (docs/reports.md), each
with its checks (``members``), so ``report merge`` groups the merged checks again keeping
what the shards found (:func:`merged_causes`) and an expectations file can list a cause as
one entry (conformance/run/expectations.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from conformance.grading.results import CaseResult, CheckResult, RunResult

if TYPE_CHECKING:
    from conformance.knowledge.catalogue import Catalogue
    from conformance.run.runner import RunOptions
    from conformance.scenarios import Scenario

#: One option: (point or interface key, option).
Choice = tuple[str, str]
#: A failing check: (case id, check key).
CheckId = tuple[str, str]


@dataclass(frozen=True)
class Explanation:
    """What explains some failing checks: the options, and what each means."""

    #: Point (or interface key) -> option, sorted by point.
    choices: tuple[Choice, ...]
    #: Point -> the option's meaning in the catalogue's words (empty when unknown).
    meanings: tuple[tuple[str, str], ...] = ()

    def as_dict(self) -> dict[str, str]:
        """``{"VARIANT-01": "thirty"}``."""
        return dict(self.choices)

    def label(self) -> str:
        """``VARIANT-01=thirty (30 points)`` (options joined by ``and``)."""
        meaning = dict(self.meanings)
        parts = []
        for point, option in self.choices:
            words = meaning.get(point, "")
            parts.append(f"{point}={option}" + (f" ({words})" if words else ""))
        return " and ".join(parts)


@dataclass(frozen=True)
class Inference:
    """What the reference's options explain of a run's failing checks."""

    #: Failing check -> what explains it (a check absent is explained by nothing tried).
    explained: Mapping[CheckId, Explanation]
    #: The failing cases replayed (a failing check of another case was not tried).
    tried: frozenset[str] = frozenset()


#: Nothing tried.
NOTHING = Inference({})

#: The symptom of a table whose runs hold the expected cards in another order.
ORDER_ONLY = ("cards", "table", "the same cards in another order")

#: Score fields, compared as a family: their difference has a direction and a card value.
SCORE_FIELDS = frozenset({"deal_scores", "totals"})

_CARD = re.compile(
    r"^(?:penalty of (?P<card>[^\[\s:]+)|(?P<rank>\w+) left in hand): "
    r"expected (?P<e>-?\d+), got (?P<g>-?\d+)$"
)
_PENALTY = re.compile(r"^penalty of .*: expected (?P<e>-?\d+), got (?P<g>-?\d+)$")
_LISTS = re.compile(r"expected \[(?P<e>[-\d, ]*)\], got \[(?P<g>[-\d, ]*)\]")
_MIXED = re.compile(r"^penalty of \[(?P<cards>[^\]]*)\]: expected (?P<e>-?\d+), got (?P<g>-?\d+)$")
_REFUSED = re.compile(r"got (?:rejected \()?(?P<reason>[a-z_]+)\)?$")
_INDEX = re.compile(r"\[\d+\]")
#: A card, as a glyph (``10♠``) or a code (``'10S'``), or a joker.
_CARD_TOKEN = re.compile(r"(?<![\w])(?:JK|(?:10|[2-9AJQK])[♠♥♦♣SHDC])(?![\w])")
_NUMBERS = re.compile(r": expected (?P<e>-?\d+), got (?P<g>-?\d+)$")
_SHAPE = re.compile(r"\d+")

#: What a cause's summary says an option-explained cause should do.
ADVICE = "declare it in the handshake if your engine plays it, or fix the engine"

#: Card names in a summary (signatures name a rank in words).
_SHORT = {"joker": "JK", "ace": "A", "king": "K", "queen": "Q", "jack": "J"}


@dataclass(frozen=True)
class Example:
    """A cause's smallest example: one check of its case with the fewest checks."""

    case: str
    check: str
    line: int = 0
    #: The scenario file (empty when the report does not know it).
    file: str = ""

    def where(self) -> str:
        """``cc-0204 check 1 (scenarios/score.yaml:115)``."""
        place = f"{self.file}:{self.line}" if self.file else f"line {self.line}"
        return f"{self.case} {self.check} ({place})"


@dataclass(frozen=True)
class Cause:
    """One root cause of failing checks, however many checks and cases show it."""

    summary: str
    checks: int
    #: The cases it shows in, in run order.
    cases: tuple[str, ...]
    rules: tuple[str, ...]
    example: Example
    #: Point (or interface key) -> option that explains it; None when none does.
    explained_by: Mapping[str, str] | None = None
    #: Its checks: (case id, check key), in run order.
    members: tuple[CheckId, ...] = ()

    def as_record(self) -> dict[str, object]:
        """The JSON report's object (report schema ``causes``)."""
        return {
            "summary": self.summary,
            "checks": self.checks,
            "cases": list(self.cases),
            "rules": list(self.rules),
            "example": {
                "case": self.example.case,
                "check": self.example.check,
                "file": self.example.file,
                "line": self.example.line,
            },
            "explained_by": dict(self.explained_by) if self.explained_by is not None else None,
            "members": self.members_by_case(),
        }

    def members_by_case(self) -> dict[str, list[str]]:
        """Its checks as {case id: [check key, …]}, in run order (the report's ``members``,
        the checks an expectations file's cause entry lists)."""
        found: dict[str, list[str]] = {}
        for case_id, key in self.members:
            found.setdefault(case_id, []).append(key)
        return found

    def line(self) -> str:
        """The cause in one line: summary, counts, rules."""
        return (
            f"{self.summary} — {self.checks} check(s) in {len(self.cases)} case(s) "
            f"[{', '.join(self.rules)}]"
        )


def _numbers(text: str) -> list[int]:
    return [int(v) for v in text.replace(" ", "").split(",") if v]


def direction(signature: str) -> str | None:
    """``lower`` or ``higher`` when the got numbers of a signature differ one way from the
    expected ones; None when they are no numbers or differ both ways."""
    found = _LISTS.search(signature)
    pairs: list[tuple[int, int]] = []
    if found:
        expected, got = _numbers(found["e"]), _numbers(found["g"])
        if len(expected) != len(got):
            return None
        pairs = list(zip(expected, got, strict=True))
    else:
        one = _NUMBERS.search(signature)
        if one is None:
            return None
        pairs = [(int(one["e"]), int(one["g"]))]
    signs = {(g > e) - (g < e) for e, g in pairs} - {0}
    if len(signs) != 1:
        return None
    return "higher" if signs.pop() > 0 else "lower"


def _card(signature: str) -> tuple[str, int, int] | None:
    found = _CARD.match(signature)
    if found is None:
        return None
    name = found["card"] or found["rank"]
    name = _SHORT.get(name, name)
    if name != "JK" and name[-1:] in "♠♥♦♣":
        name = name[:-1]
    return name, int(found["e"]), int(found["g"])


def _words(note: str | None) -> str:
    """The engine's words with numbers and cards blurred, so one message is one key."""
    return _SHAPE.sub("#", (note or "").strip().lower())[:80]


def symptom(check: CheckResult) -> tuple[tuple[object, ...], str]:
    """What one failing check shows, as a grouping key and a summary."""
    sig = check.signature or check.what
    if is_score(check):
        way = direction(sig) or "other"
        said = {"lower": "lower than expected", "higher": "higher than expected"}
        return ("score", way), f"scores {said.get(way, 'differ from expected')}"
    refused = _REFUSED.search(sig) if check.what in ("accepted", "reason") else None
    if refused is not None and check.note:
        # One refusal of the engine's, whatever the case expected: its reason and its words.
        reason, words = refused["reason"], check.note.strip()
        return (
            ("refused", reason, _words(words)),
            f'the engine refuses with {reason} (engine says "{words[:60]}")',
        )
    if check.what == "accepted":
        return ("accepted", sig, check.rules), sig
    shift = direction(sig)
    if shift is not None:
        return ("field", check.what, shift), f"{check.what}: {shift} than expected"
    field = _field(sig, check.what)
    wanted, got = _cards_of(sig)
    if wanted and got:
        if sorted(wanted) == sorted(got):
            change = ORDER_ONLY[2]
        elif len(got) != len(wanted):
            change = "more cards" if len(got) > len(wanted) else "fewer cards"
            change += " than expected"
        else:
            change = "other cards than expected"
        return ("cards", field, change), f"{field}: {change}"
    if check.what == "unchanged":
        return ("unchanged", field), f"{field}: a refused action changed it"
    return ("field", check.what, check.rules, sig), sig


def _field(signature: str, what: str) -> str:
    """The state field a signature names: its first part, without an index or a
    parenthesis (``table`` for ``table[3].cards``)."""
    head = signature.split(": expected", 1)[0] if ": expected" in signature else what
    head = head.split(" (", 1)[0].split(".", 1)[0]
    return _INDEX.sub("", head).strip() or what


def _cards_of(signature: str) -> tuple[list[str], list[str]]:
    """The cards a signature shows expected and got (as glyphs or codes), or empty lists."""
    if ", got " not in signature:
        return [], []
    wanted, got = signature.split(", got ", 1)
    got = got.split(" (missing", 1)[0].split(" (unexpected", 1)[0]
    return _CARD_TOKEN.findall(wanted.split("expected", 1)[-1]), _CARD_TOKEN.findall(got)


def is_score(check: CheckResult) -> bool:
    """A score field, or a melds query's penalty."""
    sig = check.signature or ""
    return check.what in SCORE_FIELDS or (check.what == "answer" and bool(_PENALTY.match(sig)))


def card_table(checks: Sequence[CheckResult]) -> tuple[str, int, int] | None:
    """``(rank, expected, got)`` when one card counted at another value accounts for every
    score check of ``checks`` whose cards are known (and some are); None otherwise. A
    check whose cards the report does not give (a deal's scores) only has to agree in
    direction, which its grouping already ensures."""
    found: set[tuple[str, int, int]] = set()
    mixed: list[tuple[list[str], int]] = []
    for check in checks:
        sig = check.signature or ""
        card = _card(sig)
        if card is not None:
            found.add(card)
            continue
        listed = _MIXED.match(sig)
        if listed is not None:
            cards = [c if c == "JK" else c[:-1] for c in listed["cards"].split()]
            mixed.append((cards, int(listed["g"]) - int(listed["e"])))
    if len(found) != 1:
        return None
    rank, expected, got = found.pop()
    return (
        (rank, expected, got)
        if all(cards.count(rank) * (got - expected) == diff for cards, diff in mixed)
        else None
    )


def _explained_summary(fields: Sequence[str], explanation: Explanation) -> str:
    shown = ", ".join(fields[:4]) + (", …" if len(fields) > 4 else "")
    return f"{shown} differ: explained by {explanation.label()}: {ADVICE}"


def group_causes(
    results: Sequence[CaseResult],
    inference: Inference = NOTHING,
    files: Mapping[str, str] | None = None,
) -> tuple[Cause, ...]:
    """The causes of the failing checks of ``results``, most checks first (see the module
    docstring). ``files``: case id -> its scenario file, for the examples."""
    explained = inference.explained
    groups: dict[tuple[object, ...], list[tuple[CaseResult, CheckResult]]] = {}
    summaries: dict[tuple[object, ...], str] = {}
    ways: dict[tuple[object, ...], Explanation] = {}
    for result in results:
        lead: dict[int | None, tuple[tuple[object, ...], str]] = {}
        for check in result.checks:
            if check.status != "fail":
                continue
            why = explained.get((result.id, check.key))
            if why is not None:
                key: tuple[object, ...] = ("explained", why.choices)
                ways[key] = why
            else:
                if check.step not in lead:
                    lead[check.step] = symptom(check)
                key, summary = lead[check.step]
                summaries.setdefault(key, summary)
            groups.setdefault(key, []).append((result, check))
    _adopt(groups, ways, inference)
    causes = []
    for key, members in groups.items():
        why = ways.get(key)
        fields = list(dict.fromkeys(c.what for _, c in members))
        if why is not None:
            summary = _explained_summary(fields, why)
        elif key[0] == "score" and (table := card_table([c for _, c in members])) is not None:
            rank, expected, got = table
            summary = f"{rank} counted {got} instead of {expected}"
        else:
            summary = summaries[key]
        causes.append(_cause(summary, members, why, files or {}))
    causes.sort(key=lambda c: (-c.checks, c.summary))
    return tuple(causes)


def _adopt(
    groups: dict[tuple[object, ...], list[tuple[CaseResult, CheckResult]]],
    ways: dict[tuple[object, ...], Explanation],
    inference: Inference,
) -> None:
    """Checks of cases the inference did not replay join the explanation of their symptom's
    replayed checks, when every replayed check of that symptom has that one explanation."""
    if not inference.tried:
        return
    seen: dict[tuple[object, ...], set[tuple[object, ...]]] = {}
    for key, members in groups.items():
        for result, check in members:
            if result.id in inference.tried:
                seen.setdefault(symptom(check)[0], set()).add(key)
    for key in [k for k in groups if k not in ways]:
        members = groups[key]
        keep = []
        for result, check in members:
            home = seen.get(symptom(check)[0], set())
            target = next(iter(home)) if len(home) == 1 else None
            if result.id not in inference.tried and target is not None and target in ways:
                groups[target].append((result, check))
            else:
                keep.append((result, check))
        if keep:
            groups[key] = keep
        else:
            del groups[key]


def _cause(
    summary: str,
    members: Sequence[tuple[CaseResult, CheckResult]],
    why: Explanation | None,
    files: Mapping[str, str],
) -> Cause:
    cases = tuple(dict.fromkeys(r.id for r, _ in members))
    rules = tuple(dict.fromkeys(rule for _, c in members for rule in c.rules))
    smallest, check = min(members, key=lambda m: len(m[0].checks))
    example = Example(smallest.id, check.key, check.line, files.get(smallest.id, ""))
    return Cause(
        summary=summary,
        checks=len(members),
        cases=cases,
        rules=rules,
        example=example,
        explained_by=why.as_dict() if why is not None else None,
        members=tuple((r.id, c.key) for r, c in members),
    )


def cause_from_record(record: Mapping[str, object]) -> Cause:
    """A cause read back from a JSON report (``members`` empty when the report is older
    than them)."""
    example = record.get("example")
    written = record.get("members")
    members = (
        tuple(
            (str(case_id), str(key))
            for case_id, keys in written.items()
            if isinstance(keys, list)
            for key in keys
        )
        if isinstance(written, Mapping)
        else ()
    )
    ex = example if isinstance(example, Mapping) else {}
    explained = record.get("explained_by")
    return Cause(
        summary=str(record.get("summary", "")),
        checks=int(record.get("checks", 0) or 0),  # type: ignore[call-overload]
        cases=tuple(str(c) for c in record.get("cases", ()) or ()),  # type: ignore[attr-defined]
        rules=tuple(str(r) for r in record.get("rules", ()) or ()),  # type: ignore[attr-defined]
        example=Example(
            str(ex.get("case", "")),
            str(ex.get("check", "")),
            int(ex.get("line", 0) or 0),
            str(ex.get("file", "") or ""),
        ),
        explained_by=(
            {str(k): str(v) for k, v in explained.items()}
            if isinstance(explained, Mapping)
            else None
        ),
        members=members,
    )


def merged_causes(
    results: Sequence[CaseResult],
    shards: Sequence[Sequence[Cause]],
    catalogue: Catalogue | None = None,
) -> tuple[Cause, ...]:
    """The causes of a report merged from shards (``report merge``): grouped again from the
    merged cases' failing checks, each check keeping the option its shard found to explain
    it when every shard that failed it names the same one (shards replay only their own
    cases). ``shards``: each shard report's causes; a shard whose causes do not list their
    checks (a report older than ``members``) explains nothing. ``catalogue`` gives each
    option's words, as a run says them."""
    failing = {(r.id, c.key) for r in results for c in r.checks if c.status == "fail"}
    if not failing:
        return ()
    votes: dict[CheckId, set[tuple[Choice, ...] | None]] = {}
    files: dict[str, str] = {}
    for causes in shards:
        for cause in causes:
            if cause.example.file:
                files.setdefault(cause.example.case, cause.example.file)
        if not causes or not all(cause.members for cause in causes):
            continue
        for cause in causes:
            way = tuple(sorted(cause.explained_by.items())) if cause.explained_by else None
            for member in cause.members:
                if member in failing:
                    votes.setdefault(member, set()).add(way)
    ways: dict[tuple[Choice, ...], Explanation] = {}
    explained: dict[CheckId, Explanation] = {}
    for member, seen in votes.items():
        way = next(iter(seen)) if len(seen) == 1 else None
        if way is None:
            continue
        if way not in ways:
            ways[way] = _explanation(way, catalogue)
        explained[member] = ways[way]
    return group_causes(results, Inference(explained), files)


def _explanation(choices: tuple[Choice, ...], catalogue: Catalogue | None) -> Explanation:
    if catalogue is None:
        return Explanation(choices)
    from conformance.reports.explain import explanation

    return explanation(choices, catalogue)


def infer(
    run: RunResult,
    scenarios: Sequence[Scenario],
    catalogue: Catalogue | None,
    *,
    reference: Sequence[str] | None = None,
    options: RunOptions | None = None,
) -> Inference:
    """The options that explain the failing checks of ``run``, asked of the reference
    (conformance.reports.explain); nothing asked, and nothing started, when no check failed."""
    if catalogue is None or not any(c.status == "fail" for r in run.results for c in r.checks):
        return NOTHING
    # Imported here: it starts adapters, and a run with no failing check never needs it.
    from conformance.reports.explain import infer_rulings

    return infer_rulings(run, scenarios, catalogue, reference=reference, options=options)


def with_causes(
    run: RunResult, scenarios: Sequence[Scenario], inference: Inference = NOTHING
) -> RunResult:
    """``run`` with its failing checks grouped into causes (``inference``: what explains
    them, from :func:`infer`). A run with no failing check costs nothing here."""
    if not any(c.status == "fail" for r in run.results for c in r.checks):
        return run
    files = {s.id: _shown_path(s.path) for s in scenarios}
    return replace(run, causes=group_causes(run.results, inference, files))


def _shown_path(path: str) -> str:
    """A scenario file relative to the working directory when it lies below it."""
    here = os.getcwd()
    return os.path.relpath(path, here) if path.startswith(here + os.sep) else path


def causes_of(run: RunResult) -> tuple[Cause, ...]:
    """The run's causes: worked out with the run, else grouped now from its checks alone
    (no option inferred)."""
    return run.causes or group_causes(run.results)


def report_causes(doc: Mapping[str, object], results: Sequence[CaseResult]) -> tuple[Cause, ...]:
    """A report's causes: as its run wrote them (with the options inferred then), else, for
    a report older than them or merged from shards, grouped again from its checks."""
    written = doc.get("causes")
    if isinstance(written, list) and written:
        return tuple(cause_from_record(c) for c in written if isinstance(c, Mapping))
    return group_causes(results)
