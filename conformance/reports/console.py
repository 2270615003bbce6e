"""What a run says on the terminal: brief where all is as expected, detailed where not.

The main job (``run --profile all``) is read in CI logs, so a run where nothing is
unexpected prints a header, one line per section (or per profile), and the summary; the
detail appears only where something differs from what the engine declared. Three levels:

``quiet`` (``-q``)
    a header line, what fails the run (failures, errors, cases not run, xpass, broken
    laws, failing checks by rule, causes), one line that the laws held, the summary;
    within ``--profile all`` a profile where nothing failed is its summary line alone
``normal``
    as ``quiet``, plus the corpus path and one line per rule section (within
    ``--profile all``: a header per profile instead), and the rows of the rulings table
    where the engine plays another option than the profile
``verbose`` (``-v``)
    every case that did not pass with its reason, every disputed case, the whole rulings
    table and every law

The summary line of a profile gives the cases by status, then what a green is made of:
checks graded against all, and what was not graded by cause (:mod:`conformance.run.verdict`).
Every count is read from :mod:`conformance.grading.results` (``graded``,
``failing_rules``) and :mod:`conformance.reports.causes`, as the reports read them, so the
terminal and the files never differ.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from conformance.grading.results import (
    STATUSES,
    CaseResult,
    Cause,
    RunResult,
    failing_rules,
)
from conformance.knowledge.catalogue import Catalogue
from conformance.reports.causes import causes_of
from conformance.reports.errors import ErrorGroup, error_groups, recurring_errors
from conformance.run.verdict import (
    EXIT_OK,
    Verdict,
    has_checks,
    hidden_sections,
    run_declarations,
)
from conformance.version import CORPUS_VERSION, __version__

if TYPE_CHECKING:
    from conformance.adapter.engine import Handshake

QUIET = "quiet"
NORMAL = "normal"
VERBOSE = "verbose"
VERBOSITIES = (QUIET, NORMAL, VERBOSE)

#: Statuses shown case by case at every level: everything that fails the run.
LOUD_STATUSES = frozenset({"fail", "error", "not_run", "xpass"})
#: Case ids shown per rule or divergence before "and N more".
IDS_SHOWN = 6
#: Rules listed by failing checks, most first, before "and N more" (all at VERBOSE).
RULES_SHOWN = 10
#: Causes listed, most checks first, before "and N more" (all of them at VERBOSE).
CAUSES_SHOWN = 10
#: Lines of an engine's stderr tail shown under an errored case.
STDERR_LINES = 10


def engine_name(handshake: Handshake | None) -> str:
    """``reference 0.1.0 (python)``, or ``unknown engine`` before a handshake."""
    if handshake is None:
        return "unknown engine"
    return f"{handshake.name} {handshake.version} ({handshake.language})"


def counts_text(counts: Mapping[str, int]) -> str:
    """``282 pass, 5 unsupported``: the non-zero statuses, in STATUSES order."""
    return ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts.get(s))


def all_header(handshake: Handshake | None, corpus: str, *, quiet: bool = False) -> str:
    """The one header of ``run --profile all``: harness, corpus and engine (and, unless
    ``quiet``, where the corpus was read)."""
    line = f"carioca-conformance {__version__}, corpus {CORPUS_VERSION}: {engine_name(handshake)}"
    return line + "\n" if quiet else f"{line}\ncorpus: {corpus}\n"


def profiles_line(codes: Mapping[str, int], unlisted: Sequence[str]) -> str:
    """The last line of ``run --profile all``: each profile's outcome, and those left out."""
    shown = ", ".join(
        f"{name} {'ok' if code == EXIT_OK else f'exit {code}'}" for name, code in codes.items()
    )
    left = f"; not listed by the engine: {', '.join(unlisted)}" if unlisted else ""
    return f"profiles: {shown}{left}\n"


