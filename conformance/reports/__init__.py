"""Saying what a run found: causes, the console, JSON, JUnit and HTML reports.

From the bottom up: :mod:`~conformance.reports.causes` (failing checks grouped by root
cause), :mod:`~conformance.reports.console` (the terminal summary),
:mod:`~conformance.reports.report` (JSON and JUnit files),
:mod:`~conformance.reports.report_tools` (reading, merging and comparing reports),
:mod:`~conformance.reports.html_report` and :mod:`~conformance.reports.outputs` (every
file a run was asked to write).
"""
