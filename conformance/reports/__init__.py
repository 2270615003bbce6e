"""Saying what a run found: causes, explanations, the console, JSON, JUnit, HTML, Markdown.

From the bottom up: :mod:`~conformance.reports.symptoms` (what a failing check shows, and
what explains it), :mod:`~conformance.reports.explain` (the option that would explain the
failing checks, asked of the reference) and :mod:`~conformance.reports.causes` (failing
checks grouped by root cause), :mod:`~conformance.reports.console` (the terminal summary),
:mod:`~conformance.reports.report` (JSON and JUnit files),
:mod:`~conformance.reports.report_tools` (reading, merging and comparing reports),
:mod:`~conformance.reports.html_report` and :mod:`~conformance.reports.markdown_report`
(the page and its digest) and :mod:`~conformance.reports.outputs` (every file a run was
asked to write).
"""
