"""conformance/scenarios/options.py: resolve() gives each check its value under an engine's
option, as docs/scenario-format.md ("by_option") defines it."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.scenarios.options import NoValue, points_of, resolve, varies

OPTIONS = ("one", "two", "three")

leaves = st.none() | st.booleans() | st.integers(-5, 60) | st.sampled_from(["AS", "JK", "10H"])


def _with_by_option(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    by_option = st.dictionaries(st.sampled_from(OPTIONS), children, min_size=1, max_size=3).map(
        lambda branches: {"by_option": branches}
    )
    plain = st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["hands", "totals", "turn", "table", "cards"]), children, max_size=4
    )
    return by_option | plain


values = st.recursive(leaves, _with_by_option, max_leaves=25)


def _definition(value: Any, option: str) -> Any:
    """The rule as written: each by_option is its branch for the option, all the way down."""
    if isinstance(value, dict):
        if set(value) == {"by_option"} and isinstance(value["by_option"], dict):
            if option not in value["by_option"]:
                raise NoValue("DISPUTE-01", option)
            return _definition(value["by_option"][option], option)
        return {k: _definition(v, option) for k, v in value.items()}
    if isinstance(value, list):
        return [_definition(v, option) for v in value]
    return value


@given(values, st.sampled_from(OPTIONS))
def test_resolve_is_the_definition(value: Any, option: str) -> None:
    def ruling(point: str) -> str:
        return option

    try:
        expected = _definition(value, option)
    except NoValue:
        try:
            resolve(value, ruling, "DISPUTE-01")
        except NoValue:
            return
        raise AssertionError("a by_option without the engine's option resolved") from None
    assert resolve(value, ruling, "DISPUTE-01") == expected


@given(values, st.sampled_from(OPTIONS))
def test_a_value_without_by_option_is_itself(value: Any, option: str) -> None:
    if not varies(value):
        assert resolve(value, lambda point: option, "DISPUTE-01") is value


def test_a_value_per_interface_reading_takes_the_engine_s_or_the_protocol_default() -> None:
    value = {"by_option": {"run_order": {"listed": "rejected", "engine": "accepted"}}}
    assert resolve(value, {"run_order": "engine"}.get, None) == "accepted"
    assert resolve(value, {"run_order": "listed"}.get, None) == "rejected"
    # A reader that knows no engine (say the profile's own options) reads the default.
    assert resolve(value, lambda _point: None, None) == "rejected"
    assert resolve(value, lambda _point: "any_deal", "DISPUTE-37") == "rejected"
    # Not a point an engine rules on: a check written so leans on no option.
    assert points_of(value, None) == ()
