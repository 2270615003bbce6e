"""conformance/grading/walk.py: which of a case's requests go ahead, and when."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.adapter.engine import MAX_AHEAD, Ahead, Request
from conformance.grading.walk import Chain, ahead_of


def act(n: int) -> Request:
    return ("act", {"action": {"n": n}})


NEXT = Ahead(("load_state", {"state": {}}), opens_section=True)


def test_a_chain_of_actions_goes_two_in_flight() -> None:
    chain = [act(1), act(2), act(3), act(4)]
    assert ahead_of(chain, 0, 0) == [act(1), act(2)]  # after the setup's answer
    assert ahead_of(chain, 2, 1) == [act(3)]  # step 1's answer read, step 2 in flight
    assert ahead_of(chain, 4, 1) == []  # nothing left


def test_a_request_not_known_yet_stops_the_chain() -> None:
    chain: Chain = [act(1), None, act(3)]  # step 2 deals: its deck waits for step 1
    assert ahead_of(chain, 0, 0) == [act(1)]
    assert ahead_of(chain, 1, 0) == []


def test_the_next_cases_first_goes_only_with_nothing_in_flight() -> None:
    chain: Chain = [act(1), act(2), NEXT, act(10)]
    assert ahead_of(chain, 1, 0) == [act(2)]  # not behind step 2
    assert ahead_of(chain, 2, 1) == []
    # Behind nothing it goes, and the next case's own next request with it.
    assert ahead_of(chain, 2, 0) == [NEXT, act(10)]


@given(
    st.lists(st.sampled_from(["act", "deal", "next"]), max_size=8),
    st.integers(0, 8),
    st.integers(0, MAX_AHEAD),
)
def test_what_goes_ahead_is_a_known_prefix_within_the_limit(
    kinds: list[str], start: int, in_flight: int
) -> None:
    chain: list[Any] = [
        act(i) if k == "act" else None if k == "deal" else NEXT for i, k in enumerate(kinds)
    ]
    sends = ahead_of(chain, start, in_flight)
    assert sends == chain[start : start + len(sends)]  # in order, from start, none skipped
    assert in_flight + len(sends) <= MAX_AHEAD
    assert None not in sends
    for i, item in enumerate(sends):
        if isinstance(item, Ahead):
            assert in_flight + i == 0  # never behind another request
    # It stops only at the limit, at the end, at an unknown request or at a blocked Ahead.
    rest = chain[start + len(sends) :]
    if rest and in_flight + len(sends) < MAX_AHEAD:
        assert rest[0] is None or (isinstance(rest[0], Ahead) and in_flight + len(sends) > 0)
