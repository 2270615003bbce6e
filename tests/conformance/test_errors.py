"""conformance/errors.py: one error root for everything the harness raises on purpose."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import conformance
from conformance.errors import EngineError, HarnessError, InvalidRequest, SessionError

#: Not errors: signals for control flow (a game that ended, a case pytest reports as
#: failed, SIGTERM as an interrupt), never raised to a caller as a mistake.
SIGNALS = {"EndGame", "SetupRefused", "EngineFault", "NoValue", "CariocaCaseFailed", "Terminated"}


def harness_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class defined in a ``conformance`` module, by qualified name."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(conformance.__path__, "conformance."):
        if info.name.endswith(("__main__", "_watchdog_child")):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
            ):
                found[f"{info.name}.{name}"] = value
    return found


def test_every_public_error_derives_from_harness_error() -> None:
    exceptions = harness_exceptions()
    assert len(exceptions) >= 25  # the walk sees the whole harness
    outside = sorted(
        name
        for name, cls in exceptions.items()
        if not issubclass(cls, HarnessError | Warning)
        and not name.rsplit(".", 1)[1].startswith("_")
        and name.rsplit(".", 1)[1] not in SIGNALS
    )
    assert outside == []


def test_the_harness_own_mistakes_are_not_blamed_on_the_engine() -> None:
    assert not issubclass(InvalidRequest, EngineError)
    assert not issubclass(SessionError, EngineError)
    assert issubclass(InvalidRequest, HarnessError) and issubclass(SessionError, HarnessError)