def run_text(
    run: RunResult,
    catalogue: Catalogue | None,
    verdict: Verdict,
    *,
    verbosity: str = NORMAL,
    part_of_all: bool = False,
) -> str:
    """The terminal summary of one profile's run at ``verbosity`` (QUIET, NORMAL, VERBOSE).

    ``part_of_all``: the run is one profile of ``run --profile all``, whose header
    (:func:`all_header`) already named the engine and the corpus.
    """
    if verbosity not in VERBOSITIES:
        raise ValueError(f"unknown verbosity {verbosity!r}; expected one of {VERBOSITIES}")
    body = _body(run, catalogue, verbosity, part_of_all)
    lines = _header(run, verbosity, part_of_all, bool(body))
    lines.extend(body)
    prefix = f"{run.profile}: " if part_of_all else ""
    summary = f"{prefix}{len(run.results)} cases: {counts_text(run.counts) or 'none'}"
    summary += f" in {run.duration:.1f} s"
    if verdict.tally is not None:
        summary += f"; {verdict.tally.line()}"
    if body:
        lines.append("")
    lines.append(summary)
    if verbosity == QUIET:
        # Quiet output is read as a list of what failed: no spacing.
        lines = [line for line in lines if line]
    return "\n".join(lines) + "\n"


def _header(run: RunResult, verbosity: str, part_of_all: bool, loud: bool) -> list[str]:
    """The profile's header lines; within ``--profile all`` at QUIET only when there is
    something to show under it."""
    digest = run.corpus_digest or "-"
    if part_of_all:
        if verbosity == QUIET and not loud:
            return []
        if verbosity == QUIET:
            return [f"== profile {run.profile}"]
        return [f"== profile {run.profile}: {len(run.results)} cases, digest {digest}"]
    lines = [
        f"carioca-conformance {__version__}, corpus {CORPUS_VERSION} "
        f"({len(run.results)} cases, digest {digest}): {engine_name(run.handshake)}, "
        f"profile {run.profile}"
    ]
    if run.corpus_path and verbosity != QUIET:
        lines.append(f"corpus: {run.corpus_path}")
    return lines


def _body(
    run: RunResult, catalogue: Catalogue | None, verbosity: str, part_of_all: bool
) -> list[str]:
    """Everything between the header and the summary line."""
    lines = [f"warning: {problem}" for problem in run.warnings]
    # At VERBOSE every diff is shown in full, so nothing is "named once" there.
    causes = causes_of(run) if has_checks(run.results) else ()
    recurring = _recurring(causes) if verbosity != VERBOSE else {}
    # Errors of one behaviour are told once, in the "Errors" block (every one at VERBOSE).
    groups = error_groups(run.results)
    errors = recurring_errors(groups) if verbosity != VERBOSE else {}
    # One line per section only when a single profile runs at NORMAL or above: within
    # --profile all a section shows up only when something in it fails.
    every_section = verbosity == VERBOSE or (verbosity == NORMAL and not part_of_all)
    lines.extend(_sections(run, catalogue, verbosity, every_section, recurring, errors))
    lines.extend(_not_run(run.results))
    lines.extend(_disputed(run, catalogue, verbosity, every_section, recurring, errors))
    lines.extend(_rulings(run, catalogue, verbosity))
    lines.extend(_laws(run, verbosity))
    lines.extend(_by_rule(run.results, verbosity == VERBOSE))
    lines.extend(cause_lines(causes, verbose=verbosity == VERBOSE, results=run.results))
    if errors:
        lines.extend(error_lines(groups, run.results))
    lines.extend(_hidden(run, catalogue))
    return lines


def _hidden(run: RunResult, catalogue: Catalogue | None) -> list[str]:
    lines = hidden_notes(run.results, catalogue)
    return ["", *lines] if lines else []


def hidden_notes(results: Sequence[CaseResult], catalogue: Catalogue | None) -> list[str]:
    """One ``note:`` line per rule section the engine's declarations kept mostly ungraded
    (conformance.run.verdict.hidden_sections): its green says little of that section."""
    lines = []
    for section, kept, total, why in hidden_sections(results):
        title = catalogue.section_title(section) if catalogue else section
        lines.append(
            f"note: {section} — {title}: {kept} of {total} checks not graded ({why}): "
            "what the engine declares or refuses hides most of this section"
        )
    return lines


