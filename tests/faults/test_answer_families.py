"""Derived fault families of answers beyond test_derived.py: header-dropped and header-garbled for
``response-header`` rules (faults/headers.py), member faults over a schema built with ``allOf``
(faults/answers.py), and route faults on the last of a ``route-served`` rule's operations
(faults/generic.py), against a small in-test contract and simulator."""

from __future__ import annotations

import json
from typing import Any

from conformance.contract import Contract, Rule
from conformance.contract.model import Source
from conformance.faults.answers import answer_faults
from conformance.faults.base import Fault
from conformance.faults.generic import route_faults
from conformance.faults.headers import header_faults
from conformance.transport.model import Request, Response

SOURCE = Source("volume-0.md", "Endpoints", "A", "", "a")
_TRACE = {"X-Trace": {"schema": {"type": "string", "pattern": "^[0-9]+$"}},
          "X-Any": {"schema": {"type": "string"}}}
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/things": {"get": {"responses": {"200": {"description": "a page", "headers": _TRACE, "content": {
            "application/json": {"schema": {"allOf": [
                {"$ref": "#/components/schemas/Base"},
                {"properties": {"results": {"items": {"type": "object"}}}}]}}}}}}},
        "/other": {"get": {"responses": {"200": {"description": "x"}}}},
    },
    "components": {"schemas": {"Base": {"type": "object", "required": ["count"],
                                        "properties": {"count": {"type": "integer"}, "results": {"type": "array"}}}}},
}


def _rule(name: str, **params: Any) -> Rule:
    operation = params.pop("operation", "GET /things")
    return Rule(f"demo.things.{name}", "schema", name, SOURCE, operation=operation, params=params)


RULES = [
    _rule("trace", check="response-header", headers=["X-Trace"]),
    _rule("any", check="response-header", headers=["X-Any"]),
    _rule("page", check="response-shape"),
    _rule("routes", check="route-served", missing_statuses=[404, 405], operation=None,
          operations=["GET /other", "GET /things"]),
]
CONTRACT = Contract("demo", "demo", OPENAPI, RULES, [], [], {})


class Things:
    credentials: dict[str, str] = {}

    def handle(self, request: Request) -> Response:
        return Response.json_response(200, {"count": 2, "results": []}, {"x-trace": "42", "x-any": "a"})


def _faults() -> dict[str, Fault]:
    return {f.name: f for f in [*header_faults(CONTRACT), *answer_faults(CONTRACT), *route_faults(CONTRACT)]}


def _get(fault: str, path: str = "/things") -> Response:
    return _faults()[fault].apply(Things()).handle(Request.build("GET", path))  # type: ignore[arg-type]


def test_header_dropped_and_garbled_edit_the_named_header_only() -> None:
    assert "x-trace" not in _get("header-dropped:things.trace").headers
    garbled = _get("header-garbled:things.trace").headers
    assert garbled["x-trace"] == "conformance-garbled" and garbled["x-any"] == "a"
    assert _get("header-dropped:things.trace", "/other").headers.get("x-trace") == "42"  # other routes alone


def test_a_header_any_string_may_carry_has_no_garbled_fault() -> None:
    names = set(_faults())
    assert "header-dropped:things.any" in names and "header-garbled:things.any" not in names


def test_member_faults_reach_a_member_required_through_all_of() -> None:
    assert json.loads(_get("member-dropped:things.page").body) == {"results": []}
    assert json.loads(_get("member-retyped:things.page").body) == {"count": "12345", "results": []}


def test_route_faults_break_the_last_listed_route() -> None:
    assert _get("route-missing:things.routes").status == 404
    assert _get("route-missing:things.routes", "/other").status == 200
    assert _get("method-missing:things.routes").status == 405
