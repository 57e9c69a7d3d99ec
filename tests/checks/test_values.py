"""The core check ``values-accepted`` against a tiny list server: it passes a server taking every
listed value of a repeatable query parameter, one at a time and all together, on each operation,
fails one refusing one listed value (also on the second operation only), taking one value at a
time only, or answering a 5xx. The derived fault ``value-refused`` makes the conforming server
fail; a parameter that lists nothing is a contract error."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.checks.values import values_accepted
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

_EXPAND = {"name": "expand", "in": "query", "schema": {"type": "array", "items": {"enum": ["owner", "tags", "stats"]}}}
_KIND = {"name": "kind", "in": "query", "schema": {"type": "string"}}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/things": {"get": {"parameters": [_EXPAND, _KIND], "responses": {"200": {"description": "things"}}}},
    "/things/{id}": {"get": {"parameters": [_EXPAND, {"name": "id", "in": "path", "required": True,
                                                      "schema": {"type": "string"}, "x-setting": "THING_ID"}],
                             "responses": {"200": {"description": "one"}}}},
}}
PARAMS = {"check": "values-accepted", "param": "expand", "operations": ["GET /things", "GET /things/{id}"]}


def things(refused: str = "", *, on: str = "", one_only: bool = False, status: int = 400) -> Any:
    def handle(request: Request) -> Response:
        values = [v for k, v in request.query if k == "expand"]
        if (refused in values and request.path.startswith(on or "/")) or (one_only and len(values) > 1):
            return Response.json_response(status, {"message": "no"})
        return Response.json_response(200, {"expanded": values})

    return handle


def run(handle: Any, params: dict[str, Any] = PARAMS) -> None:
    rule = Rule(id="demo.things.expand", kind="enum", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /things", params=params)
    values_accepted(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, handle,
                            {"THING_ID": "t-1"}))


def test_a_server_taking_every_listed_value_passes() -> None:
    run(things())


@pytest.mark.parametrize(("handle", "message"), [
    (things("tags"), "GET /things with expand tags: got status 400"),
    (things("stats", on="/things/"), r"GET /things/\{id\} with expand stats: got status 400"),
    (things(one_only=True), "with expand owner, tags, stats: got status 400"),
    (things("owner", status=500), "got status 500"),
])
def test_a_server_refusing_a_listed_value_fails(handle: Any, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(handle)


def test_a_parameter_listing_nothing_is_a_contract_error() -> None:
    with pytest.raises(ContractFileError, match="lists no values"):
        run(things(), {**PARAMS, "param": "kind"})


def test_the_derived_value_refused_fault_makes_a_conforming_server_fail() -> None:
    rule = Rule(id="demo.things.expand", kind="enum", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /things", params=PARAMS)
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("value-refused:things.expand", rule.id)
    with pytest.raises(ContractFailure, match="expand stats: got status 400"):
        run(fault.apply(SimpleNamespace(handle=things())).handle)  # type: ignore[arg-type]