def _sections(
    run: RunResult,
    catalogue: Catalogue | None,
    verbosity: str,
    every_section: bool,
    recurring: Mapping[tuple[str, str], int],
    errors: Mapping[str, int],
) -> list[str]:
    by_section: dict[str, list[CaseResult]] = defaultdict(list)
    for result in run.results:
        if not result.dispute:
            by_section[result.section].append(result)

    def rank(section: str) -> tuple[int, str]:
        return (catalogue.section_rank(section) if catalogue else 0, section)

    lines: list[str] = []
    for section in sorted(by_section, key=rank):
        results = by_section[section]
        shown = _shown(results, verbosity)
        if not (every_section or shown):
            continue
        counts: dict[str, int] = defaultdict(int)
        for result in results:
            counts[result.status] += 1
        title = catalogue.section_title(section) if catalogue else section
        if not lines or shown or verbosity == VERBOSE:
            lines.append("")
        lines.append(f"{section} — {title}: {counts_text(counts)}")
        lines.extend(case_lines(r, verbosity, recurring, errors) for r in shown)
    return lines


def _shown(results: Sequence[CaseResult], verbosity: str) -> list[CaseResult]:
    """The cases listed one by one: every one that did not pass at VERBOSE, else the
    loud ones."""
    # Cases not run are one line for the run (_not_run), never one each.
    if verbosity == VERBOSE:
        return [r for r in results if r.status not in ("pass", "not_run")]
    return [r for r in results if r.status in LOUD_STATUSES and r.status != "not_run"]


def _not_run(results: Sequence[CaseResult]) -> list[str]:
    """One line for every case not run (the run stopped, or ended first), with why and the
    first few ids."""
    skipped = [r for r in results if r.status == "not_run"]
    if not skipped:
        return []
    why = Counter((r.note or "not run").removeprefix("not run: ") for r in skipped)
    ids = ", ".join(r.id for r in skipped[:IDS_SHOWN])
    more = f" and {len(skipped) - IDS_SHOWN} more" if len(skipped) > IDS_SHOWN else ""
    reasons = "; ".join(why for why, _ in why.most_common())
    return ["", f"{len(skipped)} case(s) not run ({reasons}): {ids}{more}"]


def _disputed(
    run: RunResult,
    catalogue: Catalogue | None,
    verbosity: str,
    every_section: bool,
    recurring: Mapping[tuple[str, str], int],
    errors: Mapping[str, int],
) -> list[str]:
    """The cases that test a disputed point, graded under the option the engine plays."""
    disputed = [r for r in run.results if r.dispute]
    if not disputed:
        return []
    if verbosity != VERBOSE:
        shown = _shown(disputed, verbosity)
        if not (every_section or shown):
            return []
        counts: dict[str, int] = defaultdict(int)
        for result in disputed:
            counts[result.status] += 1
        head = f"Disputed points (graded as the engine rules them): {counts_text(counts)}"
        return ["", head, *(case_lines(r, verbosity, recurring, errors) for r in shown)]
    declared = run_declarations(run, catalogue)
    lines = ["", "Disputed points (engine ruling / profile ruling):"]
    for r in disputed:
        assert r.dispute is not None
        mine = (declared.declared.get(r.dispute) if declared else None) or "not declared"
        theirs = (declared.profile_options.get(r.dispute) if declared else None) or "?"
        lines.append(
            f"  {r.id} {r.dispute}: engine {mine}, profile {theirs}, "
            f"graded as {r.option or '?'}: {r.status}"
        )
        if r.status != "pass":
            lines.append(case_lines(r, verbosity, recurring, errors))
    return lines


def _rulings(run: RunResult, catalogue: Catalogue | None, verbosity: str) -> list[str]:
    """The rulings table: whole at VERBOSE, else only the rows where the engine plays
    another option than the profile (nothing when there are none)."""
    declared = run_declarations(run, catalogue)
    if declared is None or catalogue is None or not declared.plays_profile:
        return []
    points = catalogue.disputes_for(run.profile)
    if verbosity != VERBOSE:
        # Only the profile's own points: a point of another profile the engine declares
        # (as a many-profile engine does) is not graded here.
        rows = [point for point in declared.other_rulings if point in points]
        if not rows:
            return []
        lines = ["", f"Rulings the engine plays otherwise (engine / profile {run.profile}):"]
    else:
        rows = list(points)
        lines = ["", f"Rulings (engine declared / profile {run.profile}; * where they differ):"]
    for point in rows:
        mine = declared.declared.get(point)
        theirs = declared.profile_options.get(point, "?")
        mark = "*" if declared.differs(point) else " "
        lines.append(
            f" {mark}{point:<11} {mine or 'not declared':<14} {theirs:<14} {points[point].title}"
        )
    return lines


