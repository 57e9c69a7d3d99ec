"""Two core checks of ``checks/bodies.py`` against tiny servers.

``defaults-equivalent``: passes a server that applies the documented default when the member is
omitted, fails one that applies another, and one that refuses the omission.
``response-members`` on a string member declared to hold JSON (``contentMediaType``): passes a
member that parses and fits ``contentSchema``, fails one that does not parse or does not fit."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.bodies import defaults_equivalent, response_members
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/estimate": {"post": {
        "security": [],
        "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "properties": {"size": {"type": "integer"},
                                                        "speed": {"type": "string", "default": "normal"}}},
            "example": {"size": 3}}}},
        "responses": {"200": {"description": "an estimate"}}}},
    "/record": {"get": {"security": [], "responses": {"200": {"description": "a record", "content": {
        "application/json": {"schema": {"type": "object", "required": ["abi"], "properties": {"abi": {
            "type": "string", "contentMediaType": "application/json", "contentSchema": {"type": "array"}}}}}}}}}},
}}


def _rule(check: str, operation: str, **params: Any) -> Rule:
    return Rule(id="demo.bodies.rule", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, params={"check": check, **params})


def estimator(*, default: str = "normal", refuse_omitted: bool = False) -> Any:
    def handle(request: Request) -> Response:
        body = json.loads(request.body)
        if "speed" not in body and refuse_omitted:
            return Response.json_response(400, {"message": "speed is required"})
        speed = body.get("speed", default)
        return Response.json_response(200, {"data": {"cost": f"{body['size'] * (2 if speed == 'fast' else 1)}",
                                                     "speed": speed}})

    return handle


DEFAULTS = _rule("defaults-equivalent", "POST /estimate", compare=["data.cost", "data.speed"])


def run(rule: Rule, handle: Any) -> None:
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {})
    check = defaults_equivalent if rule.params["check"] == "defaults-equivalent" else response_members
    check(context(contract, rule, handle))


def test_a_server_applying_the_documented_default_passes() -> None:
    run(DEFAULTS, estimator())


def test_a_server_applying_another_default_fails() -> None:
    with pytest.raises(ContractFailure, match="differs from with them sent"):
        run(DEFAULTS, estimator(default="fast"))


def test_a_server_refusing_the_omitted_member_fails() -> None:
    with pytest.raises(ContractFailure, match="omitted"):
        run(DEFAULTS, estimator(refuse_omitted=True))


def test_a_compared_member_missing_on_both_answers_fails() -> None:
    with pytest.raises(ContractFailure, match="differs from with them sent"):
        run(_rule("defaults-equivalent", "POST /estimate", compare=["data.nothing"]), estimator())


MEMBERS = _rule("response-members", "GET /record", members=["abi"])


def record(abi: str) -> Any:
    return lambda request: Response.json_response(200, {"abi": abi})


def test_a_member_holding_the_declared_json_passes() -> None:
    run(MEMBERS, record('[{"type": "function"}]'))


@pytest.mark.parametrize(("abi", "reads"), [("ERC20 standard ABI", "does not parse as JSON"),
                                            ('{"type": "function"}', "is not of type 'array'")])
def test_a_member_not_holding_the_declared_json_fails(abi: str, reads: str) -> None:
    with pytest.raises(ContractFailure, match=reads):
        run(MEMBERS, record(abi))
