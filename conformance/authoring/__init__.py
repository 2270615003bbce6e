"""Helping a scenario author: recording a game, and which rules the corpus covers.

:mod:`~conformance.authoring.record` turns a played game into a scenario draft
(:mod:`~conformance.authoring.play` plays it, :mod:`~conformance.authoring.options` under every
option of a point); :mod:`~conformance.authoring.points` keeps the files that follow from the
catalogue and scaffolds a new point;
:mod:`~conformance.authoring.coverage` says which rules and options the corpus cites;
:mod:`~conformance.authoring.execution_coverage` which the reference actually executes.
"""
