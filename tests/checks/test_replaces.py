"""The core check ``put-replaces`` against a tiny resource server: it passes a server whose PUT
puts an omitted optional field back to its default (observed as that reading), and one refusing a
PUT that omits a field (observed as the other reading); it fails one keeping the field's earlier
value, one refusing every PUT, and one not accepting the PUT with every field. It is not exercised
where the default is the probe value. The derived fault ``omitted-field-kept`` makes the
conforming server fail."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.context import CheckContext
from conformance.checks.replaces import put_replaces
from conformance.contract import Conflict, Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

_LINK = {"type": "object", "properties": {"name": {"type": "string"}, "labels": {"type": "array"}}}
_ID = {"name": "linkId", "in": "path", "required": True, "schema": {"type": "string"}}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/links": {"post": {"requestBody": {"content": {"application/json": {"schema": _LINK,
                                                                         "example": {"name": "a", "labels": ["x"]}}}},
                        "responses": {"200": {"description": "made"}}}},
    "/links/{linkId}": {
        "get": {"parameters": [_ID], "responses": {"200": {"description": "one"}}},
        "put": {"parameters": [_ID], "requestBody": {"content": {"application/json": {"schema": _LINK}}},
                "responses": {"200": {"description": "replaced"}}}},
}}
PARAMS = {"check": "put-replaces", "observes": "demo.conflict.put-omitted", "field": "labels", "value": ["probe"],
          "create": "POST /links", "read": "GET /links/{linkId}", "id": {"member": "id", "param": "linkId"}}
CONFLICT = Conflict("demo.conflict.put-omitted", "s", None, ("refused", "default"))  # type: ignore[arg-type]


class Links:
    """Links with an optional ``labels`` (default []); ``choice``/``break_`` another PUT."""

    def __init__(self, *, choice: str = "", break_: str = "", default: list[str] | None = None) -> None:
        self.choice, self.break_, self.default = choice, break_, default or []
        self.links: dict[str, dict[str, Any]] = {}

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body) if request.body else {}
        if request.method == "POST":
            link = {"id": f"l{len(self.links) + 1}", "name": body.get("name", ""),
                    "labels": body.get("labels", self.default)}
            self.links[link["id"]] = link
            return Response.json_response(200, link)
        link = self.links[request.path.rsplit("/", 1)[-1]]
        if request.method == "GET":
            return Response.json_response(200, link)
        if self.break_ == "refuses-every-put" or (self.choice == "all-fields" and "labels" not in body):
            return Response.json_response(400, {"message": "all fields must be sent"})
        if self.break_ == "no-put":
            return Response.json_response(405, {"message": "no"})
        base = dict(link) if self.break_ == "merges" else {"labels": self.default}
        link.update({**base, **body, "id": link["id"]})
        return Response.json_response(200, link)


def run(server: Any) -> CheckContext:
    rule = Rule(id="demo.links.put", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="PUT /links/{linkId}", params=PARAMS)
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [CONFLICT], {}), rule, server.handle)
    put_replaces(ctx)
    return ctx


@pytest.mark.parametrize(("choice", "reading"), [("", "default"), ("all-fields", "refused")])
def test_a_put_that_replaces_passes_and_shows_its_reading(choice: str, reading: str) -> None:
    assert run(Links(choice=choice)).observations == {"demo.conflict.put-omitted": reading}


@pytest.mark.parametrize(("break_", "message"), [("merges", r"labels is \['probe'\]"),
                                                 ("refuses-every-put", "every field, labels included: got status 400"),
                                                 ("no-put", "got status 405")])
def test_a_put_that_does_not_replace_fails(break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Links(break_=break_))


def test_a_default_equal_to_the_probe_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="default labels is the probe value"):
        run(Links(default=["probe"]))


def test_the_derived_omitted_field_kept_fault_makes_a_conforming_server_fail() -> None:
    rule = Rule(id="demo.links.put", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="PUT /links/{linkId}", params=PARAMS)
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("omitted-field-kept:links.put", rule.id)
    with pytest.raises(ContractFailure, match=r"labels is \['probe'\]"):
        run(fault.apply(Links()))  # type: ignore[arg-type]
