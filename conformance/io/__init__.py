"""Reading the outside world safely: files the harness ships, YAML, JSON, text, shapes.

From the bottom up: :mod:`~conformance.io.resources` (where the shipped data and schemas
are), then the readers that bound what they accept.
"""
