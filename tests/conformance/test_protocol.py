"""The protocol schemas against the examples and rules of docs/protocol.md."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from conformance.adapter.protocol import (
    CAPABILITY_OPS,
    OPS,
    PROTOCOL_VERSION,
    CheckedRequest,
    checked_request,
    decode_line,
    encode_request,
    normalise_dispute_id,
    schema,
    validate_request,
    validate_response,
)
from conformance.errors import InvalidRequest, ProtocolError
from conformance.io.jsonsafe import check_readable
from conformance.io.textsafe import json_text_is_safe, safe_json

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ALL_CODES = [rank + suit for suit in "SHDC" for rank in RANKS] + ["JK"]


def full_state(**overrides: Any) -> dict[str, Any]:
    """A 2-player, 108-card state in the shape of docs/protocol.md §5."""
    deck = [code for code in ALL_CODES if code != "JK"] * 2 + ["JK"] * 4
    state: dict[str, Any] = {
        "profile": "argentine",
        "players": 2,
        "deal_number": 2,
        "dealer": 0,
        "turn": 1,
        "phase": "play",
        "hands": [deck[0:11], deck[11:22]],
        "opened": [False, True],
        "turn_opened": False,
        "table": [{"owner": 1, "kind": "trio", "cards": ["KS", "KH", "KD"]}],
        "stock": deck[25:],
        "discard": [deck[22], deck[23], deck[24]],
        "totals": [0, 12],
        "deal_scores": None,
        "closer": None,
        "winners": None,
    }
    state.update(overrides)
    return state


# -- the schema files ---------------------------------------------------------------


def test_every_op_has_a_request_and_a_response_schema() -> None:
    folder = resources.files("conformance").joinpath("schemas", "protocol")
    names = {entry.name for entry in folder.iterdir()}
    for op in OPS:
        assert f"{op}.request.json" in names
        assert f"{op}.response.json" in names
    assert {"defs.json", "error.response.json"} <= names


@pytest.mark.parametrize(
    "name",
    ["defs", "error.response", *[f"{op}.{kind}" for op in OPS for kind in ("request", "response")]],
)
def test_schemas_are_valid_draft_2020_12(name: str) -> None:
    document = schema(name)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(document)


def test_capabilities_cover_every_op_but_hello_and_bye() -> None:
    promised = [op for ops in CAPABILITY_OPS.values() for op in ops]
    assert sorted(promised) == sorted(set(OPS) - {"hello", "bye"})
    assert CAPABILITY_OPS["reasons"] == ()


# -- the example session of §8 and the error example of §1 ------------------------


def test_example_session_validates() -> None:
    validate_request("hello", {"id": 1, "op": "hello", "protocol": 1})
    validate_response(
        "hello",
        {
            "id": 1,
            "protocol": 1,
            "implementation": {"name": "reference", "version": "0.1.0", "language": "python"},
            "profiles": ["argentine"],
            "capabilities": ["melds", "turns", "deals", "reasons"],
            "rulings": {},
        },
    )
    run = {"kind": "run", "cards": ["KS", "AS", "2S", "3S"]}
    validate_request(
        "check_meld",
        {"id": 2, "op": "check_meld", "profile": "argentine", "meld": run, "initial": True},
    )
    validate_response("check_meld", {"id": 2, "valid": False, "reason": "run_wraps"})
    validate_request(
        "penalty", {"id": 3, "op": "penalty", "profile": "argentine", "cards": ["AS", "QD", "3C"]}
    )
    validate_response("penalty", {"id": 3, "points": 33})
    validate_request("bye", {"id": 4, "op": "bye"})
    validate_response("bye", {"id": 4})


def test_error_answer_validates_for_any_op() -> None:
    answer = {"id": 7, "error": {"kind": "bad_request", "message": "unknown card code '1S'"}}
    for op in OPS:
        validate_response(op, answer)


def test_unknown_error_kind_is_rejected() -> None:
    with pytest.raises(ProtocolError) as caught:
        validate_response("act", {"id": 7, "error": {"kind": "crashed", "message": "x"}})
    assert caught.value.pointer == "/error/kind"


# -- cards, melds, actions, state --------------------------------------------------


@pytest.mark.parametrize("code", ALL_CODES)
def test_every_card_code_of_section_3_is_accepted(code: str) -> None:
    validate_request("penalty", {"id": 1, "op": "penalty", "profile": "argentine", "cards": [code]})


@pytest.mark.parametrize(
    "code", ["1S", "11H", "10s", "0C", "TS", "JKS", "J", "S", "", "10 H", "jk"]
)
def test_malformed_card_codes_are_rejected(code: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        validate_request(
            "penalty", {"id": 1, "op": "penalty", "profile": "argentine", "cards": ["AS", code]}
        )
    assert caught.value.pointer == "/cards/1"


@pytest.mark.parametrize(
    "action",
    [
        {"type": "draw_stock", "player": 1},
        {"type": "draw_discard", "player": 1},
        {
            "type": "open",
            "player": 1,
            "melds": [
                {"kind": "trio", "cards": ["8C", "8D", "8H"]},
                {"kind": "run", "cards": ["4S", "5S", "6S", "7S"]},
            ],
        },
        {"type": "lay_off", "player": 1, "card": "8S", "meld": 1, "end": "high"},
        {"type": "lay_off", "player": 1, "card": "8S", "meld": 0},  # a trio: no end
        {"type": "swap_joker", "player": 1, "meld": 1, "card": "5S", "to": "high"},
        {"type": "swap_joker", "player": 1, "meld": 1, "card": "5S", "to": "hand"},
        {"type": "swap_joker", "player": 1, "meld": 1, "card": "5S", "to": "low", "to_meld": 2},
        {"type": "discard", "player": 1, "card": "QD"},
    ],
)
def test_actions_of_section_6_are_accepted(action: dict[str, Any]) -> None:
    validate_request("act", {"id": 9, "op": "act", "action": action})


@pytest.mark.parametrize(
    ("action", "pointer"),
    [
        ({"type": "knock", "player": 1}, "/action/type"),  # "pass" is DISPUTE-29 steal's
        ({"type": "discard", "player": 1}, "/action"),  # no card
        ({"type": "discard", "player": 1, "card": "QD", "meld": 0}, "/action"),
        ({"type": "lay_off", "player": 1, "card": "8S", "meld": 1, "end": "top"}, "/action/end"),
        ({"type": "lay_off", "player": 1, "card": "8S", "meld": "1"}, "/action/meld"),
        ({"type": "swap_joker", "player": 1, "meld": 1, "card": "5S", "to": "table"}, "/action/to"),
        ({"type": "draw_stock", "player": 8}, "/action/player"),
        ({"type": "draw_stock"}, "/action"),
    ],
)
def test_malformed_actions_are_rejected_with_a_pointer(
    action: dict[str, Any], pointer: str
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        validate_request("act", {"id": 9, "op": "act", "action": action})
    assert caught.value.pointer == pointer
    assert pointer in str(caught.value)


def test_state_shape() -> None:
    state = full_state()
    validate_request("load_state", {"id": 2, "op": "load_state", "state": state})
    validate_response("load_state", {"id": 2, "state": state})
    # Engines may add their own fields under "x" only.
    validate_response("load_state", {"id": 2, "state": full_state(x={"seed": 42})})
    with pytest.raises(ProtocolError):
        validate_response("load_state", {"id": 2, "state": full_state(seed=42)})


@pytest.mark.parametrize(
    ("overrides", "pointer"),
    [
        ({"players": 9}, "/state/players"),
        ({"deal_number": 9}, "/state/deal_number"),  # 8 is DISPUTE-27 eight's last deal
        ({"phase": "drawing"}, "/state/phase"),
        ({"closer": "0"}, "/state/closer"),
        ({"table": [{"kind": "trio", "cards": ["KS", "KH", "KD"]}]}, "/state/table/0"),
        ({"discard": ["QS", "XX"]}, "/state/discard/1"),
    ],
)
def test_bad_states_are_rejected(overrides: dict[str, Any], pointer: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        validate_response("act", {"id": 3, "accepted": True, "state": full_state(**overrides)})
    assert caught.value.pointer == pointer


def test_missing_state_field_is_reported_at_the_state() -> None:
    state = full_state()
    del state["turn_opened"]
    with pytest.raises(ProtocolError) as caught:
        validate_response("load_state", {"id": 2, "state": state})
    assert caught.value.pointer == "/state"
    assert "turn_opened" in str(caught.value)


def test_act_result_needs_accepted_and_state() -> None:
    validate_response(
        "act", {"id": 9, "accepted": False, "reason": "card_not_in_hand", "state": full_state()}
    )
    with pytest.raises(ProtocolError):
        validate_response("act", {"id": 9, "accepted": True})
    with pytest.raises(ProtocolError) as caught:
        validate_response("act", {"id": 9, "accepted": "yes", "state": full_state()})
    assert caught.value.pointer == "/accepted"


def test_deal_requests_need_a_full_deck() -> None:
    deck = [code for code in ALL_CODES if code != "JK"] * 2 + ["JK"] * 4
    validate_request("next_deal", {"id": 5, "op": "next_deal", "deck": deck})
    with pytest.raises(InvalidRequest) as caught:
        validate_request("redeal", {"id": 5, "op": "redeal", "deck": deck[:-1]})
    assert caught.value.pointer == "/deck"


def test_penalty_points_must_be_an_integer() -> None:
    with pytest.raises(ProtocolError) as caught:
        validate_response("penalty", {"id": 3, "points": "33"})
    assert caught.value.pointer == "/points"
    assert not isinstance(caught.value, InvalidRequest)


def test_request_ops_must_match() -> None:
    with pytest.raises(InvalidRequest) as caught:
        validate_request(
            "penalty", {"id": 3, "op": "check_meld", "profile": "argentine", "cards": []}
        )
    assert caught.value.pointer == "/op"


def test_unknown_op_is_rejected() -> None:
    with pytest.raises(InvalidRequest):
        validate_request("shuffle", {"id": 3, "op": "shuffle"})


def test_hello_rulings_keys_must_be_dispute_ids() -> None:
    hello = {
        "id": 1,
        "protocol": 1,
        "implementation": {"name": "x", "version": "1", "language": "c"},
        "profiles": ["argentine"],
        "capabilities": ["melds"],
        "rulings": {"D19": "allowed"},
    }
    with pytest.raises(ProtocolError):
        validate_response("hello", hello)


# -- framing -------------------------------------------------------------------------


def test_requests_are_one_compact_line() -> None:
    line = encode_request(
        {"id": 2, "op": "penalty", "profile": "argentine", "cards": ["AS", "10H"]}
    )
    assert line == b'{"id":2,"op":"penalty","profile":"argentine","cards":["AS","10H"]}\n'
    assert PROTOCOL_VERSION == 1


# Text an engine may send and get back unchanged: decode_line escapes control
# characters, surrogates and U+FFFE/U+FFFF (conformance/io/textsafe.py; tested in
# test_textsafe.py), so the identity holds on everything else.
safe_texts = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\ufffe\uffff")
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | safe_texts,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(safe_texts, children, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(safe_texts, json_values, max_size=6))
def test_encode_then_decode_is_identity(obj: dict[str, Any]) -> None:
    line = encode_request(obj)
    assert line.endswith(b"\n") and line.count(b"\n") == 1  # newlines inside strings are escaped
    assert decode_line(line[:-1]) == obj


# -- the fast JSON path (orjson) against the standard library's --------------------------------
# decode_line and encode_request read and write with orjson and fall back to the standard
# library; the standard library's result is the definition. Every JSON value Python can hold
# (huge integers, NaN, lone surrogates, floats of any length) must come out the same.

any_texts = st.text()  # surrogates and controls included
any_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()
    | any_texts,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(any_texts, children, max_size=4)
    ),
    max_leaves=20,
)


def _stdlib_outcome(call: Any) -> tuple[str, Any]:
    try:
        return "ok", call()
    except Exception as exc:  # the kind of failure is compared, whatever it is
        return type(exc).__name__, None


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values, NaN equal to NaN (json.loads keeps it, and it is never == itself)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@given(st.dictionaries(any_texts, any_values, max_size=6))
def test_encode_request_writes_what_the_standard_library_writes(obj: dict[str, Any]) -> None:
    def stdlib() -> bytes:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        return text.encode("utf-8") + b"\n"

    expected = _stdlib_outcome(stdlib)
    got = _stdlib_outcome(lambda: encode_request(obj))
    assert got[0] == expected[0]
    if expected[0] == "ok":
        # The same value; a float may be spelled otherwise (1e16 for 1e+16), nothing else.
        assert _same(json.loads(got[1]), json.loads(expected[1]))


@given(st.dictionaries(any_texts, any_values, max_size=6), st.booleans())
def test_decode_line_reads_what_the_standard_library_reads(
    obj: dict[str, Any], spaced: bool
) -> None:
    separators = (", ", ": ") if spaced else (",", ":")
    for ascii_only in (True, False):
        line = json.dumps(obj, separators=separators, ensure_ascii=ascii_only).encode(
            "utf-8", "surrogatepass"
        )
        text = line.decode("utf-8")
        expected = _stdlib_outcome(functools.partial(json.loads, text))
        got = _stdlib_outcome(functools.partial(decode_line, line))
        # What the standard library cannot read, what is not an object, and a number no
        # report could hold (NaN, infinity, over 40 digits: docs/protocol.md §1) are refused.
        unreadable = (
            expected[0] == "ok"
            and _stdlib_outcome(functools.partial(check_readable, expected[1]))[0]
            == "UnreadableNumber"
        )
        if expected[0] != "ok" or not isinstance(expected[1], dict) or unreadable:
            assert got[0] == "ProtocolError"
            continue
        # What the harness keeps is the standard library's value, made safe where the
        # text needs it (conformance/io/textsafe.py), as before the fast path.
        value = expected[1] if json_text_is_safe(text) else safe_json(expected[1])
        assert got[0] == "ok" and _same(got[1], value)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"points": 123456789012345678901234567890}',  # orjson: a float
        b'{"points": 18446744073709551616}',
        b'{"points": -9223372036854775809}',
        b'{"a": 1, "a": 2}',
        b'{"x": 0.1234567890123456789}',
        # 19 digits: orjson's fast path but for a negative below -2**63.
        b'{"seed": 9999999999999999999}',
        b'{"seed": 3553260803050964941}',
        b'{"points": -9999999999999999999}',
        b'{"points": -9223372036854775808}',
        b'{"points": [-1, -9223372036854775809.5]}',
        b'{"points": 18446744073709551615}',
    ],
)
def test_decode_line_agrees_with_the_standard_library_where_orjson_differs(raw: bytes) -> None:
    expected = json.loads(raw)
    got = decode_line(raw)
    assert _same(got, expected) and type(got.get("points")) is type(expected.get("points"))


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b'{"points": 1e400}', "the number 1e400 is too large"),  # Python: inf
        (b'{"points": NaN}', "NaN is not JSON"),
        (b'{"x": {"n": -Infinity}}', "-Infinity is not JSON"),
        (b'{"points": ' + b"9" * 41 + b"}", "an integer of 41 digits"),
    ],
)
def test_decode_line_refuses_a_number_no_report_could_hold(raw: bytes, said: str) -> None:
    """The standard library reads them (as inf, NaN, a 41-digit int); a report holding
    one would be refused by the harness's own readers."""
    with pytest.raises(ProtocolError, match=f"holds a number the harness does not take: {said}"):
        decode_line(raw)
    assert decode_line(b'{"points": ' + b"9" * 40 + b"}") == {"points": 10**40 - 1}


