"""What the harness knows of the rules, as data: cards, the rule catalogue, the profiles.

From the bottom up: :mod:`~conformance.knowledge.cards` (ranks, suits, the joker),
:mod:`~conformance.knowledge.catalogue` (docs/rules.md as rule IDs and disputed points),
:mod:`~conformance.knowledge.profiles` (the four rule profiles),
:mod:`~conformance.knowledge.optionfacts` (what each option of a disputed point changes) and
:mod:`~conformance.knowledge.reachability` (which contracts a profile can reach).
"""
