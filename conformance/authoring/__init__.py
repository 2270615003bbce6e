"""Helping a scenario author: recording a game, and which rules the corpus covers.

:mod:`~conformance.authoring.record` turns a played game into a scenario draft;
:mod:`~conformance.authoring.coverage` says which rules and options the corpus cites;
:mod:`~conformance.authoring.execution_coverage` which the reference actually executes.
"""
