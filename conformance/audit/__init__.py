"""The audit of the corpus against the reference under every honest declaration.

The reference plays any option of any disputed point or house variant, and any interface
choice, player counts and unmodelled fields (``python -m reference.adapter --help``). The
audit plays the corpus under many such declarations and reads what comes back:

- :mod:`~conformance.audit.runs`: the runs (one adapter per declaration and interface
  reading, spread over worker processes) and their compact records;
- :mod:`~conformance.audit.findings`: every case passes, or is unsupported because it
  names the point, under every single-option change (``audit``);
- :mod:`~conformance.audit.measure`: the graded share of each profile's checks under each
  change and each author's rulings file (``audit --graded``);
- :mod:`~conformance.audit.bothways`: every assumption a check does not need, and every
  case or step assumption wider than the checks that need it (``audit --both-ways``);
- :mod:`~conformance.audit.static`: what needs no run (``check --strict``);
- :mod:`~conformance.audit.declared`: an author's rulings file (``--rulings``);
- :mod:`~conformance.audit.allowance`: what the corpus does not meet yet (``--allowance``);
- :mod:`~conformance.audit.command`: what the ``audit`` command plays and prints.

docs/adding-scenarios.md explains the findings and what to do about each.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.audit.findings import (
        AuditResult,
        Finding,
        audit,
        audit_summary,
        changes_to_audit,
        judge,
        names_point,
    )
    from conformance.audit.runs import Change

#: Each name of the package and the module that defines it, imported on first use:
#: ``check --strict`` imports :mod:`~conformance.audit.static` alone, without the runs.
_NAMES = {
    "AuditResult": "conformance.audit.findings",
    "Finding": "conformance.audit.findings",
    "audit": "conformance.audit.findings",
    "audit_summary": "conformance.audit.findings",
    "changes_to_audit": "conformance.audit.findings",
    "judge": "conformance.audit.findings",
    "names_point": "conformance.audit.findings",
    "Change": "conformance.audit.runs",
}


def __getattr__(name: str) -> Any:
    """A name of :data:`_NAMES`, imported from its module on first use (PEP 562)."""
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "AuditResult",
    "Change",
    "Finding",
    "audit",
    "audit_summary",
    "changes_to_audit",
    "judge",
    "names_point",
]
