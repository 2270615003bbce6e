"""jsonschema-rs (the verdict) and python-jsonschema (the explanation) agree.

conformance/io/validation.py lets the compiled validator decide and asks python-jsonschema
only to word a failure. That is sound only if both reach the same verdict, so this file
checks them side by side on every scenario of the corpus, on every request and answer
of a real corpus run, and on documents mutated from both.
"""

from __future__ import annotations

import copy
import datetime
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import conformance.adapter.engine as engine_module
import conformance.adapter.protocol as protocol_module
from conformance.adapter.protocol import _validators, validate_response
from conformance.errors import ProtocolError
from conformance.io.validation import SchemaValidator
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import _jsonable, _validator, load_corpus
from conformance.scenarios.corpus import default_corpus_dir, scenario_files

Document = tuple[SchemaValidator, Any]


#: libyaml's safe loader when PyYAML has it: the same documents as ``yaml.safe_load_all``, in a
#: tenth of the time; this module is imported by every pytest process, for its @given below.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _scenario_documents() -> list[Any]:
    documents = []
    for path in scenario_files([default_corpus_dir()]):
        text = path.read_text(encoding="utf-8")
        loaded = yaml.load_all(text, Loader=_SAFE_LOADER)
        documents += [_jsonable(doc) for doc in loaded if doc is not None]
    return documents


SCENARIOS = _scenario_documents()


@pytest.fixture(scope="module")
def protocol_documents() -> list[Document]:
    """Every request and answer of one corpus run, with the validator that checked it."""
    seen: list[Document] = []
    validators = _validators()
    real_request = engine_module.validate_request
    real_response = engine_module.validate_response
    real_is_valid = engine_module.request_is_valid

    def record_request(op: str, obj: object) -> None:
        seen.append((validators[f"{op}.request"], copy.deepcopy(obj)))
        real_request(op, obj)

    def record_sent_ahead(op: str, obj: object) -> bool:
        # Requests sent one answer ahead, and those checked once for the whole run
        # (protocol.checked_request), are checked with this non-raising form.
        seen.append((validators[f"{op}.request"], copy.deepcopy(obj)))
        return real_is_valid(op, obj)

    def record_response(op: str, obj: object) -> None:
        name = "error.response" if isinstance(obj, dict) and "error" in obj else f"{op}.response"
        seen.append((validators[name], copy.deepcopy(obj)))
        real_response(op, obj)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine_module, "validate_request", record_request)
        patch.setattr(engine_module, "validate_response", record_response)
        patch.setattr(engine_module, "request_is_valid", record_sent_ahead)
        patch.setattr(protocol_module, "request_is_valid", record_sent_ahead)
        catalogue = load_catalogue()
        scenarios = [  # the Argentine cases: the run below plays that profile
            s
            for s in load_corpus([default_corpus_dir()], catalogue=catalogue).scenarios
            if "argentine" in s.profiles
        ]
        run = run_scenarios(
            [sys.executable, "-m", "reference.adapter"],
            scenarios,
            RunOptions(),
            catalogue=catalogue,
        )
    # Every case ran to a verdict (the few written for other interface readings are
    # unsupported by the reference); no engine error hides a message from the comparison.
    assert run.counts.get("pass", 0) + run.counts.get("unsupported", 0) == len(scenarios)
    assert run.counts.get("pass", 0) > 0.9 * len(scenarios)
    return seen


def _agree(validator: SchemaValidator, document: Any) -> bool:
    """Assert both verdicts match; return the verdict."""
    fast = validator.fast_is_valid(document)
    assert fast == validator.explainer_is_valid(document), document
    if not fast:
        # An invalid document is always explained.
        assert validator.best_error(document) is not None
    return fast


def test_every_corpus_scenario_is_valid_to_both() -> None:
    assert len(SCENARIOS) >= 200
    for document in SCENARIOS:
        assert _agree(_validator(), document)


def test_every_message_of_a_corpus_run_is_valid_to_both(
    protocol_documents: list[Document],
) -> None:
    assert len(protocol_documents) >= 1500
    for validator, document in protocol_documents:
        assert _agree(validator, document)


# -- mutated documents ------------------------------------------------------------------

#: Strings near the schemas' patterns, among them the trailing newline that Python's
#: ``$`` forgives and ECMA-262's does not.
NEAR_MISSES = [
    "cc-0001\n",
    "cc-001",
    "10H\n",
    "JK",
    "1H",
    "DISPUTE-01\n",
    "MELD-RUN-3\n",
    "argentine\n",
    "play",
    "",
    "x\ny",
]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(NEAR_MISSES)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*path, index))


def _leaves(node: Any) -> list[Any]:
    return [_at(node, p) for p in _paths(node)]


def _at(node: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


@st.composite
def mutated(draw: st.DrawFn, documents: list[Document]) -> Document:
    """A document of ``documents`` with one value replaced, removed or added."""
    validator, original = draw(st.sampled_from(documents))
    document = copy.deepcopy(original)
    path = draw(st.sampled_from(list(_paths(document))))
    if not path:
        return validator, draw(JSON_VALUES)
    parent, last = _at(document, path[:-1]), path[-1]
    how = draw(st.sampled_from(["replace", "borrow", "remove", "add"]))
    if how == "replace":
        parent[last] = draw(JSON_VALUES)
    elif how == "borrow":
        # A value from elsewhere in the same document: nearly right, so deeply checked.
        parent[last] = copy.deepcopy(draw(st.sampled_from(_leaves(original))))
    elif how == "remove":
        del parent[last]
    elif isinstance(parent, dict):
        parent[draw(st.text(max_size=6))] = draw(JSON_VALUES)
    else:
        parent.insert(last, draw(JSON_VALUES))
    return validator, document


@given(mutated([(_validator(), document) for document in SCENARIOS]))
def test_mutated_scenarios_get_the_same_verdict(case: Document) -> None:
    _agree(*case)


@given(st.data())
def test_mutated_protocol_messages_get_the_same_verdict(
    protocol_documents: list[Document], data: st.DataObject
) -> None:
    _agree(*data.draw(mutated(protocol_documents)))


def test_a_trailing_newline_breaks_a_pattern_for_both() -> None:
    document = copy.deepcopy(SCENARIOS[0])
    document["id"] = document["id"] + "\n"
    assert not _agree(_validator(), document)
    error = _validator().best_error(document)
    assert error is not None and list(error.absolute_path) == ["id"]


def test_a_bad_answer_is_still_explained_with_its_pointer() -> None:
    with pytest.raises(ProtocolError) as caught:
        validate_response("check_meld", {"id": 1, "valid": "yes"})
    assert "JSON pointer '/valid'" in str(caught.value)


def test_a_value_that_is_not_json_is_judged_by_python_jsonschema() -> None:
    # YAML turns `2024-01-01` into a date, which jsonschema-rs cannot convert.
    validator = SchemaValidator({"type": "object", "properties": {"when": {"type": "string"}}})
    document = {"when": datetime.date(2024, 1, 1)}
    with pytest.raises(ValueError):
        validator.fast_is_valid(document)
    assert not validator.is_valid(document)
    error = validator.best_error(document)
    assert error is not None and list(error.absolute_path) == ["when"]
