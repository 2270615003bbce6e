"""Saying what a run found: causes, explanations, the console, JSON, JUnit, HTML, Markdown.

From the bottom up: :mod:`~conformance.reports.causes` (failing checks grouped by root
cause) and :mod:`~conformance.reports.explain` (the option that would explain them, asked
of the reference), :mod:`~conformance.reports.console` (the terminal summary),
:mod:`~conformance.reports.report` (JSON and JUnit files),
:mod:`~conformance.reports.report_tools` (reading, merging and comparing reports),
:mod:`~conformance.reports.html_report` and :mod:`~conformance.reports.markdown_report`
(the page and its digest) and :mod:`~conformance.reports.outputs` (every file a run was
asked to write).
"""