def test_encode_request_refuses_nan_as_the_standard_library_does() -> None:
    with pytest.raises(ValueError):
        encode_request({"id": 1, "op": "act", "x": {"v": float("nan"), "w": None}})
    with pytest.raises(ValueError):
        encode_request({"id": 1, "op": "act", "x": {"v": float("inf")}})
    # Integer keys are written as strings, as the standard library writes them.
    assert encode_request({"id": 1, "m": {2: "a"}}) == b'{"id":1,"m":{"2":"a"}}\n'
    assert encode_request({"n": 2**70}) == b'{"n":1180591620717411303424}\n'


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        (b"INFO starting engine", "not JSON"),
        (b'{"id": 1', "not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[1, 2]", "not an object"),
        (b"42", "not an object"),
        # Valid JSON that json.loads still refuses must not escape as a Python error.
        (b"[" * 100_000 + b"]" * 100_000, "cannot be decoded"),
        (b'{"id": 1, "points": ' + b"9" * 5000 + b"}", "an integer of 5000 digits"),
    ],
)
def test_decode_line_rejects_non_objects(raw: bytes, match: str) -> None:
    with pytest.raises(ProtocolError, match=match):
        decode_line(raw)


def test_decode_line_tolerates_crlf() -> None:
    assert decode_line(b'{"id": 1}\r') == {"id": 1}


