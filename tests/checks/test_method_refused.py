"""The core check ``method-refused`` against a tiny in-test server: a server answering the
documented 405 to a method a path does not serve passes on every path (also one that serves a
path's documented method with a 400 for a payload, or a 404 for an id it does not hold); a server
answering 404 (where the documented method shows the path served), 200 or 500 to a wrong method
on any path fails, the last path included; no path judged is not exercised. The derived fault
``method-as-404`` (every path but the first) and ``method-as-501`` (the last path) make the
conforming server fail."""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.checks.methods import method_refused, wrong_method
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.faults.methods import method_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}, "x-setting": "THING_ID"}
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "security": [{"key": []}],
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "x-key", "x-credential": "{API_KEY}"}}},
    "paths": {
        "/things": {"get": {"responses": {"200": {"description": "all"}}},
                    "post": {"requestBody": {"content": {"application/json": {
                        "schema": {"type": "object"}, "example": {"name": "fine"}}}},
                             "responses": {"201": {"description": "made"}}}},
        "/things/{id}": {"get": {"parameters": [_ID], "responses": {"200": {"description": "one"}}}},
        "/search": {"post": {"requestBody": {"content": {"application/json": {
            "schema": {"type": "object"}, "example": {"q": "x"}}}}, "responses": {"200": {"description": "found"}}}},
    },
}
SETTINGS = {"API_KEY": "k-1", "THING_ID": "t-1"}
ROUTES = {"/things": {"GET", "POST"}, "/things/t-1": {"GET"}, "/search": {"POST"}}

Handler = Callable[[Request], Response]


def things(*, wrong: int = 405, on: str = "", known_id: bool = True, picky_search: bool = False) -> Handler:
    """Serves the documented pairs; a wrong method is answered ``wrong`` on the path ``on`` (every
    path when empty), 405 elsewhere. ``known_id``: the configured thing exists (else 404);
    ``picky_search``: the search refuses the example body with 400."""

    def handle(request: Request) -> Response:
        if request.header("x-key") != "k-1":
            return Response.json_response(401, {"error": "key"})
        path = request.path
        if path.startswith("/things/") and path != "/things/t-1":
            return Response.json_response(404, {"error": "no such endpoint"})
        methods = ROUTES.get(path)
        if methods is None:
            return Response.json_response(404, {"error": "no such endpoint"})
        if request.method not in methods:
            status = wrong if (not on or on == path) else 405
            return Response.json_response(status, {"error": "method"} if status >= 400 else {"id": "t-1"})
        if path == "/things/t-1" and not known_id:
            return Response.json_response(404, {"error": "no such thing"})
        if path == "/search" and picky_search:
            return Response.json_response(400, {"error": "payload"})
        if request.method == "POST":
            json.loads(request.body)
            return Response.json_response(201 if path == "/things" else 200, {"id": "t-2"})
        return Response.json_response(200, {"id": "t-1"})

    return handle


def rule(params: dict[str, Any] | None = None, violation: dict[str, Any] | None = None) -> Rule:
    return Rule(id="demo.errors.wrong-method", kind="error", statement="s", source=None,  # type: ignore[arg-type]
                operation=None, violation={"status": 405} if violation is None else violation,
                params={"check": "method-refused", "most": 5, **(params or {})})


def run(handler: Handler, params: dict[str, Any] | None = None, violation: dict[str, Any] | None = None) -> None:
    made = rule(params, violation)
    contract = Contract("demo", "demo", OPENAPI, [made], [], [], {})
    method_refused(context(contract, made, handler, SETTINGS))


def test_the_wrong_method_is_the_first_the_path_does_not_document() -> None:
    assert wrong_method({"get": {}, "post": {}}) == "PATCH"
    assert wrong_method({"post": {}}) == "GET"
    assert wrong_method({"get": {}}, ["DELETE", "PUT"]) == "DELETE"
    assert wrong_method({m: {} for m in ("get", "post", "put", "patch", "delete")}) is None


def test_a_server_answering_405_on_every_path_passes() -> None:
    run(things())


def test_a_served_path_whose_example_is_refused_still_counts_as_served() -> None:
    # The search answers its documented method 400 (a payload it wants otherwise): the path is
    # served, so a 404 to a wrong method there fails, and a 405 passes.
    run(things(picky_search=True))
    with pytest.raises(ContractFailure, match="404 is for an endpoint that does not exist"):
        run(things(wrong=404, on="/search", picky_search=True))


@pytest.mark.parametrize("path", ["/things", "/things/t-1", "/search"])
@pytest.mark.parametrize("status", [404, 400, 200, 500])
def test_another_answer_on_any_path_fails(path: str, status: int) -> None:
    with pytest.raises(ContractFailure):
        run(things(wrong=status, on=path))


def test_a_404_where_the_control_is_404_too_leaves_that_path_unjudged() -> None:
    # The configured id is unknown: a 404 to the wrong method may be "no such thing"; the other
    # paths are judged and pass.
    run(things(wrong=404, on="/things/t-1", known_id=False))


def test_no_path_judged_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="no path judged"):
        run(things(wrong=404, on="/things/t-1", known_id=False), {"methods": ["POST"]})


def test_more_paths_than_most_and_no_documented_status_are_contract_errors() -> None:
    with pytest.raises(ContractFileError, match="more than most"):
        run(things(), {"most": 2})
    with pytest.raises(ContractFileError, match="violation.status"):
        run(things(), violation={})


@pytest.mark.parametrize(("family", "message"), [("method-as-404", r"PATCH /things/\{id\} .* answered 404"),
                                               ("method-as-501", "GET /search .* answered 501")])
def test_the_derived_faults_make_a_conforming_server_fail(family: str, message: str) -> None:
    made = rule()
    faults = {f.name: f for f in method_faults(Contract("demo", "demo", OPENAPI, [made], [], [], {}))}
    assert sorted(faults) == ["method-as-404:errors.wrong-method", "method-as-501:errors.wrong-method"]
    fault = faults[f"{family}:errors.wrong-method"]
    assert fault.breaks == made.id
    faulty = fault.apply(SimpleNamespace(handle=things()))  # type: ignore[arg-type]
    with pytest.raises(ContractFailure, match=message):
        run(faulty.handle)
