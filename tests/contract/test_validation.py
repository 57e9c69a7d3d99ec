"""Body validation: inlined references and remembered verdicts give jsonschema's own answer."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import jsonschema
import pytest

from conformance.contract import load_contract
from conformance.contract.model import Contract
from conformance.contract.validation import FORMAT_CHECKER, _inline, body_error, validator

_COMPONENTS: dict[str, Any] = {
    "Stamp": {"type": "string", "format": "date-time"},
    "Item": {"type": "object", "required": ["id", "at"], "additionalProperties": False, "properties": {
        "id": {"type": "integer", "minimum": 1}, "at": {"$ref": "#/components/schemas/Stamp"},
        "kind": {"enum": [{"$ref": "#/components/schemas/Stamp"}, "plain"]},
        "children": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}}},
    "Page": {"type": "object", "required": ["items"], "properties": {
        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
        "either": {"oneOf": [{"$ref": "#/components/schemas/Stamp"}, {"type": "string"}]},
        "never": {"not": {"$ref": "#/components/schemas/Stamp"}},
        "any": {"anyOf": [{"$ref": "#/components/schemas/Item"}, {"type": "null"}]}}},
}


def _contract() -> Contract:
    base = load_contract("presentations")
    openapi = copy.deepcopy(base.openapi)
    openapi.setdefault("components", {})["schemas"] = copy.deepcopy(_COMPONENTS)
    return dataclasses.replace(base, openapi=openapi, rules=[], gaps=[], conflicts=[])


_GOOD = {"items": [{"id": 1, "at": "2024-01-01T00:00:00Z", "children": [{"id": 2, "at": "2024-01-02T00:00:00Z"}]}]}
_BAD: list[Any] = [
    {"items": [{"id": 0, "at": "2024-01-01T00:00:00Z"}]},
    {"items": [{"id": 1, "at": "yesterday"}]},
    {"items": [{"id": 1, "at": "2024-01-01T00:00:00Z", "children": [{"id": 2}]}]},
    {"items": [{"id": 1, "at": "2024-01-01T00:00:00Z", "extra": True}]},
    {"items": [], "either": "2024-01-01T00:00:00Z"},  # valid under both: the message prints both subschemas
    {"items": [], "never": "2024-01-01T00:00:00Z"},  # the message prints the subschema
    {"items": [], "any": {"id": "one"}},
    {"items": [{"id": 1, "at": "2024-01-01T00:00:00Z", "kind": "2024"}]},
    [],
]


def _jsonschema_answer(contract: Contract, schema: dict[str, Any], instance: Any) -> tuple[str, str] | None:
    plain = jsonschema.Draft202012Validator(contract.standalone(schema), format_checker=FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(plain.iter_errors(instance))
    return None if error is None else ("/".join(str(p) for p in error.absolute_path) or "(body)", error.message)


@pytest.mark.parametrize("instance", [_GOOD, *_BAD])
def test_the_verdict_and_message_are_jsonschemas_own(instance: Any) -> None:
    contract = _contract()
    schema = contract.openapi["components"]["schemas"]["Page"]
    body = json.dumps(instance).encode()
    expected = _jsonschema_answer(contract, schema, instance)
    assert body_error(contract, schema, body, instance) == expected
    assert body_error(contract, schema, body, instance) == expected  # remembered: the same answer
    assert (expected is None) == (instance is _GOOD)


def test_inlining_keeps_data_messages_and_cycles() -> None:
    contract = _contract()
    inlined = _inline(contract.standalone(contract.openapi["components"]["schemas"]["Page"]))
    item = inlined["properties"]["items"]["items"]
    assert item["properties"]["at"] == {"type": "string", "format": "date-time"}
    assert item["properties"]["kind"]["enum"][0] == {"$ref": "#/$defs/Stamp"}  # data, not a schema
    assert item["properties"]["children"]["items"] == {"$ref": "#/$defs/Item"}  # the cycle stays a reference
    assert inlined["properties"]["either"]["oneOf"][0] == {"$ref": "#/$defs/Stamp"}  # printed by its message
    assert inlined["properties"]["never"]["not"] == {"$ref": "#/$defs/Stamp"}
    assert "$defs" in inlined


def test_a_scoped_schema_is_left_to_referencing() -> None:
    schema = {"$defs": {"A": {"$id": "https://example.invalid/a", "type": "string"}},
              "properties": {"a": {"$ref": "#/$defs/A"}}}
    assert _inline(schema) is schema


def test_a_changed_body_is_validated_anew() -> None:
    contract = _contract()
    schema = contract.openapi["components"]["schemas"]["Page"]
    assert body_error(contract, schema, json.dumps(_GOOD).encode(), _GOOD) is None
    bad = _BAD[0]
    expected = ("items/0/id", "0 is less than the minimum of 1")
    assert body_error(contract, schema, json.dumps(bad).encode(), bad) == expected


def test_validator_keeps_references_as_written() -> None:
    contract = _contract()
    schema = contract.openapi["components"]["schemas"]["Page"]
    plain = validator(contract, schema)
    assert plain.schema["properties"]["items"]["items"] == {"$ref": "#/$defs/Item"}
    assert validator(contract, schema) is plain


def test_a_huge_instance_in_the_message_is_cut_in_the_middle() -> None:
    """jsonschema writes the instance into its message with repr: a 1 MB array where an object
    belongs made a 1.5 MB message, which every failing rule kept four times over (issue 34)."""
    contract = _contract()
    schema = contract.openapi["components"]["schemas"]["Page"]
    body = b"[" + b"0," * 499_999 + b"0]"
    where, message = body_error(contract, schema, body, json.loads(body)) or ("", "")
    assert where == "(body)" and len(message) < 2100, len(message)
    assert message.startswith("[0, 0, 0") and message.endswith("is not of type 'object'")
    assert "characters cut" in message
    assert body_error(contract, schema, b"[1]", [1]) == ("(body)", "[1] is not of type 'object'")  # short: whole
