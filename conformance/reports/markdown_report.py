"""The Markdown digest of the HTML report, for a pull-request comment or a CI summary.

The same matrix as the page (conformance/reports/html_report.py: the same sections,
columns and cell counts, made from the cases), the checks graded, the rulings other than
the profile's, the causes, the recurring divergences and the failures. Every string from a
report is Markdown-escaped (:func:`md`) or shown as code (:func:`md_code`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from conformance.grading.results import divergences
from conformance.io.textsafe import escape
from conformance.reports.causes import report_causes
from conformance.reports.html_report import cell_class, cell_text, column_labels, sections
from conformance.reports.report import checks_line
from conformance.reports.report_tools import FAILING, LoadedReport, count_cases

if TYPE_CHECKING:
    from conformance.knowledge.catalogue import Catalogue


#: Characters with a meaning in Markdown (CommonMark, GitHub's tables, strikethrough,
#: autolinks and raw HTML) wherever they stand, escaped with a backslash in text from a
#: report: any ASCII punctuation may be, and the text reads the same once rendered.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#!|~&:.])")
#: What means something only at the start of a line (a list item, a setext heading).
_MD_LEADING = re.compile(r"^([-+=])")
#: Controls, C1 included (0x9b is a one-byte CSI for some terminals that show the digest).
_MD_CONTROLS = re.compile(r"[\r\n\t\x00-\x1f\x7f-\x9f]+")


def md(text: Any) -> str:
    """Text from a report, safe in a Markdown digest (a table cell included): Markdown
    syntax is escaped, not HTML entities (so ``'`` stays ``'``), so an engine named
    ``![x](https://…)`` shows as that text and loads no image; newlines become spaces.
    An ``@`` is followed by a zero-width space, so ``@someone`` in engine text notifies
    no one when the digest is posted as a pull-request comment."""
    shown = escape(_MD_CONTROLS.sub(" ", str(text)))  # bidi and zero-width: visible
    escaped = _MD_SPECIAL.sub(r"\\\1", shown)
    return _MD_LEADING.sub(r"\\\1", escaped).replace("@", _NO_MENTION)


#: What an ``@`` of report text becomes in the digest: a mention needs a name right after
#: the ``@``, and this still reads as ``@``.
_NO_MENTION = "@\u200b"


def md_code(text: Any) -> str:
    """Text from a report as an inline code span (nothing in it is Markdown, except a
    table's ``|``, escaped): fenced with more backticks than it holds in a row."""
    shown = escape(_MD_CONTROLS.sub(" ", str(text))).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


#: Recurring divergences listed per engine in the digest.
_DIVERGENCES_SHOWN = 10


def render_markdown(
    reports: Sequence[LoadedReport],
    catalogue: Catalogue | None = None,
    *,
    fuzz: Sequence[LoadedReport] = (),
) -> str:
    """The matrix, the checks graded, the rulings of the profile that differ, the recurring
    divergences and the failures, in Markdown; every count made from the cases."""
    labels = column_labels(reports)
    mark = {"pass": "✅", "fail": "❌", "partial": "⚠️", "unsupported": "➖"}
    lines = ["# Carioca conformance", ""]
    lines.append("| rule section | " + " | ".join(md(label) for label in labels) + " |")
    lines.append("|---" * (len(labels) + 1) + "|")
    for section in sections(reports, catalogue):
        row = [md_code(section)]
        for report in reports:
            cases = [c for c in report.cases if c["section"] == section]
            if not cases:
                row.append("—")
                continue
            counts = count_cases(cases)
            text, _extra = cell_text(counts)
            row.append(f"{mark[cell_class(counts)]} {text}")
        lines.append("| " + " | ".join(row) + " |")
    lines.append("| **all** | " + " | ".join(md(", ".join(r.badge_lines)) for r in reports) + " |")
    for label, report in zip(labels, reports, strict=True):
        failing = [c for c in report.cases if c["status"] in FAILING]
        case_results = {r.id: r for r in report.results}
        found = report.declarations(catalogue) if catalogue is not None else None
        differs = list(found.other_rulings.items()) if found is not None else []
        lines.extend(["", f"## {md(label)}", ""])
        header = report.header
        lines.append(
            f"harness {md(header['harness_version'])}, protocol {md(header['protocol_version'])}, "
            f"corpus {md(header['corpus_version'])} digest "
            f"{md_code(header.get('corpus_digest', '-'))}"
        )
        line = checks_line(report.checks, report.missing_players)
        if line:
            lines.extend(["", md(line)])
        if report.recount_note:
            lines.extend(["", md(report.recount_note)])
        if differs:
            lines.append("")
            lines.append(
                f"Rulings other than profile {md(header['profile'])}'s: "
                + ", ".join(f"{md(p)}={md(o)}" for p, o in differs)
            )
        causes = report_causes(report.doc, report.results)
        if causes:
            lines.extend(["", "Causes:", ""])
            for number, cause in enumerate(causes, start=1):
                named = ", ".join(f"{p}={o}" for p, o in (cause.explained_by or {}).items())
                lines.append(
                    f"{number}. {md(cause.line())}; e.g. {md(cause.example.where())}"
                    + (f"; explained by {md(named)}" if named else "")
                )
        shown = divergences(report.results)
        if shown:
            lines.extend(["", "Recurring divergences:", ""])
            for item in shown[:_DIVERGENCES_SHOWN]:
                lines.append(
                    f"- {md(item.signature)} ({md(', '.join(item.rules))}): {item.checks} "
                    f"check(s) in {len(item.cases)} case(s)"
                )
            if len(shown) > _DIVERGENCES_SHOWN:
                lines.append(f"- and {len(shown) - _DIVERGENCES_SHOWN} more")
        if failing:
            lines.append("")
            for c in failing:
                keys = [ch.key for ch in case_results[c["id"]].checks if ch.status == "fail"]
                checks = f" — failing checks: {md(', '.join(keys))}" if keys else ""
                lines.append(f"- **{md(c['status'])}** {md_code(c['id'])} {md(c['title'])}{checks}")
    for report in fuzz:
        lines.extend(["", f"## Fuzz: {md(report.path)}: {len(report.doc['findings'])} finding(s)"])
    return "\n".join(lines) + "\n"


__all__ = ["md", "md_code", "render_markdown"]
