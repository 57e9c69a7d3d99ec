"""The core check ``refused-edit`` against a tiny in-test server: it passes a server refusing each
edit after accepting the unedited request (also one that picks another 4xx where the rule names
no status), fails one that takes the edit, answers a 5xx, or answers the documented refusal with
another status or body, and is not exercised when the unedited request is not accepted. The
derived fault ``edit-ignored`` makes the conforming server fail the same check."""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.checks.edits import refused_edit
from conformance.checks.registry import check_params, spec_for
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.faults.edits import edit_faults
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response
from tests.checks.server import context

CREATE = "POST /things"
ONE = "GET /things/{id}"
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "security": [{"key": []}],
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "x-key", "x-credential": "{API_KEY}"}},
        "schemas": {"Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}},
    },
    "paths": {
        "/things": {"post": {
            "requestBody": {"content": {"application/json": {
                "schema": {"type": "object", "properties": {"name": {"type": "string"}, "tag": {"type": "string"}}},
                "example": {"name": "fine", "tag": "{TAG}"}}}},
            "responses": {"201": {"description": "made"}}}},
        "/things/{id}": {"get": {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"},
                            "x-setting": "THING_ID"}],
            "responses": {"200": {"description": "one"}}}},
    },
}
SETTINGS = {"API_KEY": "k-1", "TAG": "blue", "THING_ID": "t-1", "OTHER_ID": "t-2"}

Handler = Callable[[Request], Response]


def things(*, refusal: int = 400, take: str = "", error_body: bool = True) -> Handler:
    """Refuses a name other than "fine" (``refusal``), text/plain, a missing key (401), another
    method (405), another thing (403), an unknown path (404); ``take`` names one edit it takes."""

    def refuse(status: int) -> Response:
        return Response.json_response(status, {"error": "refused"} if error_body else {"message": "no"})

    def handle(request: Request) -> Response:
        if request.header("x-key") != "k-1" and take != "key":
            return refuse(401)
        if request.path == "/things":
            if request.method != "POST" and take != "method":
                return refuse(405)
            if request.header("content-type") != "application/json" and take != "content-type":
                return refuse(415)
            try:
                body = json.loads(request.body)
            except ValueError:
                return refuse(400)
            if (body.get("name") != "fine" or body.get("tag") != "blue") and take != "name":
                return refuse(refusal)
            return Response.json_response(201, {"id": "t-3"})
        if request.path == "/things/t-1" or (request.path.startswith("/things/") and take == "path"):
            return Response.json_response(200, {"id": "t-1"})
        if request.path == "/things/t-2":
            return refuse(403)
        return refuse(404)

    return handle


def run(handler: Handler | Simulator, operation: str, params: dict[str, Any],
        violation: dict[str, Any] | None = None) -> None:
    rule = Rule(id="demo.things.refused", kind="error", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, violation=violation, params={"check": "refused-edit", **params})
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {})
    handle = handler.handle if hasattr(handler, "handle") else handler
    refused_edit(context(contract, rule, handle, SETTINGS))


# (operation, params, the edit the deviating server takes)
CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "body member": (CREATE, {"refused": {"set": {"name": "{TAG}"}}}, "name"),
    "member dropped": (CREATE, {"refused": {"drop": ["tag"]}}, "name"),
    "content type": (CREATE, {"refused": {"content_type": "text/plain"}}, "content-type"),
    "not JSON": (CREATE, {"refused": {"content": '{"name": '}}, ""),
    "method": (CREATE, {"refused": {"method": "PUT"}}, "method"),
    "credential": (CREATE, {"refused": {"as": {"none": True}}}, "key"),
    "path value": (ONE, {"refused": {"path_values": {"id": "{OTHER_ID}"}}}, "path"),
    "path suffix": (ONE, {"refused": {"path_suffix": "/no-such-endpoint"}}, "path"),
    "several": (CREATE, {"refused": [{"set": {"name": "x"}}, {"set": {"name": "y"}}]}, "name"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_server_refusing_the_edit_passes(case: str) -> None:
    operation, params, _ = CASES[case]
    run(things(), operation, {**params, "error_schema": "#/components/schemas/Error"})


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][2]])
def test_a_server_taking_the_edit_fails(case: str) -> None:
    operation, params, take = CASES[case]
    with pytest.raises(ContractFailure):
        run(things(take=take), operation, params)


@pytest.mark.parametrize("case", CASES)
def test_the_derived_edit_ignored_fault_makes_a_conforming_server_fail(case: str) -> None:
    operation, params, _ = CASES[case]
    rule = Rule(id="demo.things.refused", kind="error", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, params={"check": "refused-edit", **params})
    [fault] = edit_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert fault.name == "edit-ignored:things.refused" and fault.breaks == rule.id
    faulty = fault.apply(SimpleNamespace(handle=things()))  # type: ignore[arg-type]
    with pytest.raises(ContractFailure):
        run(faulty, operation, params)


def test_any_4xx_counts_where_the_rule_names_no_status() -> None:
    # The document is silent on the status: a server choosing 422 conforms.
    run(things(refusal=422), CREATE, {"refused": {"set": {"name": "x"}}})


def test_the_documented_status_is_held_exactly() -> None:
    run(things(refusal=422), CREATE, {"refused": {"set": {"name": "x"}}}, violation={"status": 422})
    with pytest.raises(ContractFailure):
        run(things(refusal=422), CREATE, {"refused": {"set": {"name": "x"}}}, violation={"status": 400})


def test_a_5xx_is_never_a_refusal() -> None:
    with pytest.raises(ContractFailure):
        run(things(refusal=500), CREATE, {"refused": {"set": {"name": "x"}}})


def test_the_refusal_body_is_held_to_the_error_schema() -> None:
    with pytest.raises(ContractFailure):
        run(things(error_body=False), CREATE,
            {"refused": {"set": {"name": "x"}}, "error_schema": "#/components/schemas/Error"})


def test_an_unaccepted_control_leaves_the_rule_unexercised() -> None:
    # The control edit makes the unedited request invalid too: a refusal would show nothing.
    with pytest.raises(RuleSkipped):
        run(things(), CREATE, {"control": {"set": {"name": "not-fine"}}, "refused": {"set": {"name": "x"}}})


def test_a_control_edit_is_kept_under_the_refused_edit() -> None:
    # Control: tag set to the valid value by hand; refused: that, and the name wrong.
    run(things(), CREATE, {"control": {"set": {"tag": "blue"}}, "refused": {"set": {"name": "x"}}})


def test_an_unknown_edit_or_error_schema_is_a_contract_error() -> None:
    rule = Rule(id="demo.things.refused", kind="error", statement="s", source=None,  # type: ignore[arg-type]
                operation=CREATE, params={"check": "refused-edit", "refused": {"sett": {}}})
    with pytest.raises(ContractFileError):
        check_params(rule, spec_for(rule))
    with pytest.raises(ContractFileError):
        run(things(), CREATE, {"refused": {"set": {"name": "x"}}, "error_schema": "#/components/schemas/Nope"})
