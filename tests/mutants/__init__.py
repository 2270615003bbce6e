"""Rule mutants of the reference engine: each one a single deliberate deviation from the rules.

``mutants`` defines them, ``adapter`` serves the protocol with one applied, ``report`` writes
the kill matrix (docs/mutants.md).
"""
