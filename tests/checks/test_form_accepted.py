"""The core check ``form-accepted`` against a tiny form server: it passes a server taking the
example form (with the documented charset) and the form with non-ASCII text, stored as sent;
fails one refusing the charset parameter, one refusing non-ASCII text, and one decoding the form
as Latin-1; and skips (never passes) where the example itself is refused as insufficient or the
answer shows no field to compare."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes

import pytest

from conformance.checks.forms import form_accepted
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0", "x-body-encoding": {"charset": "utf-8", "form": "application/x-www-form-urlencoded"},
    "paths": {"/{shop}/things": {"post": {
        "security": [], "parameters": [{"name": "shop", "in": "path", "required": True, "schema": {"type": "string"}}],
        "requestBody": {"content": {"application/x-www-form-urlencoded": {
            "schema": {"type": "object"}, "example": {"title": "Mug", "quantity": 3}}}},
        "responses": {"201": {"description": "created"}}}}}}
TEXT = " — café, 陶器"


def server(breaks: str = "", shows: bool = True) -> Any:
    def handle(request: Request) -> Response:
        if request.path != "/s1/things":
            return Response.json_response(404, {"error": "no such shop"})
        if breaks == "charset-refused" and "charset" in (request.header("content-type") or ""):
            return Response.json_response(415, {"error": "unsupported media type"})
        if breaks == "example-insufficient":
            return Response.json_response(422, {"error": "price is required"})
        if breaks == "ascii-only" and any(b >= 0x80 for b in unquote_to_bytes(request.body)):
            return Response.json_response(400, {"error": "ASCII only"})
        encoding = "latin-1" if breaks == "latin1" else "utf-8"
        form = dict(parse_qsl(request.body.decode("ascii"), encoding=encoding))
        return Response.json_response(201, {"id": 1, **(form if shows else {})})

    return handle


def _rule(**params: Any) -> Rule:
    return Rule(id="demo.forms.rule", kind="format", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /{shop}/things", params={"check": "form-accepted", "path_values": {"shop": "{SHOP_ID}"},
                                                         "refusable": [400, 422], **params})


PLAIN, TEXTED = _rule(), _rule(fields=["title"], text=TEXT)


def run(rule: Rule, handle: Any) -> None:
    form_accepted(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, handle, {"SHOP_ID": "s1"}))


def test_a_server_taking_the_form_and_storing_the_text_passes() -> None:
    run(PLAIN, server())
    run(TEXTED, server())


@pytest.mark.parametrize(("rule", "breaks", "reads"), [(PLAIN, "charset-refused", "charset=utf-8"),
                                                       (TEXTED, "ascii-only", "added to title"),
                                                       (TEXTED, "latin1", "the answer's title is")])
def test_a_server_deviating_fails(rule: Rule, breaks: str, reads: str) -> None:
    with pytest.raises(ContractFailure, match=reads):
        run(rule, server(breaks))


def test_nothing_shown_is_skipped() -> None:
    with pytest.raises(RuleSkipped, match="refused the example form"):
        run(PLAIN, server("example-insufficient"))
    with pytest.raises(RuleSkipped, match="shows none of the fields"):
        run(TEXTED, server(shows=False))
