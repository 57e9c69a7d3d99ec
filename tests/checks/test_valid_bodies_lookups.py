"""valid-bodies with ids_from / narrow / fixed (checks/lookups.py) against a tiny server.

A server that takes only the ids its lookup lists (the document says the ids come from there)
passes, whether its lookup names the items' array ``data`` or ``items`` (not said: a choice);
one that answers a body with a listed id with 500, or refuses the pinned member's setting,
fails. Without the params, generated ids are made up, so the same conforming server fails:
the params are what makes the check fit such a document, not a loosening."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from conformance.checks.context import CheckContext
from conformance.checks.properties import valid_bodies_accepted
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.targets.base import Capabilities
from conformance.transport.model import Request, Response
from conformance.transport.session import Session

IDS = ["th-1", "th-2", "th-3"]
BODY = {"type": "object", "required": ["text"],
        "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 5},
                       "count": {"type": "number", "minimum": 1, "maximum": 3},
                       "themeId": {"type": "string"},
                       "folderIds": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                       "templateId": {"type": "string"}}}
PATHS = {"/themes": {"get": {"responses": {"200": {"description": "a page"}}}},
         "/make": {"post": {"requestBody": {"content": {"application/json": {"schema": BODY}}},
                            "responses": {"200": {"description": "made", "content": {"application/json": {
                                "schema": {"type": "object", "required": ["id"],
                                           "properties": {"id": {"type": "string"}}}}}}}}}}
PARAMS = {"check": "valid-bodies", "ids_from": {"themeId": "GET /themes", "folderIds": "GET /themes"},
          "narrow": {"count": {"multipleOf": 1}}, "fixed": {"templateId": "{TEMPLATE_ID}"}}


class MakeServer:
    """GET /themes lists IDS; POST /make refuses an unlisted id, a fraction of count, and a
    templateId other than "tpl-9"; ``break_`` names one way to be wrong."""

    def __init__(self, break_: str = "", items: str = "data", lookup_status: int = 200) -> None:
        self.break_, self.items, self.lookup_status = break_, items, lookup_status

    def handle(self, request: Request) -> Response:
        if request.path == "/themes":
            rows = [{"id": i, "name": i.upper()} for i in IDS]
            return Response.json_response(self.lookup_status, {self.items: rows, "hasMore": False})
        body = json.loads(request.body)
        ids = [body.get("themeId", IDS[0]), *body.get("folderIds", [])]
        if any(i not in IDS for i in ids) or body.get("count", 1) % 1 or body.get("templateId", "tpl-9") != "tpl-9":
            return Response.json_response(400, {"message": "invalid parameters"})
        if self.break_ == "crash-on-folders" and body.get("folderIds"):
            return Response.json_response(500, {"message": "internal error"})
        return Response.json_response(200, {"id": "gen-1"})


def _transport(server: MakeServer) -> httpx.MockTransport:
    def send(request: httpx.Request) -> httpx.Response:
        answer = server.handle(Request(request.method, request.url.path, list(request.url.params.multi_items()),
                                       dict(request.headers), request.content))
        return httpx.Response(answer.status, headers=answer.headers, content=answer.body)

    return httpx.MockTransport(send)


def run(server: MakeServer, params: dict[str, Any], template: str | None = "tpl-9") -> None:
    contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": PATHS}, [], [], [], {})
    rule = Rule(id="demo.make.valid-accepted", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /make", params=params)
    target = SimpleNamespace(name="sim", capabilities=Capabilities(), settings=SimpleNamespace(seed=None),
                             credential=lambda name: template if name == "TEMPLATE_ID" else None)
    client = httpx.Client(base_url="http://demo.invalid", transport=_transport(server))
    session = Session(client, base_url="http://demo.invalid", sleep=lambda s: None)
    valid_bodies_accepted(CheckContext(contract, rule, target, session))  # type: ignore[arg-type]


@pytest.mark.parametrize("items", ["data", "items"])
def test_a_server_taking_the_listed_ids_passes(items: str) -> None:
    run(MakeServer(items=items), PARAMS)


def test_a_crash_on_a_listed_id_fails() -> None:
    with pytest.raises(ContractFailure):
        run(MakeServer("crash-on-folders"), PARAMS)


def test_without_the_params_made_up_ids_are_refused() -> None:
    # The conforming server refuses generated ids nobody listed: the params are needed, and read.
    with pytest.raises(ContractFailure):
        run(MakeServer(), {"check": "valid-bodies"})


def test_the_fixed_member_is_the_setting() -> None:
    with pytest.raises(ContractFailure):
        run(MakeServer(), PARAMS, template="tpl-other")


def test_a_lookup_not_answered_skips() -> None:
    with pytest.raises(RuleSkipped, match="GET /themes answered 503"):
        run(MakeServer(lookup_status=503), PARAMS)