@pytest.mark.parametrize(
    ("given_id", "expected"),
    [
        ("DISPUTE-1", "DISPUTE-01"),
        ("DISPUTE-01", "DISPUTE-01"),
        ("DISPUTE-36", "DISPUTE-36"),
        ("dispute-7", "DISPUTE-07"),
        ("DISPUTE-007", "DISPUTE-07"),
        ("MELD-RUN-3", "MELD-RUN-3"),
    ],
)
def test_normalise_dispute_id(given_id: str, expected: str) -> None:
    assert normalise_dispute_id(given_id) == expected


def test_schema_ids_are_unique() -> None:
    folder = resources.files("conformance").joinpath("schemas", "protocol")
    ids = [json.loads(entry.read_text(encoding="utf-8"))["$id"] for entry in folder.iterdir()]
    assert len(ids) == len(set(ids))


def test_the_optional_pass_action_and_declared_jokers_are_well_formed_requests() -> None:
    """DISPUTE-29 steal's ``pass`` and DISPUTE-30 declared's ``declared`` (protocol §6)."""
    validate_request("act", {"id": 9, "op": "act", "action": {"type": "pass", "player": 2}})
    run = {"kind": "run", "cards": ["4S", "5S", "6S", "JK"], "declared": ["3S"]}
    opening = {"type": "open", "player": 1, "melds": [run]}
    validate_request("act", {"id": 9, "op": "act", "action": opening})
    with pytest.raises(InvalidRequest):
        bad = {**opening, "melds": [{**run, "declared": ["3X"]}]}
        validate_request("act", {"id": 9, "op": "act", "action": bad})
    with pytest.raises(InvalidRequest):
        extra = {"type": "pass", "player": 2, "card": "QD"}
        validate_request("act", {"id": 9, "op": "act", "action": extra})
    # Only an opening's melds carry declarations; check_meld's meld does not.
    with pytest.raises(InvalidRequest):
        validate_request(
            "check_meld",
            {"id": 3, "op": "check_meld", "profile": "argentine", "meld": run, "initial": True},
        )


