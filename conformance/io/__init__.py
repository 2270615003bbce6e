"""Reading and writing the outside world safely: shipped files, YAML, JSON, text, shapes.

From the bottom up: :mod:`~conformance.io.resources` (where the shipped data and schemas
are), :mod:`~conformance.io.files` (atomic writes), :mod:`~conformance.io.textsafe`
(engine text made safe to show), :mod:`~conformance.io.jsonsafe` and
:mod:`~conformance.io.yamlsafe` (bounded readers), :mod:`~conformance.io.validation`
(JSON Schema checks with a clear pointer) and :mod:`~conformance.io.plaindata` (plain
values to and from JSON).
"""
