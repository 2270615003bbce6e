"""The reference adapter: protocol answers for good and malformed requests (docs/protocol.md).

Every request line gets exactly one answer line, malformed ones a typed error, and nothing
a request can contain stops the adapter."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from reference.adapter import Adapter
from reference.profiles import PROFILES

HELLO = {"id": 1, "op": "hello", "protocol": 1}


def ask(adapter: Adapter, request: dict[str, Any] | str) -> dict[str, Any]:
    line = request if isinstance(request, str) else json.dumps(request)
    answer, _ = adapter.handle(line)
    return answer


def test_hello_declares_the_profile_capabilities_and_rulings() -> None:
    answer = ask(Adapter(), HELLO)
    # Every profile the reference plays (a new profile is added here), in sorted order.
    assert answer["protocol"] == 1 and answer["profiles"] == sorted(PROFILES)
    assert {"argentine", "chilean", "pagat", "perla"} <= set(answer["profiles"])
    assert set(answer["capabilities"]) == {"melds", "turns", "deals", "reasons"}
    assert answer["rulings"]["DISPUTE-19"] == "allowed"


def test_a_partial_adapter_refuses_ops_beyond_its_capabilities() -> None:
    adapter = Adapter(["melds"])
    assert ask(adapter, HELLO)["capabilities"] == ["melds"]
    answer = ask(adapter, {"id": 2, "op": "load_state", "state": {}})
    assert answer["error"]["kind"] == "unsupported"
    # 000 §07: A 20 + Q 10 + 3 = 33.
    penalty = {"id": 3, "op": "penalty", "profile": "argentine", "cards": ["AS", "QD", "3C"]}
    assert ask(adapter, penalty) == {"id": 3, "points": 33}


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("not json", "bad_request"),
        ("[" * 5000 + "]" * 5000, "bad_request"),
        (
            '{"id": 2, "op": "penalty", "profile": "argentine", "cards": [' + "9" * 5000 + "]}",
            "bad_request",
        ),
        ('{"id": 2, "op": "shuffle"}', "bad_request"),
        ('{"id": 2, "op": "penalty", "profile": "argentine", "cards": ["1S"]}', "bad_request"),
        ('{"id": 2, "op": "penalty", "profile": "no_such_profile", "cards": []}', "unsupported"),
        (
            '{"id": 2, "op": "act", "action": {"type": "discard", "player": 0, "card": "AS"}}',
            "bad_request",
        ),
        (
            json.dumps(
                {"id": 2, "op": "new_game", "profile": "argentine", "players": 10**10, "seed": 1}
            ),
            "bad_request",
        ),
        (
            json.dumps(
                {"id": 2, "op": "start_deal", "profile": "argentine", "players": 2}
                | {"deal_number": 1, "dealer": 0, "totals": [0, 0], "deck": ["AS"]}
            ),
            "bad_request",
        ),
        ('{"id": 2, "op": "load_state", "state": {"players": 2}}', "invalid_state"),
        # `initial` is required (docs/protocol.md §7): the adapter once took it as true.
        (
            '{"id": 2, "op": "check_meld", "profile": "argentine", '
            '"meld": {"kind": "trio", "cards": ["8C", "8D", "8H"]}}',
            "bad_request",
        ),
    ],
)
def test_malformed_requests_get_a_typed_error(line: str, kind: str) -> None:
    answer = ask(Adapter(), line)
    assert answer["error"]["kind"] == kind, answer
    assert answer["error"]["message"]


def test_nothing_a_request_contains_stops_the_process() -> None:
    lines = [
        json.dumps(HELLO),
        "[" * 100_000 + "]" * 100_000,
        '{"id": 2, "op": "penalty", "profile": "argentine", "cards": [' + "9" * 6000 + "]}",
        json.dumps({"id": 3, "op": "penalty", "profile": "argentine", "cards": ["JK"]}),
        json.dumps({"id": 4, "op": "bye"}),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "reference.adapter"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 5
    assert [a.get("error", {}).get("kind") for a in answers[1:3]] == ["bad_request"] * 2
    assert answers[3] == {"id": 3, "points": 50}  # JOKER-7
    assert answers[4] == {"id": 4}
