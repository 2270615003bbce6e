"""A run of the corpus against one engine: choosing cases, playing them, the verdict.

From the bottom up: :mod:`~conformance.run.exitcodes`, :mod:`~conformance.run.shards` (the
shards a merge lacks), :mod:`~conformance.run.selection` (which cases, which shard),
:mod:`~conformance.run.warmup`,
:mod:`~conformance.run.runner` (playing and grading each case),
:mod:`~conformance.run.interrupt` (a run stopped by a signal keeps what it graded),
:mod:`~conformance.run.expectations` (known failures, recorded and compared) and
:mod:`~conformance.run.verdict` (the exit code a run earned).
"""
