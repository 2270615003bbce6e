"""The report people look at: one self-contained HTML page (its Markdown digest is
conformance/reports/markdown_report.py).

:func:`render_html` turns the JSON run reports of one or more engines (and, optionally,
fuzz reports) into a single page with no external asset and no network access, which
works from a ``file://`` URL:

- under the title, each run's badge line and its checks: how many were graded of all,
  and what was not graded, by cause (and the profile's player counts the engine does not
  play);
- the conformance matrix: rule sections down, engines across, each cell the passed/graded
  count of cases coloured by result, with its checks graded, a ``<details>`` that opens
  (mouse, Enter or Space) on the section's cases with their failing checks and diffs and
  the checks not graded and why;
- failing checks by rule (each check counted under its own rules) and the recurring
  divergences (one root cause, one line with its count);
- the disputed points and house variants: each engine's declared option beside the
  profile's, and how each disputed case was graded;
- each engine's handshake (capabilities, profiles, player counts, interface
  declarations), the harness, corpus (digest) and protocol versions of its run;
- the laws over seeded deals, when a run checked them; fuzz findings, when given.

Every count is made again from the reports' cases and checks, never read from their
``summary`` or ``badges`` (conformance/reports/report_tools.py). Every string from a report is
HTML-escaped here (the harness already made engine text
safe, conformance/io/textsafe.py, but safe text is not HTML). Cards are shown as glyphs
(``10♥``, ``🃏``), red suits in red. The page is usable on a phone-sized screen (the
wide tables scroll sideways, the section column stays in view) and by keyboard (every
expandable part is a ``<summary>`` with a visible focus ring). docs/reports.md
describes it.
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from conformance.grading.results import CaseResult, divergences, failing_rules, graded
from conformance.io.files import atomic_write_text
from conformance.io.textsafe import escape
from conformance.reports.causes import report_causes
from conformance.reports.report import (
    badges,
    build_report,
    check_text,
    checks_line,
)
from conformance.reports.report_tools import FAILING, LoadedReport, count_cases
from conformance.version import __version__

if TYPE_CHECKING:
    from conformance.knowledge.catalogue import Catalogue
    from conformance.run.runner import RunResult

#: Order in which a cell lists its cases: what needs attention first.
_STATUS_ORDER = {s: i for i, s in enumerate(("fail", "error", "not_run", "xpass", "xfail"))}
_RED_SUITS = frozenset("HD♥♦")
_SUIT_GLYPH = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
# A card code or a card already shown with its glyph, standing alone (not inside a word).
_CARD = re.compile(r"(?<![\w])(10|[2-9AJQK])([SHDC♠♥♦♣])(?![\w])|(?<![\w])JK(?![\w])")

CSS = """
:root { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b;
  background: #fff; line-height: 1.4; }
body { margin: 0 auto; max-width: 78rem; padding: 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
nav a { margin-right: 1rem; }
a { color: #1a4fa0; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; max-width: 100%; }
table { border-collapse: collapse; }
caption { text-align: left; padding: .2rem 0; }
th, td { border: 1px solid #c8c8c8; padding: .3rem .5rem; vertical-align: top;
  text-align: left; }
thead th { background: #f0f0f0; }
th[scope=row] { position: sticky; left: 0; background: #fafafa; z-index: 1;
  min-width: 8rem; }
.st-pass { background: #d6f0d6; }
.st-fail, .st-error, .st-not_run { background: #f6cccc; }
.st-partial, .st-xfail, .st-xpass { background: #fbeebb; }
.st-unsupported, .st-none, .st-not_graded { background: #e9e9e9; color: #444; }
.cell summary { font-weight: 600; white-space: nowrap; }
summary { cursor: pointer; padding: .1rem .2rem; }
summary:focus-visible, a:focus-visible { outline: 3px solid #1a56db; outline-offset: 2px; }
summary:focus:not(:focus-visible) { outline: none; }
.note { font-weight: 400; font-size: .85em; color: #333; }
ul.cases { list-style: none; margin: .4rem 0 0; padding: 0; min-width: 18rem;
  max-width: 40rem; }
ul.cases li { margin: 0 0 .4rem; padding: .3rem; border-radius: .2rem; }
.status { font-variant: small-caps; font-weight: 600; }
ul.checks { list-style: none; margin: .2rem 0 0; padding: 0; }
ul.checks li { margin: 0 0 .2rem; padding: .1rem .3rem; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .9em; }
pre { white-space: pre-wrap; word-break: break-word; margin: .2rem 0; padding: .3rem;
  background: rgba(255, 255, 255, .6); }
.card { white-space: nowrap; }
.red { color: #c40000; }
.differs { font-weight: 700; }
.warning { background: #fbeebb; padding: .3rem .5rem; }
.muted { color: #555; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; }
dl.kv dt { font-weight: 600; }
dl.kv dd { margin: 0; }
@media (max-width: 40rem) {
  body { padding: .5rem; font-size: 15px; }
  th, td { padding: .25rem .3rem; }
  ul.cases { min-width: 14rem; }
  nav a { display: inline-block; margin: 0 .6rem .3rem 0; }
}
"""


def esc(value: Any) -> str:
    """HTML-escape any value (quotes included, so it is safe in attributes too), its
    control and invisible characters (bidi overrides, zero-width spaces, U+2028) shown as
    escapes (conformance/io/textsafe.py): a report read back may hold any of them."""
    return html.escape(escape(str(value)), quote=True)


def cards(value: Any) -> str:
    """Escape ``value`` and show the card codes in it as glyphs, red suits in red."""

    def show(match: re.Match[str]) -> str:
        if match.group(0) == "JK":
            return '<span class="card joker" title="joker" aria-label="joker">🃏</span>'
        rank, suit = match.group(1), match.group(2)
        glyph = _SUIT_GLYPH.get(suit, suit)
        colour = " red" if suit in _RED_SUITS else ""
        return f'<span class="card{colour}">{rank}{glyph}</span>'

    return _CARD.sub(show, esc(value))


def column_labels(reports: Sequence[LoadedReport]) -> list[str]:
    labels = [f"{r.engine_label} · {r.header['profile']}" for r in reports]
    for label in set(labels):
        if labels.count(label) > 1:
            labels = [
                f"{lab} ({r.path.rsplit('/', 1)[-1]})" if lab == label else lab
                for lab, r in zip(labels, reports, strict=True)
            ]
    return labels


def sections(reports: Sequence[LoadedReport], catalogue: Catalogue | None) -> list[str]:
    found = {case["section"] for r in reports for case in r.cases}
    return sorted(found, key=lambda s: (catalogue.section_rank(s) if catalogue else 0, s))


def cell_class(counts: Mapping[str, int]) -> str:
    """How a cell is coloured: ``fail`` when anything fails the run, ``pass`` when every
    graded case passes, ``unsupported`` when none was graded, else ``partial``."""
    badge = badges("", counts)[0]
    if any(counts.get(s, 0) for s in FAILING):
        return "fail"
    if badge["graded"] == 0:
        return "unsupported"
    return "pass" if badge["passed"] == badge["graded"] else "partial"


def cell_text(counts: Mapping[str, int]) -> tuple[str, str]:
    badge = badges("", counts)[0]
    extras = [f"{counts[s]} {s.replace('_', ' ')}" for s in ("unsupported", "xfail") if counts[s]]
    return f"{badge['passed']}/{badge['graded']}", ", ".join(extras)


def _check_item(check: Any) -> str:
    """One failing or not-graded check: key, rules, line, and its diff or why."""
    item = f'<li class="st-{esc(check.status)}">{cards(check_text(check))}'
    if check.status in ("fail", "xfail") and check.diff:
        item += f'<pre class="diff">{cards(check.diff)}</pre>'
    if check.status in ("fail", "xfail") and check.note:
        item += f"<div>{cards(check.note)}</div>"
    return item + "</li>"


def _checks_block(result: CaseResult) -> str:
    """A case's checks: the failing ones shown, the rest (passed, not graded) one click away."""
    if not result.checks:
        return ""
    tally = graded([result])
    failing = [c for c in result.checks if c.status in ("fail", "xfail")]
    skipped = [c for c in result.checks if c.status == "not_graded"]
    passed = [c for c in result.checks if c.status in ("pass", "xpass")]
    out = []
    if failing:
        out.append(f'<ul class="checks">{"".join(_check_item(c) for c in failing)}</ul>')
    rest = "".join(_check_item(c) for c in skipped)
    if passed:
        keys = ", ".join(esc(c.key) for c in passed)
        rest += f'<li class="st-pass">passed: {keys}</li>'
    head = (
        f"checks: {tally.graded}/{tally.total} graded, {tally.passed} passed, "
        f"{tally.failed + tally.xfailed} failed"
    )
    out.append(
        f'<details class="checks"><summary>{esc(head)}</summary>'
        f'<ul class="checks">{rest}</ul></details>'
    )
    return "".join(out)


def _case_item(case: Mapping[str, Any], result: CaseResult | None = None) -> str:
    status = case["status"]
    parts = [
        f'<li class="case st-{esc(status)}"><span class="status">{esc(status)}</span> '
        f"<code>{esc(case['id'])}</code> {cards(case['title'])} "
        f'<span class="muted">({esc(", ".join(case["rules"]))})</span>'
    ]
    if case.get("dispute"):
        parts.append(
            f'<br><span class="muted">{esc(case["dispute"])} graded as '
            f"{esc(case.get('option') or '?')}</span>"
        )
    if case.get("diff") and not (result is not None and result.checks):
        parts.append(f'<pre class="diff">{cards(case["diff"])}</pre>')
    if case.get("error"):
        parts.append(f'<pre class="error">{cards(case["error"])}</pre>')
    if case.get("note"):
        parts.append(f"<div>{cards(case['note'])}</div>")
    if case.get("engine_message"):
        parts.append(f"<div>engine said: {cards(case['engine_message'])}</div>")
    if case.get("stderr_tail"):
        parts.append(
            "<details><summary>engine stderr (tail)</summary>"
            f"<pre>{esc(case['stderr_tail'])}</pre></details>"
        )
    if result is not None:
        parts.append(_checks_block(result))
    parts.append("</li>")
    return "".join(parts)


def _cell_checks(results: Sequence[CaseResult]) -> str:
    """``checks 118/120 graded``, or empty for cases without checks (format 1)."""
    tally = graded(results)
    return f"checks {tally.graded}/{tally.total} graded" if tally.total else ""


def _matrix(
    reports: Sequence[LoadedReport], labels: Sequence[str], catalogue: Catalogue | None
) -> list[str]:
    by_cell: dict[tuple[str, int], list[tuple[Mapping[str, Any], CaseResult]]] = defaultdict(list)
    for column, report in enumerate(reports):
        for case, result in zip(report.cases, report.results, strict=True):
            by_cell[(case["section"], column)].append((case, result))
    out = ['<div class="scroll"><table class="matrix" id="matrix">']
    out.append(
        '<caption class="muted">passed/graded cases per rule section (every case in its '
        "own section, disputed ones too, as the terminal summary counts them) and the "
        "checks graded; open a cell for its cases</caption>"
    )
    out.append('<thead><tr><th scope="col">rule section</th>')
    out.extend(f'<th scope="col">{esc(label)}</th>' for label in labels)
    out.append("</tr></thead><tbody>")
    for row, section in enumerate(sections(reports, catalogue)):
        title = catalogue.section_title(section) if catalogue else section
        out.append(
            f'<tr><th scope="row"><code>{esc(section)}</code><br>'
            f'<span class="muted">{esc(title if title != section else "")}</span></th>'
        )
        for column, label in enumerate(labels):
            pairs = by_cell.get((section, column))
            if not pairs:
                out.append('<td class="cell st-none" title="no case of this section">—</td>')
                continue
            cases = [case for case, _result in pairs]
            counts = count_cases(cases)
            text, extra = cell_text(counts)
            notes = [n for n in (extra, _cell_checks([r for _c, r in pairs])) if n]
            note = "".join(f'<br><span class="note">{esc(n)}</span>' for n in notes)
            ordered = sorted(
                pairs, key=lambda p: (_STATUS_ORDER.get(p[0]["status"], 9), p[0]["id"])
            )
            spoken = "".join(f", {n}" for n in notes)
            out.append(
                f'<td class="cell st-{cell_class(counts)}" data-section="{esc(section)}">'
                f'<details id="cell-{row}-{column}"><summary aria-label="{esc(section)}, '
                f'{esc(label)}: {esc(text)} passed{esc(spoken)}">'
                f"{esc(text)}{note}</summary>"
                f'<ul class="cases">{"".join(_case_item(c, r) for c, r in ordered)}</ul>'
                "</details></td>"
            )
        out.append("</tr>")
    out.append('<tr><th scope="row">all cases</th>')
    for report in reports:
        out.append(
            f'<td class="st-{cell_class(report.counts)}"><strong>'
            f"{esc(', '.join(report.badge_lines))}</strong></td>"
        )
    out.append("</tr></tbody></table></div>")
    return out


#: Cases named per rule or divergence before "and N more".
_CASES_SHOWN = 6


def _case_list(ids: Sequence[str]) -> str:
    shown = ", ".join(f"<code>{esc(i)}</code>" for i in ids[:_CASES_SHOWN])
    more = len(ids) - _CASES_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _by_rule(reports: Sequence[LoadedReport], labels: Sequence[str]) -> list[str]:
    """Failing checks by rule and recurring divergences, per report (when any failed)."""
    out: list[str] = []
    for label, report in zip(labels, reports, strict=True):
        rules = failing_rules(report.results)
        found = divergences(report.results)
        if not rules and not found:
            continue
        cases_of: dict[str, list[str]] = defaultdict(list)
        for result in report.results:
            for rule in sorted({r for c in result.checks if c.status == "fail" for r in c.rules}):
                cases_of[rule].append(result.id)
        out.append(f"<h3>{esc(label)}</h3>")
        out.append('<div class="scroll"><table class="by-rule">')
        out.append(
            '<caption class="muted">failing checks counted under their own rules</caption>'
            '<thead><tr><th scope="col">rule</th><th scope="col">failing checks</th>'
            '<th scope="col">cases</th></tr></thead><tbody>'
        )
        for rule, count in rules.items():
            out.append(
                f'<tr><th scope="row"><code>{esc(rule)}</code></th><td>{count}</td>'
                f"<td>{_case_list(cases_of[rule])}</td></tr>"
            )
        out.append("</tbody></table></div>")
        out.append('<ul class="divergences">')
        for item in found:
            out.append(
                f'<li>{cards(item.signature)} <span class="muted">'
                f"({esc(', '.join(item.rules))})</span> — {item.checks} check"
                f"{'' if item.checks == 1 else 's'} in {len(item.cases)} case"
                f"{'' if len(item.cases) == 1 else 's'}: {_case_list(item.cases)}</li>"
            )
        out.append("</ul>")
    if not out:
        return []
    return ['<h2 id="by-rule">Failing checks by rule, and recurring divergences</h2>', *out]


def _causes(reports: Sequence[LoadedReport], labels: Sequence[str]) -> list[str]:
    """The failing checks by root cause, per report, most checks first (when any failed):
    each cause's line, its smallest example, the rest of its cases, and the option that
    explains it when the run found one."""
    out: list[str] = []
    for label, report in zip(labels, reports, strict=True):
        found = report_causes(report.doc, report.results)
        if not found:
            continue
        out.append(f"<h3>{esc(label)}</h3>")
        out.append('<ol class="causes">')
        for cause in found:
            others = [c for c in cause.cases if c != cause.example.case]
            explained = (
                " <strong>explained by "
                + esc(", ".join(f"{p}={o}" for p, o in cause.explained_by.items()))
                + "</strong>"
                if cause.explained_by
                else ""
            )
            out.append(
                f"<li>{cards(cause.summary)} — {cause.checks} check(s) in {len(cause.cases)} "
                f"case(s) ({esc(', '.join(cause.rules))}){explained}<br>"
                f'<span class="muted">e.g. {esc(cause.example.where())}'
                + (f"; also {_case_list(others)}" if others else "")
                + "</span></li>"
            )
        out.append("</ol>")
    return ['<h2 id="causes">Causes</h2>', *out] if out else []


def _graded_header(reports: Sequence[LoadedReport]) -> list[str]:
    """Under the title: per run, its badge line, the checks graded and what was not."""
    out = ['<ul class="graded">']
    for report in reports:
        line = checks_line(report.checks, report.missing_players)
        out.append(
            f"<li><strong>{esc(', '.join(report.badge_lines))}</strong>"
            + (f"<br>{esc(line)}" if line else "")
            + (
                f'<br><span class="warning">{esc(report.recount_note)}</span>'
                if report.recount_note
                else ""
            )
            + "</li>"
        )
    out.append("</ul>")
    return out


def _points(reports: Sequence[LoadedReport], catalogue: Catalogue | None) -> list[str]:
    points = list(catalogue.disputes) if catalogue else []
    for report in reports:
        engine = report.engine or {}
        extra = [*engine.get("rulings", {}), *(d["id"] for d in report.doc.get("disputes", []))]
        points.extend(p for p in extra if p not in points)
    return points


def _disputes(
    reports: Sequence[LoadedReport], labels: Sequence[str], catalogue: Catalogue | None
) -> list[str]:
    points = _points(reports, catalogue)
    if not points:
        return ["<p>No disputed point or house variant is known to these reports.</p>"]
    profiles = sorted({r.header["profile"] for r in reports})
    graded: dict[tuple[str, int], list[Mapping[str, Any]]] = defaultdict(list)
    recorded: dict[tuple[str, int], Mapping[str, Any]] = {}
    for column, report in enumerate(reports):
        for case in report.cases:
            if case.get("dispute"):
                graded[(case["dispute"], column)].append(case)
        for entry in report.doc.get("disputes", []):
            recorded[(entry["id"], column)] = entry
    out = ['<div class="scroll"><table class="disputes" id="disputes-table">']
    out.append('<thead><tr><th scope="col">point</th>')
    out.extend(f'<th scope="col">profile {esc(p)}</th>' for p in profiles)
    out.extend(f'<th scope="col">{esc(label)}</th>' for label in labels)
    out.append("</tr></thead><tbody>")
    for point in points:
        known = catalogue.disputes.get(point) if catalogue else None
        title = known.title if known is not None else ""
        out.append(
            f'<tr id="point-{esc(point)}"><th scope="row"><code>{esc(point)}</code><br>'
            f'<span class="muted">{cards(title)}</span></th>'
        )
        for profile in profiles:
            option = known.profiles.get(profile) if known is not None else None
            if option is None:
                option = next(
                    (
                        recorded[(point, c)].get("reference")
                        for c, r in enumerate(reports)
                        if r.header["profile"] == profile and (point, c) in recorded
                    ),
                    None,
                )
            out.append(f"<td>{esc(option or '?')}</td>")
        for column, report in enumerate(reports):
            declared = (report.engine or {}).get("rulings", {}).get(point)
            profile_option = known.profiles.get(report.header["profile"]) if known else None
            if declared is None:
                cell = '<span class="muted">not declared</span>'
            elif profile_option is not None and declared != profile_option:
                cell = (
                    '<span class="differs" title="differs from the profile">'
                    f"{esc(declared)} ≠</span>"
                )
            else:
                cell = esc(declared)
            cases = graded.get((point, column), [])
            if cases:
                items = "".join(
                    f'<li class="st-{esc(c["status"])}"><code>{esc(c["id"])}</code> as '
                    f"{esc(c.get('option') or '?')}: {esc(c['status'])}</li>"
                    for c in cases
                )
                cell += f'<ul class="cases">{items}</ul>'
            out.append(f"<td>{cell}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return out


def _listing(values: Any) -> str:
    if not isinstance(values, list | tuple):
        values = [] if values is None else [values]
    shown = [esc(v) for v in values]
    return ", ".join(shown) if shown else '<span class="muted">none</span>'


def _engines(reports: Sequence[LoadedReport], labels: Sequence[str]) -> list[str]:
    def handshake(report: LoadedReport, key: str) -> Any:
        return (report.engine or {}).get(key)

    rows: list[tuple[str, list[str]]] = [
        ("implementation", [esc(r.engine_label) for r in reports]),
        (
            "language",
            [esc((handshake(r, "implementation") or {}).get("language", "?")) for r in reports],
        ),
        ("protocol (engine)", [esc(handshake(r, "protocol") or "?") for r in reports]),
        ("profiles offered", [_listing(handshake(r, "profiles") or []) for r in reports]),
        ("profile run", [esc(r.header["profile"]) for r in reports]),
        ("capabilities", [_listing(handshake(r, "capabilities") or []) for r in reports]),
        ("player counts", [_listing(handshake(r, "players") or []) for r in reports]),
        ("run order", [esc(handshake(r, "run_order") or "listed") for r in reports]),
        ("run ends", [esc(handshake(r, "run_ends") or "requested") for r in reports]),
        ("unmodelled", [_listing(handshake(r, "unmodelled") or []) for r in reports]),
        ("requests in flight", [esc(handshake(r, "max_in_flight") or 1) for r in reports]),
        (
            "adapter",
            [f"<code>{esc(' '.join(r.header.get('adapter', [])))}</code>" for r in reports],
        ),
        ("harness", [esc(r.header["harness_version"]) for r in reports]),
        ("protocol (harness)", [esc(r.header["protocol_version"]) for r in reports]),
        ("corpus version", [esc(r.header["corpus_version"]) for r in reports]),
        (
            "corpus digest",
            [f"<code>{esc(r.header.get('corpus_digest') or '-')}</code>" for r in reports],
        ),
        ("corpus read", [esc(r.header.get("corpus_path", "?")) for r in reports]),
        ("started", [esc(r.header.get("started", "?")) for r in reports]),
        ("duration", [esc(f"{r.header.get('duration', 0)} s") for r in reports]),
        (
            "results",
            [esc(", ".join(f"{v} {k}" for k, v in r.counts.items() if v)) for r in reports],
        ),
        ("badge", [f"<strong>{esc(', '.join(r.badge_lines))}</strong>" for r in reports]),
        (
            "checks",
            [esc(checks_line(r.checks, r.missing_players) or "none recorded") for r in reports],
        ),
        ("report file", [f"<code>{esc(r.path)}</code>" for r in reports]),
    ]
    if any(r.header.get("warnings") for r in reports):
        rows.append(
            (
                "warnings",
                ["<br>".join(cards(w) for w in r.header.get("warnings", [])) for r in reports],
            )
        )
    if any(r.header.get("run_error") for r in reports):
        cells = []
        for r in reports:
            err = r.header.get("run_error")
            cells.append(
                ""
                if not err
                else f"{esc(err['message'])}<pre>{esc(err.get('stderr_tail', ''))}</pre>"
            )
        rows.append(("adapter did not start", cells))
    out = ['<div class="scroll"><table class="engines" id="engines-table">']
    out.append('<thead><tr><th scope="col"></th>')
    out.extend(f'<th scope="col">{esc(label)}</th>' for label in labels)
    out.append("</tr></thead><tbody>")
    for name, cells in rows:
        out.append(f'<tr><th scope="row">{esc(name)}</th>')
        out.extend(f"<td>{cell}</td>" for cell in cells)
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return out


def _laws(reports: Sequence[LoadedReport], labels: Sequence[str]) -> list[str]:
    names: list[str] = []
    results: dict[tuple[str, int], Mapping[str, Any]] = {}
    for column, report in enumerate(reports):
        for law in report.doc.get("properties", []):
            if law["name"] not in names:
                names.append(law["name"])
            results[(law["name"], column)] = law
    if not names:
        return []
    out = ['<h2 id="laws">Laws over seeded deals</h2>', '<div class="scroll"><table>']
    out.append('<thead><tr><th scope="col">law</th>')
    out.extend(f'<th scope="col">{esc(label)}</th>' for label in labels)
    out.append("</tr></thead><tbody>")
    for name in names:
        out.append(f'<tr><th scope="row">{esc(name)}</th>')
        for column in range(len(reports)):
            law = results.get((name, column))
            if law is None:
                out.append('<td class="st-none">not checked</td>')
                continue
            if law.get("applies") is False:  # the engine lacks turns and deals: it says so
                out.append(f'<td class="st-none">not checked<br>{cards(law["detail"])}</td>')
                continue
            verdict = "pass" if law["passed"] else "fail"
            out.append(
                f'<td class="st-{verdict}"><span class="status">{verdict}</span> '
                f'<span class="muted">({esc(", ".join(law["rules"]))}; seed '
                f"{esc(law['seed'])})</span><br>{cards(law['detail'])}</td>"
            )
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return out


#: Fields of a fuzz finding worth putting in its one-line summary, first found wins.
_FINDING_TITLE = ("summary", "title", "message", "detail", "kind", "law", "rule")


def _finding(finding: Mapping[str, Any]) -> str:
    title = next((finding[k] for k in _FINDING_TITLE if isinstance(finding.get(k), str)), None)
    rules = finding.get("rules") or (
        [finding["rule"]] if isinstance(finding.get("rule"), str) else []
    )
    head = cards(title) if title is not None else esc("finding")
    if rules and isinstance(rules, list):
        head += f' <span class="muted">({esc(", ".join(str(r) for r in rules))})</span>'
    if isinstance(finding.get("count"), int):
        head += f' <span class="muted">×{finding["count"]}</span>'
    body = []
    for key, value in finding.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        body.append(f"<dt>{esc(key)}</dt><dd><pre>{cards(shown)}</pre></dd>")
    listing = f'<dl class="kv">{"".join(body)}</dl>'
    return f"<li><details><summary>{head}</summary>{listing}</details></li>"


def _fuzz(fuzz: Sequence[LoadedReport]) -> list[str]:
    if not fuzz:
        return []
    out = ['<h2 id="fuzz">Fuzz findings</h2>']
    for report in fuzz:
        findings = report.doc["findings"]
        out.append(
            f"<h3><code>{esc(report.path)}</code>: {len(findings)} finding"
            f"{'' if len(findings) == 1 else 's'}</h3>"
        )
        engine = report.doc.get("engine")
        if isinstance(engine, dict) and isinstance(engine.get("implementation"), dict):
            impl = engine["implementation"]
            out.append(f"<p>engine {esc(impl.get('name', '?'))} {esc(impl.get('version', ''))}</p>")
        totals = report.doc.get("totals")
        if isinstance(totals, dict):
            shown = ", ".join(f"{esc(k)} {esc(v)}" for k, v in totals.items())
            out.append(f'<p class="muted">{shown}</p>')
        compared = totals.get("compared") if isinstance(totals, dict) else None
        adapter_error = report.doc.get("adapter_error")
        if findings:
            out.append(f'<ul class="findings">{"".join(_finding(f) for f in findings)}</ul>')
        elif adapter_error:
            # A campaign whose adapter never started compared nothing: no green here.
            out.append(f'<p class="warning">Nothing compared: {esc(adapter_error)}</p>')
        elif compared == 0:
            out.append(
                '<p class="warning">Nothing compared: the engine answered no request the '
                "reference answered, so no finding means nothing.</p>"
            )
        else:
            out.append("<p>No finding: the engine and the reference agreed on every input.</p>")
    return out


def _corpus_note(reports: Sequence[LoadedReport]) -> list[str]:
    """A warning when the runs graded different corpora: their cells are not like for like."""
    digests = sorted({str(r.header.get("corpus_digest") or "-") for r in reports})
    if len(digests) < 2:
        return []
    return [
        f'<p class="warning"><strong>These runs graded different corpora</strong> (digests '
        f"{esc(', '.join(digests))}): a cell of one column may hold cases another lacks.</p>"
    ]


def render_html(
    reports: Sequence[LoadedReport],
    catalogue: Catalogue | None = None,
    *,
    fuzz: Sequence[LoadedReport] = (),
    title: str = "Carioca conformance",
) -> str:
    """The whole self-contained page for these run reports (and fuzz reports)."""
    return "".join(html_pieces(reports, catalogue, fuzz=fuzz, title=title))


def html_pieces(
    reports: Sequence[LoadedReport],
    catalogue: Catalogue | None = None,
    *,
    fuzz: Sequence[LoadedReport] = (),
    title: str = "Carioca conformance",
) -> list[str]:
    """:func:`render_html` as its lines, for writing: the page of a large report is never
    one string (one emoji makes all of it four bytes a character)."""
    labels = column_labels(reports)
    by_rule = _by_rule(reports, labels)
    causes = _causes(reports, labels)
    nav = [
        *(['<a href="#causes">causes</a>'] if causes else []),
        '<a href="#matrix-h">matrix</a>',
        *(['<a href="#by-rule">failures by rule</a>'] if by_rule else []),
        '<a href="#disputes">disputed points</a>',
        '<a href="#engines">engines</a>',
    ]
    if any(r.doc.get("properties") for r in reports):
        nav.append('<a href="#laws">laws</a>')
    if fuzz:
        nav.append('<a href="#fuzz">fuzz findings</a>')
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # No network: nothing but this page's own inline style may load.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{esc(title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<header><h1>{esc(title)}</h1>",
        f'<p class="muted">carioca-conformance {esc(__version__)}: '
        f"{len(reports)} engine run{'' if len(reports) == 1 else 's'}</p>",
        *_graded_header(reports),
        *_corpus_note(reports),
        f"<nav>{''.join(nav)}</nav></header><main>",
        *causes,
        '<h2 id="matrix-h">Conformance matrix</h2>',
        *_matrix(reports, labels, catalogue),
        *by_rule,
        '<h2 id="disputes">Disputed points and house variants</h2>',
        "<p class=\"muted\">Each engine's declared option (≠: not the profile's), "
        "and how its disputed cases were graded.</p>",
        *_disputes(reports, labels, catalogue),
        '<h2 id="engines">Engines and runs</h2>',
        *_engines(reports, labels),
        *_laws(reports, labels),
        *_fuzz(fuzz),
        "</main></body></html>",
    ]
    return [line + "\n" for line in lines]


def write_html_report(path: str, run: RunResult, catalogue: Catalogue | None) -> None:
    """``run --html``: the page for this one run, written atomically."""
    report = LoadedReport("this run", build_report(run, catalogue))
    atomic_write_text(path, html_pieces([report], catalogue))


__all__ = [
    "cards",
    "cell_class",
    "cell_text",
    "column_labels",
    "esc",
    "html_pieces",
    "render_html",
    "sections",
    "write_html_report",
]
