"""The library's RunOptions and RunRequest refuse what cannot mean anything, at
construction, naming the field (conformance/run/optioncheck.py)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from conformance.jobs import RunRequest
from conformance.run.optioncheck import InvalidOption
from conformance.run.runner import RunOptions


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"profile": "chilen"}, r"profile: unknown profile 'chilen' \(profiles known: argentine"),
        ({"profile": None}, "profile=None: must be a profile's name"),
        ({"timeout": math.nan}, "timeout=nan: a time limit must be more than 0"),
        ({"case_timeout": math.inf}, "case_timeout=inf"),
        ({"start_timeout": -1.0}, "start_timeout=-1.0"),
        ({"timeout": 0}, "timeout=0"),
        ({"timeout": "10"}, "timeout='10': a time limit is a number of seconds"),
        ({"timeout": True}, "timeout=True"),
        ({"memory_limit": -1}, "memory_limit=-1: must be from 0 or more"),
        ({"memory_limit": 2.5}, "memory_limit=2.5: must be a whole number"),
        ({"workers": 0}, "workers=0: must be from 1 to 256"),
        ({"max_consecutive_errors": -3}, "max_consecutive_errors=-3"),
        ({"max_response_bytes": 0}, "max_response_bytes=0"),
    ],
)
def test_run_options_refuse_a_field_that_means_nothing(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidOption, match=message):
        RunOptions(**fields)


def test_run_options_take_what_the_command_line_takes() -> None:
    RunOptions(profile="perla", timeout=0.5, case_timeout=86_400, memory_limit=0, workers=256)
    RunOptions(memory_limit=None)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"argv": "python3 engine.py"}, "argv='python3 engine.py': must be a list or tuple"),
        ({"argv": ("engine", 3)}, "argv: item 3 is not a string"),
        ({"rules": "SCORE"}, "rules='SCORE': must be a list or tuple of strings"),
        ({"ids": "cc-0001"}, "ids='cc-0001'"),
        ({"options": {"profile": "chilean"}}, "options: must be a RunOptions, not dict"),
        ({"laws": (-1, 7)}, "laws seed=-1"),
        ({"laws": (0, 0)}, "laws deals=0: must be from 1 to 1,000"),
        ({"laws": (0, 7.0)}, "laws deals=7.0: must be a whole number"),
        ({"laws": 7}, r"laws=7: must be None or \(seed, deals\)"),
        ({"shard": 2}, "shard=2"),
        ({"expectations": {"cc-0001": "x"}}, "expectations: must be None"),
    ],
)
def test_run_request_refuses_a_field_that_means_nothing(
    fields: dict[str, Any], message: str
) -> None:
    given: dict[str, Any] = {"argv": ("engine",), "options": RunOptions(), **fields}
    with pytest.raises(InvalidOption, match=message):
        RunRequest(**given)


def test_a_run_request_keeps_its_lists_as_tuples() -> None:
    request = RunRequest(["engine", "--flag"], RunOptions(), rules=["SCORE"])  # type: ignore[arg-type]
    assert request.argv == ("engine", "--flag") and request.rules == ("SCORE",)
