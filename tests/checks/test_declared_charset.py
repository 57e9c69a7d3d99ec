"""The core check ``declared-charset`` against a tiny server: it passes answers that declare
utf-8 (in any spelling RFC 9110 allows) or no charset, error answers included, and fails an
answer declaring another charset or a body that is not UTF-8."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.wellformed import declared_charset
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/items": {"get": {"security": [], "responses": {"200": {"description": "items"}}}},
    "/token": {"post": {"security": [], "responses": {"200": {"description": "tokens"}}}}}}
RULE = Rule(id="demo.bodies.utf8", kind="format", statement="s", source=None,  # type: ignore[arg-type]
            operation=None, params={"check": "declared-charset", "charset": "utf-8", "probes": [
                {"operation": "GET /items"}, {"operation": "GET /items", "query": {"state": "zz"}},
                {"operation": "POST /token", "content": "grant_type=x",
                 "content_type": "application/x-www-form-urlencoded"}]})


def server(content_type: str = "application/json; charset=utf-8", body: bytes = '{"name": "café"}'.encode(),
           on_error: str | None = None) -> Any:
    def handle(request: Request) -> Response:
        failed = request.method == "POST" or dict(request.query).get("state") == "zz"
        declared = on_error if failed and on_error is not None else content_type
        return Response(400 if failed else 200, {"content-type": declared}, body)

    return handle


@pytest.mark.parametrize("declared", ["application/json; charset=utf-8", "application/json; charset=UTF8",
                                      'application/json; charset="utf-8"', "application/json"])
def test_utf8_or_no_charset_passes(declared: str) -> None:
    declared_charset(context(Contract("demo", "demo", OPENAPI, [RULE], [], [], {}), RULE, server(declared)))


@pytest.mark.parametrize(("handle", "reads"), [
    (server(on_error="application/json; charset=iso-8859-1"), "declared 'application/json; charset=iso-8859-1'"),
    (server("application/json", '{"name": "café"}'.encode("latin-1")), "the body is not utf-8")])
def test_another_charset_or_a_body_not_in_it_fails(handle: Any, reads: str) -> None:
    with pytest.raises(ContractFailure, match=reads):
        declared_charset(context(Contract("demo", "demo", OPENAPI, [RULE], [], [], {}), RULE, handle))