def test_the_schema_card_codes_are_the_harness_card_codes() -> None:
    # The schema spells the 53 codes out (an enum validates faster than a pattern): they
    # must be exactly the codes the harness knows (conformance/knowledge/cards.py).
    from conformance.knowledge.cards import CANONICAL_ORDER

    assert schema("defs")["$defs"]["card"]["enum"] == list(dict.fromkeys(CANONICAL_ORDER))


# -- requests checked and encoded once ----------------------------------------------

CHECKABLE = [
    ("act", {"action": {"type": "discard", "player": 1, "card": "QD"}}),
    ("act", {"action": {"type": "lay_off", "player": 1, "card": "8S", "meld": 1, "end": "high"}}),
    ("load_state", {"state": full_state()}),  # nulls: the encoder reads them back
    ("new_game", {"profile": "argentine", "players": 3, "seed": 2**70}),  # past orjson: stdlib
    (
        "check_meld",
        {
            "profile": "perla",
            "meld": {"kind": "run", "cards": ["4S", "5S", "JK", "7S"]},
            "initial": True,
        },
    ),
]


@given(st.sampled_from(CHECKABLE), st.integers(min_value=1, max_value=2**64))
def test_a_checked_request_is_the_line_encode_request_writes(
    request: tuple[str, dict[str, Any]], request_id: int
) -> None:
    op, fields = request
    checked = checked_request(op, fields)
    assert checked == (op, fields)  # still the request it was made from
    assert isinstance(checked, CheckedRequest)
    message = {"id": request_id, "op": op, **fields}
    validate_request(op, message)
    assert checked.line(request_id) == encode_request(message)


@pytest.mark.parametrize(
    "request_",
    [
        ("act", {"action": {"type": "knock", "player": 1}}),
        ("act", {"action": {"type": "discard", "player": 1}}),
        ("load_state", {"state": full_state(dealer="0")}),
        ("no_such_op", {}),
    ],
)
def test_a_request_breaking_the_schema_is_left_to_the_session(
    request_: tuple[str, dict[str, Any]],
) -> None:
    """Not checked: sent as it is, the session refuses it with InvalidRequest as always."""
    checked = checked_request(*request_)
    assert type(checked) is tuple
    assert checked == request_