def _laws(run: RunResult, verbosity: str) -> list[str]:
    """The laws over seeded deals (``run --properties``): one line when all held, unless
    VERBOSE."""
    laws = run.properties
    if not laws:
        return []
    head = f"Laws over seeded deals (seed {laws[0].seed})"
    if not any(law.applies for law in laws):
        return ["", f"{head}: {laws[0].detail}"]  # one reason for all: what they need
    if verbosity != VERBOSE and all(law.passed for law in laws):
        return ["", f"{head}: all {len(laws)} held"]
    held = sum(law.passed for law in laws)
    unchecked = sum(not law.checked for law in laws)
    # A law that could check nothing is no pass, and not a broken law either: say which.
    tail = f" ({unchecked} not checked)" if unchecked else ""
    lines = ["", f"{head}: {held} of {len(laws)} held{tail}"]
    for law in laws:
        if law.passed and verbosity != VERBOSE:
            continue
        lines.append(
            f"  {law.verdict:<4} {law.name} ({', '.join(law.rules)}): {law.detail}".rstrip()
        )
    return lines


def _by_rule(results: Sequence[CaseResult], every: bool = False) -> list[str]:
    """What failed, by rule and by divergence: counted by failing checks when the results
    carry checks (one root cause is one line with its count), else by the cases citing
    each rule."""
    lines: list[str] = []
    if has_checks(results):
        rules = failing_rules(results)
        if rules:
            lines += ["", "Failing checks by rule:"]
            listed = list(rules.items()) if every else list(rules.items())[:RULES_SHOWN]
            lines += [f"  {rule:<16} {count:>4}" for rule, count in listed]
            left = list(rules.values())[len(listed) :]
            if left:
                lines.append(
                    f"  and {len(left)} more rule(s) of {sum(left)} check(s) (-v lists them)"
                )
        return lines
    cases: dict[str, list[str]] = defaultdict(list)
    for result in results:
        if result.status in ("fail", "error"):
            for rule in result.rules:
                cases[rule].append(result.id)
    if cases:
        lines += ["", "Failures and errors by rule (cases citing it):"]
        for rule, ids in sorted(cases.items(), key=lambda item: (-len(item[1]), item[0])):
            shown = " ".join(ids[:IDS_SHOWN])
            more = f" and {len(ids) - IDS_SHOWN} more" if len(ids) > IDS_SHOWN else ""
            lines.append(f"  {rule:<16} {len(ids):>4}  {shown}{more}")
    return lines


def _recurring(causes: Sequence[Cause]) -> dict[tuple[str, str], int]:
    """The failing checks of the causes listed that hold more than one, by (case id, check
    key), to the cause's number in the "Causes" block (a check of a cause not listed keeps
    its diff)."""
    return {
        member: number
        for number, cause in enumerate(causes[:CAUSES_SHOWN], start=1)
        if cause.checks > 1
        for member in cause.members
    }


def cause_lines(
    causes: Sequence[Cause], *, verbose: bool = False, results: Sequence[CaseResult] = ()
) -> list[str]:
    """The "Causes" block: one numbered line per cause, most checks first, then its example
    and the rest of its cases; ``verbose`` adds every check of it (from ``results``)."""
    if not causes:
        return []
    lines = ["", "Causes (most checks first):"]
    checks = {(r.id, c.key): c for r in results for c in r.checks} if verbose else {}
    shown = causes if verbose else causes[:CAUSES_SHOWN]
    for number, cause in enumerate(shown, start=1):
        lines.append(f"  {number}. {cause.line()}")
        others = [c for c in cause.cases if c != cause.example.case]
        more = f" and {len(others) - IDS_SHOWN} more" if len(others) > IDS_SHOWN else ""
        rest = f"; also {' '.join(others[:IDS_SHOWN])}{more}" if others else ""
        lines.append(f"     e.g. {cause.example.where()}{rest}")
        for case, key in cause.members if verbose else ():
            check = checks.get((case, key))
            diff = " ".join((check.diff or "").split()) if check is not None else ""
            line = f" line {check.line}" if check is not None else ""
            lines.append(f"       {case} {key}{line}: {diff}".rstrip())
    if len(causes) > len(shown):
        unlisted = causes[len(shown) :]
        lines.append(
            f"  and {len(unlisted)} more cause(s) of {sum(c.checks for c in unlisted)} "
            "check(s) (-v lists them)"
        )
    return lines


