"""The core check ``credential-accepted`` (checks/auth.py) against a tiny server: the credential
in its documented form (``Bearer {USER_ID}.{ACCESS_TOKEN}``) is accepted (passes), refused
(fails); where the configured settings cannot form it (a user id that is no number) the rule is
skipped, never passed."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.auth import credential_accepted
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "components": {"securitySchemes": {"user": {"type": "http", "scheme": "bearer",
                                                "x-credential": "Bearer {USER_ID}.{TOKEN}"}}},
    "paths": {"/{shop}/receipts": {"get": {"security": [{"user": []}], "responses": {"200": {
        "description": "receipts", "content": {"application/json": {"schema": {
            "type": "object", "required": ["count"], "properties": {"count": {"type": "integer"}}}}}}}}}}}
RULE = Rule(id="demo.auth.form", kind="auth", statement="s", source=None,  # type: ignore[arg-type]
            operation="GET /{shop}/receipts", params={"check": "credential-accepted", "scheme": "user",
                                                      "pattern": r"^Bearer [0-9]+\..+$",
                                                      "path_values": {"shop": "{SHOP_ID}"}})


def server(refuses_prefix: bool = False) -> Any:
    def handle(request: Request) -> Response:
        good = request.header("authorization") == "Bearer 42.t-1" and not refuses_prefix
        return Response.json_response(200, {"count": 0}) if good else Response.json_response(401, {"error": "no"})

    return handle


def run(handle: Any, user_id: str = "42") -> None:
    settings = {"USER_ID": user_id, "TOKEN": "t-1", "SHOP_ID": "s1"}
    credential_accepted(context(Contract("demo", "demo", OPENAPI, [RULE], [], [], {}), RULE, handle, settings))


def test_the_documented_form_accepted_passes_and_refused_fails() -> None:
    run(server())
    with pytest.raises(ContractFailure, match="in its documented form"):
        run(server(refuses_prefix=True))


def test_settings_that_cannot_form_it_skip() -> None:
    with pytest.raises(RuleSkipped, match="not of the documented form"):
        run(server(), user_id="alice")
