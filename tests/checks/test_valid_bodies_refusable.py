"""The core check ``valid-bodies`` with ``params.refusable`` against a tiny in-test server: a server
accepting every documented body passes, and so does one refusing some values with a 4xx (the
document does not show their form); a server answering a 5xx, refusing the example itself (the
control), or answering 200 with a body outside the documented schema fails. Without ``refusable``
the server that refuses some values fails: the param is what lets it pass."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conformance.checks.properties import valid_bodies_accepted
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure
from conformance.transport.model import Response
from tests.checks.server import context

ESTIMATE = "POST /estimate"
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {"/estimate": {"post": {
        "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}},
            "example": {"code": "0xab"}}}},
        "responses": {"200": {"description": "fee", "content": {"application/json": {"schema": {
            "type": "object", "required": ["fee"], "properties": {"fee": {"type": "string"}}}}}}}}}},
}

Handler = Callable[[dict[str, Any]], Response]


def accepting(body: dict[str, Any]) -> Response:
    return Response.json_response(200, {"fee": "21000"})


def hex_only(body: dict[str, Any]) -> Response:
    # A choice the document leaves open: only hex digits are read as code, others refused.
    digits = str(body.get("code", "")).removeprefix("0x")
    if not digits or any(c not in "0123456789abcdef" for c in digits):
        return Response.json_response(400, {"message": "code is not hex"})
    return accepting(body)


def crashing(body: dict[str, Any]) -> Response:
    return accepting(body) if body.get("code") == "0xab" else Response.json_response(500, {"message": "crash"})


def refusing_all(body: dict[str, Any]) -> Response:
    return Response.json_response(400, {"message": "no"})


def empty_answer(body: dict[str, Any]) -> Response:
    return accepting(body) if body.get("code") == "0xab" else Response.json_response(200, {"data": {}})


def run(handler: Handler, params: dict[str, Any]) -> None:
    rule = Rule(id="demo.estimate.valid-accepted", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation=ESTIMATE, params={"check": "valid-bodies", **params})
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {})
    valid_bodies_accepted(context(contract, rule, lambda request: handler(json.loads(request.body or b"{}"))))


@pytest.mark.parametrize("handler", [accepting, hex_only], ids=["accepts-all", "refuses-non-hex"])
def test_a_server_accepting_or_refusing_with_a_4xx_passes(handler: Handler) -> None:
    run(handler, {"refusable": "any-4xx"})


def test_a_listed_refusal_status_passes_and_another_fails() -> None:
    run(hex_only, {"refusable": [400]})
    with pytest.raises(ContractFailure):
        run(hex_only, {"refusable": [422]})


@pytest.mark.parametrize("handler", [crashing, refusing_all, empty_answer],
                         ids=["5xx", "example-refused", "answer-off-schema"])
def test_a_deviating_server_fails(handler: Handler) -> None:
    with pytest.raises(ContractFailure):
        run(handler, {"refusable": "any-4xx"})


def test_without_refusable_a_refusal_fails() -> None:
    run(accepting, {})
    with pytest.raises(ContractFailure):
        run(hex_only, {})