def case_lines(
    result: CaseResult,
    verbosity: str,
    recurring: Mapping[tuple[str, str], int],
    errors: Mapping[str, int] | None = None,
) -> str:
    """One case: its status, id and title, then why.

    A failed case with checks names each failing check (its key and rules) with its diff;
    a check whose cause holds others (``recurring``) is described once, in the "Causes"
    block, and named here by its number; when every failing check is, the case is one
    line naming them. An errored case whose error others share (``errors``: case id ->
    its group's number) is one line naming its group in the "Errors" block.
    """
    out = [f"  {result.status.upper():<11} {result.id} {result.title}"]
    number = (errors or {}).get(result.id) if result.status == "error" else None
    if number is not None:
        return out[0] + f" — error {number} (see Errors)"
    failing = [c for c in result.checks if c.status == "fail"]
    numbers = [recurring.get((result.id, c.key)) for c in failing]
    if failing and None not in numbers:
        # Every failing check is told in the Causes block: one line for the case.
        keys: dict[int, list[str]] = {}
        for check, number in zip(failing, numbers, strict=True):
            assert number is not None
            keys.setdefault(number, []).append(check.key)
        named = "; ".join(f"{', '.join(k)}: cause {n}" for n, k in keys.items())
        out[0] += f" — {named} (see Causes)"
    elif failing:
        for check in failing:
            where = f"{check.key} [{', '.join(check.rules)}]"
            number = recurring.get((result.id, check.key))
            if number is not None:
                out.append(f"      {where}: cause {number} (see Causes)")
                continue
            out.append(f"      {where}:")
            out.extend("        " + line for line in (check.diff or check.what).splitlines())
    elif result.diff:
        out.extend("      " + line for line in result.diff.splitlines())
    out.extend(why_lines(result))
    return "\n".join(out)


def error_lines(groups: Sequence[ErrorGroup], results: Sequence[CaseResult]) -> list[str]:
    """The "Errors" block: one numbered line per behaviour more than one errored case
    shows, its example case with the engine's stderr, and the rest of its cases."""
    by_id = {r.id: r for r in results}
    lines = ["", "Errors (one line per behaviour, most cases first):"]
    for number, group in enumerate(groups, start=1):
        if len(group.cases) < 2:
            continue  # a lone error is told under its case
        lines.append(f"  {number}. {group.line()}")
        example, *others = group.cases
        more = f" and {len(others) - IDS_SHOWN} more" if len(others) > IDS_SHOWN else ""
        rest = f"; also {' '.join(others[:IDS_SHOWN])}{more}" if others else ""
        lines.append(f"     e.g. {example}{rest}")
        tail = by_id[example].stderr_tail if example in by_id else ""
        if tail:
            lines.append("     engine stderr (tail):")
            lines.extend("       " + line for line in tail.splitlines()[-STDERR_LINES:])
    return lines


def why_lines(result: CaseResult) -> list[str]:
    """A case's error, note and the tail of the engine's stderr, indented under the case."""
    out: list[str] = []
    if result.error:
        out.append(f"      {result.error}")
    if result.note:
        out.append(f"      {result.note}")
    if result.stderr_tail:
        out.append("      engine stderr (tail):")
        out.extend("        " + line for line in result.stderr_tail.splitlines()[-STDERR_LINES:])
    return out


__all__ = [
    "LOUD_STATUSES",
    "NORMAL",
    "QUIET",
    "VERBOSE",
    "VERBOSITIES",
    "all_header",
    "case_lines",
    "counts_text",
    "engine_name",
    "error_lines",
    "profiles_line",
    "run_text",
]
