"""The core check ``authorization-refused`` against a tiny in-test authorization server: it passes
a server that issues no code for the wrong member (with an error redirect, or with a 4xx: the
document may choose either), fails one that issues a code anyway or crashes, and is not checked
when the valid request is not granted. The derived fault ``code-despite-member`` makes the
conforming server fail the same check."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlencode

import pytest

from conformance.checks.authorization import authorization_refused
from conformance.checks.context import CheckContext
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError
from conformance.faults.edits import edit_faults
from conformance.targets.base import Capabilities
from conformance.transport.model import Request, Response
from tests.checks.server import context

CONNECT = "GET /oauth/connect"
REDIRECT = "https://client.invalid/cb"
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "components": {"securitySchemes": {"oauth2": {
        "type": "oauth2", "x-credential": "Bearer {ACCESS_TOKEN}", "x-pkce": {"code_challenge_method": "S256"},
        "x-client": {"client_id": ["CLIENT_ID", "API_KEY"], "redirect_uri": "REDIRECT_URI"},
        "flows": {"authorizationCode": {"authorizationUrl": "/oauth/connect", "tokenUrl": "/oauth/token",
                                        "scopes": {"read": "read things"}}}}}},
    "paths": {"/oauth/connect": {"get": {
        "security": [],
        "parameters": [{"name": "response_type", "in": "query", "schema": {"type": "string", "enum": ["code"]}}],
        "responses": {"302": {"description": "back to the client"}}}}},
}
SETTINGS = {"API_KEY": "app-1", "REDIRECT_URI": REDIRECT}

Handler = Callable[[Request], Response]


def authorizer(*, failure: str = "redirect", issues_for: str = "") -> Handler:
    """Grants a valid request (code and state back to redirect_uri); a request with a wrong
    member fails as ``failure`` says (an error redirect, a 400, a 500); ``issues_for`` names a
    member whose wrong value it does not check."""

    def handle(request: Request) -> Response:
        q = dict(request.query)
        wrong = [name for name, ok in (("response_type", q.get("response_type") == "code"),
                                       ("client_id", q.get("client_id") == "app-1"),
                                       ("redirect_uri", q.get("redirect_uri") == REDIRECT)) if not ok]
        wrong = [w for w in wrong if w != issues_for]
        if not wrong:
            answer = {"code": "c-1", "state": q.get("state", "")}
        elif failure == "redirect" and "redirect_uri" not in wrong:
            answer = {"error": "invalid_request", "error_description": "bad request", "state": q.get("state", "")}
        else:
            return Response.json_response(500 if failure == "crash" else 400, {"error": "invalid_request"})
        return Response(302, {"location": f"{REDIRECT}?{urlencode(answer)}"}, b"")

    return handle


def _rule(where: str, kind: str = "required", **params: Any) -> Rule:
    return Rule(id="demo.oauth.refused", kind=kind, statement="s", source=None,  # type: ignore[arg-type]
                operation=CONNECT, where=where, params={"check": "authorization-refused", **params})


def run(handle: Handler, rule: Rule) -> None:
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {})
    authorization_refused(context(contract, rule, handle, SETTINGS))


RULES = {
    "enum": _rule("query.response_type", "enum", values=["token"], leave_out=True),
    "required": _rule("query.client_id", values=["unknown-client"], leave_out=True),
    "redirect": _rule("query.redirect_uri", "error", values=["http://client.invalid/cb"]),
}


@pytest.mark.parametrize("failure", ["redirect", "status"])
@pytest.mark.parametrize("name", RULES)
def test_a_server_issuing_no_code_passes_either_way_it_fails(name: str, failure: str) -> None:
    run(authorizer(failure=failure), RULES[name])


@pytest.mark.parametrize("name", RULES)
def test_a_server_issuing_a_code_anyway_fails(name: str) -> None:
    member = RULES[name].where.partition(".")[2]  # type: ignore[union-attr]
    with pytest.raises(ContractFailure, match="a code was issued anyway"):
        run(authorizer(issues_for=member), RULES[name])


def test_a_crash_is_not_a_readable_failure() -> None:
    with pytest.raises(ContractFailure):
        run(authorizer(failure="crash"), RULES["required"])


def test_a_valid_request_not_granted_fails_the_control() -> None:
    def refuses_all(request: Request) -> Response:
        return Response.json_response(400, {"error": "invalid_request"})

    with pytest.raises(ContractFailure, match="did not redirect back"):
        run(refuses_all, RULES["required"])


@pytest.mark.parametrize("name", RULES)
def test_the_derived_code_despite_member_fault_makes_a_conforming_server_fail(name: str) -> None:
    rule = RULES[name]
    [fault] = edit_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert fault.name == "code-despite-member:oauth.refused" and fault.breaks == rule.id
    faulty = fault.apply(SimpleNamespace(handle=authorizer()))  # type: ignore[arg-type]
    with pytest.raises(ContractFailure, match="a code was issued anyway"):
        run(faulty.handle, rule)


def test_a_scheme_without_x_client_is_a_contract_error() -> None:
    openapi = {**OPENAPI, "components": {"securitySchemes": {"oauth2": {
        k: v for k, v in OPENAPI["components"]["securitySchemes"]["oauth2"].items() if k != "x-client"}}}}
    rule = RULES["required"]
    contract = Contract("demo", "demo", openapi, [rule], [], [], {})
    target = SimpleNamespace(name="sim", capabilities=Capabilities(), credential=SETTINGS.get)
    with pytest.raises(ContractFileError, match="x-client"):
        authorization_refused(CheckContext(contract, rule, target, None))  # type: ignore[arg-type]
