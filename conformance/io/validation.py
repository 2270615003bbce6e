"""JSON Schema validation: a compiled validator decides, python-jsonschema explains.

Every scenario and every protocol message is validated (nothing is ever skipped). The
verdict comes from jsonschema-rs, a compiled validator about 150 times faster than
python-jsonschema on this project's documents; python-jsonschema is imported and run
only when that verdict is "invalid", to produce the same messages as before: the best
match, its JSON pointer and its text. tests/conformance/test_validation.py proves the
two agree on valid and invalid documents, corpus and protocol alike.

Two places where the libraries could disagree, and what this module does about them:

- **Regular expressions.** JSON Schema specifies ECMA-262 patterns, where ``$`` is the
  end of the input. Python's ``$`` also matches before a final newline, so
  python-jsonschema would accept ``"cc-0001\\n"`` for ``^cc-[0-9]{4}$``. The explainer
  therefore uses a ``pattern`` keyword that reads an unescaped trailing ``$`` as ``\\Z``.
- **Values that are not JSON.** jsonschema-rs refuses what it cannot convert (a YAML
  date, an integer dict key): it raises instead of answering. Then python-jsonschema
  gives the verdict, exactly as it did before this module existed.

The documents validated here are always decoded JSON or YAML (dicts, lists, strings,
numbers, booleans, ``None``), never tuples or other Python containers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # python-jsonschema is imported lazily: it costs ~0.1 s of start-up.
    from jsonschema.exceptions import ValidationError


@cache
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    """Compile a JSON Schema pattern with ECMA-262's meaning of a final ``$``."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    """The ``pattern`` keyword of python-jsonschema, with ECMA-262's end anchor."""
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def _explainer_class() -> Any:
    """python-jsonschema's draft 2020-12 validator with the ECMA ``pattern`` keyword."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, {"pattern": _ecma_pattern}
    )


class SchemaValidator:
    """One draft 2020-12 schema: a fast verdict, and python-jsonschema's errors on demand."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        import jsonschema_rs  # here, not at import: `check` from the cache never needs it

        self._fast = jsonschema_rs.Draft202012Validator(schema)
        self._slow: Any = None

    def _explainer(self) -> Any:
        if self._slow is None:
            self._slow = _explainer_class()(self.schema)
        return self._slow

    def is_valid(self, instance: Any) -> bool:
        """Whether ``instance`` satisfies the schema."""
        try:
            return bool(self._fast.is_valid(instance))
        except ValueError:
            # Not convertible to JSON (a date, a non-string key): python-jsonschema decides.
            return bool(self._explainer().is_valid(instance))

    def fast_is_valid(self, instance: Any) -> bool:
        """jsonschema-rs's verdict alone (raises ValueError for a value that is not JSON)."""
        return bool(self._fast.is_valid(instance))

    def explainer_is_valid(self, instance: Any) -> bool:
        """python-jsonschema's verdict alone: what the agreement test compares."""
        return bool(self._explainer().is_valid(instance))

    def iter_errors(self, instance: Any) -> list[ValidationError]:
        """python-jsonschema's errors for ``instance``; an empty list when it is valid.

        Should the explainer find nothing where the fast validator found a problem (the
        agreement test says it does not happen), jsonschema-rs's own first error is
        returned instead: an invalid document is never let through for want of words.
        """
        if self.is_valid(instance):
            return []
        errors = list(self._explainer().iter_errors(instance))
        return errors or self._fast_error(instance)

    def best_error(self, instance: Any) -> ValidationError | None:
        """The error python-jsonschema's ``best_match`` picks, or ``None`` when valid."""
        errors = self.iter_errors(instance)
        if not errors:
            return None
        from jsonschema.exceptions import best_match

        return best_match(errors)  # type: ignore[no-any-return]

    def _fast_error(self, instance: Any) -> list[ValidationError]:
        from jsonschema.exceptions import ValidationError

        for error in self._fast.iter_errors(instance):
            return [ValidationError(error.message, path=list(error.instance_path))]
        return []


def best_match_of(error: ValidationError) -> ValidationError:
    """python-jsonschema's best match among one error and its context (anyOf/oneOf)."""
    from jsonschema.exceptions import best_match

    return best_match([error])  # type: ignore[no-any-return]


__all__ = ["SchemaValidator", "best_match_of"]
