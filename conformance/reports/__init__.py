"""Saying what a run found: causes, the console, JSON, JUnit, HTML, Markdown.

Nothing here starts an engine: the option that would explain the failing checks is asked
of the reference by :mod:`conformance.explain`, a layer above. From the bottom up:
:mod:`~conformance.reports.symptoms` (what a failing check shows, and what explains it)
and :mod:`~conformance.reports.causes` (failing checks grouped by root cause),
:mod:`~conformance.reports.console` (the terminal summary),
:mod:`~conformance.reports.report` (JSON and JUnit files),
:mod:`~conformance.reports.report_tools` (reading, merging and comparing reports),
:mod:`~conformance.reports.html_report` and :mod:`~conformance.reports.markdown_report`
(the page and its digest) and :mod:`~conformance.reports.outputs` (every file a run was
asked to write).
"""
