"""The fault families derived from a rule (faults/members.py, faults/answers.py) against a small
in-test contract and simulator, without any service: each fault makes the simulator take what
its rule says must be refused, or answer what its rule says it must not, and nothing else.

The kill matrix proves every derived fault is caught by its rule on the eight services; this
proves the families themselves, so a failure names the module.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.contract import Contract, Rule
from conformance.contract.model import Source
from conformance.faults.answers import answer_faults
from conformance.faults.base import Fault
from conformance.faults.members import member_faults
from conformance.transport.model import Request, Response

SOURCE = Source("volume-0.md", "Endpoints", "A", "", "a")
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/things": {"post": {
            "requestBody": {"content": {"application/json": {"schema": {
                "type": "object", "required": ["name"],
                "properties": {"name": {"type": "string", "maxLength": 5},
                               "kind": {"type": "string", "enum": ["a", "b"]},
                               "tags": {"type": "array", "items": {"enum": ["x", "y"]}},
                               "count": {"type": "integer"}}}}}},
            "responses": {"201": {"description": "made"}, "400": {"description": "refused"}}}},
        "/things/{id}": {"get": {"responses": {"200": {"description": "one", "content": {"application/json": {
            "schema": {"type": "object", "required": ["id", "size"],
                       "properties": {"id": {"type": "string"}, "size": {"type": "integer"}}}}}}}}},
    },
}


def _rule(name: str, kind: str, where: str | None = None, **extra: Any) -> Rule:
    operation = extra.pop("operation", "POST /things")
    return Rule(f"demo.things.{name}", kind, name, SOURCE, operation=operation, where=where, **extra)


RULES = [
    _rule("name-length", "limit", "body.name", violation={"status": 400}),
    _rule("kind-enum", "enum", "body.kind", violation={"status": 400}),
    _rule("tags-enum", "enum", "body.tags", params={"array_items": True}),
    _rule("name-required", "required", "body.name", violation={"status": 400}),
    _rule("count-type", "type", "body.count",
          params={"check": "wrong-types", "valid_value": 3, "wrong_values": ["three", True]}),
    _rule("shape", "schema", operation="GET /things/{id}", params={"check": "response-shape"}),
]
CONTRACT = Contract("demo", "demo", OPENAPI, RULES, [], [], {})


class Things:
    """Refuses (400) what the contract above refuses; answers one thing."""

    credentials: dict[str, str] = {}

    def handle(self, request: Request) -> Response:
        if request.method == "GET":
            return Response.json_response(200, {"id": "1", "size": 2})
        body = json.loads(request.body)
        name, kind, count = body.get("name"), body.get("kind", "a"), body.get("count", 0)
        if not isinstance(name, str) or len(name) > 5 or kind not in ("a", "b") or type(count) is not int \
                or not set(body.get("tags", [])) <= {"x", "y"}:
            return Response.json_response(400, {"message": "refused"})
        return Response.json_response(201, {"id": "1"})


def _faults() -> dict[str, Fault]:
    return {f.name: f for f in [*member_faults(CONTRACT), *answer_faults(CONTRACT)]}


def _post(sim: Any, body: dict[str, Any]) -> int:
    return int(sim.handle(Request.build("POST", "/things", json_body=body)).status)


@pytest.mark.parametrize(("fault", "wrong"), [
    ("bound-accepted:things.name-length", {"name": "toolong"}),
    ("off-list-accepted:things.kind-enum", {"name": "ok", "kind": "zz"}),
    ("off-list-accepted:things.tags-enum", {"name": "ok", "tags": ["x", "zz"]}),
    ("required-defaulted:things.name-required", {}),
    ("wrong-type-accepted:things.count-type", {"name": "ok", "count": "three"}),
])
def test_a_member_fault_takes_the_wrong_value_after_a_request_it_accepted(fault: str, wrong: dict[str, Any]) -> None:
    clean = Things()
    assert _post(clean, wrong) == 400  # the clean simulator refuses it
    sim = _faults()[fault].apply(Things())  # type: ignore[arg-type]
    assert _post(sim, {"name": "fine", "kind": "b", "count": 1, "tags": ["y"]}) == 201  # the control
    assert _post(sim, wrong) == 201
    assert _faults()[fault].breaks == f"demo.{fault.split(':', 1)[1]}"


def test_a_bound_fault_clamps_even_before_any_accepted_request() -> None:
    sim = _faults()["bound-accepted:things.name-length"].apply(Things())  # type: ignore[arg-type]
    assert _post(sim, {"name": "toolong"}) == 201


def test_a_member_fault_leaves_other_operations_and_right_values_alone() -> None:
    sim = _faults()["off-list-accepted:things.kind-enum"].apply(Things())  # type: ignore[arg-type]
    assert _post(sim, {"name": "toolong", "kind": "a"}) == 400  # another member's refusal stands
    assert sim.handle(Request.build("GET", "/things/1")).status == 200


def test_status_remapped_answers_the_documented_refusal_with_another_status() -> None:
    sim = _faults()["status-remapped:things.name-length"].apply(Things())  # type: ignore[arg-type]
    assert _post(sim, {"name": "toolong"}) == 422
    assert _post(sim, {"name": "ok"}) == 201


def test_member_dropped_and_retyped_edit_the_documented_answer() -> None:
    dropped = _faults()["member-dropped:things.shape"].apply(Things())  # type: ignore[arg-type]
    assert json.loads(dropped.handle(Request.build("GET", "/things/1")).body) == {"size": 2}
    retyped = _faults()["member-retyped:things.shape"].apply(Things())  # type: ignore[arg-type]
    assert json.loads(retyped.handle(Request.build("GET", "/things/1")).body) == {"id": 12345, "size": 2}


def test_only_rules_a_family_fits_get_its_fault() -> None:
    names = set(_faults())
    assert {n.split(":")[0] for n in names} == {"bound-accepted", "off-list-accepted", "required-defaulted",
                                                "wrong-type-accepted", "status-remapped", "member-dropped",
                                                "member-retyped"}
    # The wrong-types rule gets its own family, not the kind families; a remap only where a status
    # is documented.
    assert not any(n.endswith("count-type") and not n.startswith("wrong-type") for n in names)
    assert sorted(n for n in names if n.startswith("status-remapped")) == [
        "status-remapped:things.kind-enum", "status-remapped:things.name-length",
        "status-remapped:things.name-required"]


def test_an_array_items_enum_fault_takes_an_array_holding_an_off_list_value_only() -> None:
    sim = _faults()["off-list-accepted:things.tags-enum"].apply(Things())  # type: ignore[arg-type]
    assert _post(sim, {"name": "fine", "tags": ["x"]}) == 201
    assert _post(sim, {"name": "ok", "tags": ["zz"]}) == 201
    assert _post(sim, {"name": "toolong", "tags": ["y"]}) == 400  # another member's refusal stands
