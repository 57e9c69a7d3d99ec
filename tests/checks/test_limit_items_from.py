"""The core limit check with ``items_from``: an array whose items only the target knows (ids a
setting names) is filled with them at its bound, and made-up items only past it. A server that
takes the named ids and refuses one too many passes (whether it refuses ids it does not know is
its choice); one that takes one too many, or refuses with another status, fails; a setting naming
fewer ids than the bound is skipped, never passed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.boundary import limit_boundary
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped, SkipKind
from conformance.transport.model import Request, Response
from tests.checks.server import context

IDS = {"type": "array", "maxItems": 3, "items": {"type": "string"}}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/things": {"post": {
    "requestBody": {"content": {"application/json": {
        "schema": {"type": "object", "properties": {"name": {"type": "string"}, "ids": IDS}},
        "example": {"name": "a thing"}}}},
    "responses": {"200": {"description": "made"}, "400": {"description": "refused"}}}}}}
KNOWN = ["f1", "f2", "f3", "f4"]


class Folders:
    """Takes up to ``most`` ids it knows; ``unknown`` is what it answers for another id."""

    def __init__(self, most: int = 3, over: int = 400, unknown: int = 404) -> None:
        self.most, self.over, self.unknown = most, over, unknown
        self.sent: list[list[str]] = []

    def handle(self, request: Request) -> Response:
        ids = json.loads(request.body).get("ids", [])
        self.sent.append(ids)
        if len(ids) > self.most:
            return Response.json_response(self.over, {"error": "too many"})
        if any(i not in KNOWN for i in ids):
            return Response.json_response(self.unknown, {"error": "no such folder"})
        return Response.json_response(200, {"ok": True})


def run(server: Folders, setting: str = "f1,f2,f3,f4") -> None:
    rule = Rule(id="demo.things.ids-count", kind="limit", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /things", where="body.ids", violation={"status": 400},
                params={"items_from": "{IDS}"})
    limit_boundary(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle,
                           {"IDS": setting}))


def test_the_named_ids_at_the_bound_and_one_too_many_refused_pass() -> None:
    server = Folders()
    run(server)
    assert server.sent[1:] == [["f1", "f2", "f3"], ["f1", "f2", "f3", "f4"]]


def test_an_id_is_made_up_only_past_the_bound() -> None:
    server = Folders()
    run(server, "f1,f2,f3")
    assert server.sent[1:] == [["f1", "f2", "f3"], ["f1", "f2", "f3", "item-3"]]


@pytest.mark.parametrize(("server", "message"), [(Folders(most=4), "must be refused"),
                                                 (Folders(over=422), "got status 422")])
def test_one_too_many_taken_or_refused_otherwise_fails(server: Folders, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(server)


def test_fewer_ids_than_the_bound_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="IDS names 2 items") as skipped:
        run(Folders(), "f1, f2")
    assert skipped.value.kind is SkipKind.NOT_EXERCISED
