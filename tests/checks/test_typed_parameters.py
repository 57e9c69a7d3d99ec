"""The core check ``typed-parameters`` against a tiny list server: integer parameters refuse a
non-integer after a valid integer was accepted (a server refusing the parameter whatever its
value fails the control, one reading 25.5 as 25 fails), booleans and arrays accept the spellings
the rule gives, and a type nothing declares is skipped, never passed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.checks.types import typed_parameters
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.transport.model import Request, Response
from tests.checks.server import context

_INT = {"type": "integer", "default": 25, "minimum": 25, "maximum": 100}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/{shop}/things": {"get": {"security": [], "parameters": [
        {"name": "shop", "in": "path", "required": True, "schema": {"type": "string"}},
        {"name": "limit", "in": "query", "schema": _INT},
        {"name": "archived", "in": "query", "schema": {"type": "boolean"}},
        {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"enum": ["a", "b"]}}}],
        "responses": {"200": {"description": "things"}}}}}}
SETTINGS = {"SHOP_ID": "s1"}
SPELLINGS = {"true", "false", "1", "0"}


def server(breaks: str = "") -> Any:
    def handle(request: Request) -> Response:
        if request.path != "/s1/things":
            return Response.json_response(404, {"error": "no such shop"})
        q = dict(request.query)
        limit = q.get("limit", "25")
        if breaks == "limit-refused" and "limit" in q:
            return Response.json_response(400, {"error": "limit is not supported"})
        if breaks == "fractions-truncated":
            limit = limit.split(".")[0]
        if not limit.isdigit() or q.get("archived", "true") not in SPELLINGS - ({"1", "0"} if breaks else set()):
            return Response.json_response(400, {"error": "bad parameter"})
        if not set(q.get("tags", "a").split(",")) <= {"a", "b"}:
            return Response.json_response(400, {"error": "bad tags"})
        return Response.json_response(200, {"things": []})

    return SimpleNamespace(handle=handle)


def _rule(**params: Any) -> Rule:
    return Rule(id="demo.types.rule", kind="type", statement="s", source=None,  # type: ignore[arg-type]
                operation=None, params={"check": "typed-parameters", "path_values": {"shop": "{SHOP_ID}"}, **params})


INTEGER = _rule(type="integer", expect="refused", values=["abc", "25.5"])


def run(rule: Rule, sim: Any) -> None:
    typed_parameters(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, sim.handle, SETTINGS))


def test_a_server_holding_the_conventions_passes() -> None:
    run(INTEGER, server())
    run(_rule(type="boolean", expect="accepted", values=sorted(SPELLINGS)), server())
    run(_rule(type="array", expect="accepted"), server())  # the listed items, comma-separated


@pytest.mark.parametrize(("breaks", "reads"), [("fractions-truncated", "'25.5'"), ("limit-refused", "the control")])
def test_an_integer_parameter_read_leniently_or_refused_outright_fails(breaks: str, reads: str) -> None:
    with pytest.raises(ContractFailure, match=reads):
        run(INTEGER, server(breaks))


def test_a_boolean_spelling_refused_fails() -> None:
    with pytest.raises(ContractFailure, match="archived='0'"):
        run(_rule(type="boolean", expect="accepted", values=sorted(SPELLINGS)), server("digits-refused"))


def test_a_type_no_parameter_has_is_skipped() -> None:
    openapi = {"openapi": "3.1.0", "paths": {"/x": {"get": {"responses": {"200": {"description": "x"}}}}}}
    rule = _rule(type="boolean", expect="accepted", values=["1"])
    with pytest.raises(RuleSkipped, match="no documented parameter is of type boolean"):
        typed_parameters(context(Contract("demo", "demo", openapi, [rule], [], [], {}), rule, server().handle))
    with pytest.raises(RuleSkipped, match="no documented field is nullable"):
        run(_rule(type="null"), server())
