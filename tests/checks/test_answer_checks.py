"""The core checks of answers, against a tiny in-test server: ``response-shape`` (a documented
body, the example body sent, a second host), ``response-header`` (documented
headers on every probe) and ``route-served`` over several routes. Each fails on a deviating
answer and passes a conforming one, including one that chose differently where the contract
is silent (another documented success status, extra members, a header on an undocumented status).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from conformance.checks.context import CheckContext
from conformance.checks.headers import response_header
from conformance.checks.routes import route_served
from conformance.checks.shape import response_shape
from conformance.contract import Contract, Rule
from conformance.contract.model import Conflict
from conformance.errors import ContractFailure, RuleSkipped
from conformance.targets.base import Capabilities
from conformance.transport.session import Session

_UUID = {"type": "string", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"}
_HEADERS = {"X-Trace": {"required": True, "schema": _UUID}}
THING = {"type": "object", "required": ["id", "name"],
         "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/things": {
            "post": {
                "requestBody": {"content": {"application/json": {
                    "schema": {"type": "object"}, "x-unique": ["name"], "example": {"name": "ada", "size": 1}}}},
                "responses": {"200": {"description": "made", "headers": _HEADERS, "content": {
                                          "application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
                              "201": {"description": "made, no body shown"},
                              "400": {"$ref": "#/components/responses/Error"}}},
            "get": {"responses": {"2XX": {"description": "a page", "headers": _HEADERS, "content": {
                "application/json": {"schema": {"allOf": [{"type": "object", "required": ["count"],
                                                           "properties": {"count": {"type": "integer"}}}]}}}}}},
        },
        "/things/{id}": {"get": {"responses": {"200": {"description": "one", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Thing"}}}}}}},
    },
    "components": {"schemas": {"Thing": THING},
                   "responses": {"Error": {"description": "refused", "headers": _HEADERS}}},
}
TRACE = "0b7e6c1a-1f2e-4d3c-9b8a-7f6e5d4c3b2a"

Server = Callable[[httpx.Request], httpx.Response]


def server(**deviation: Any) -> Server:
    """A conforming server of the contract above; ``deviation`` names one way to break it."""

    def handle(request: httpx.Request) -> httpx.Response:
        headers = {} if deviation.get("no_trace") else {"x-trace": deviation.get("trace", TRACE)}
        path = request.url.path
        if deviation.get("unserved") and path.endswith(deviation["unserved"]):
            return httpx.Response(404, headers=headers)
        if request.method == "POST":
            try:
                sent = json.loads(request.content)
            except ValueError:
                return httpx.Response(400, headers=headers, json={"error": "not JSON"})
            if deviation.get("bodiless"):
                return httpx.Response(201, headers=headers)
            body = {"id": "t1", "name": deviation.get("name", sent.get("name")), **deviation.get("extra", {})}
            return httpx.Response(deviation.get("status", 200), headers=headers, json=body)
        if path.endswith("/things"):
            count = "3" if deviation.get("count_text") else 3
            return httpx.Response(deviation.get("status", 206 if deviation.get("partial") else 200), headers=headers,
                                  json={"count": count})
        return httpx.Response(200, headers=headers, json={"id": path.rsplit("/", 1)[-1], "name": "one"})

    return handle


ALIAS = Conflict("demo.conflict.alias", "s", None, ("served too", "not served"))  # type: ignore[arg-type]


def run(check: Callable[[CheckContext], None], serve: Server, params: dict[str, Any],
        operation: str | None = "GET /things", settings: dict[str, str] | None = None) -> CheckContext:
    contract = Contract("demo", "demo", OPENAPI, [], [], [ALIAS], {})
    rule = Rule(id="demo.things.rule", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, params=params)
    target = SimpleNamespace(name="sim", capabilities=Capabilities(), credential=(settings or {}).get)
    client = httpx.Client(base_url="http://demo.invalid", transport=httpx.MockTransport(serve))
    session = Session(client, base_url="http://demo.invalid", sleep=lambda s: None)
    ctx = CheckContext(contract, rule, target, session)  # type: ignore[arg-type]
    check(ctx)
    return ctx


# -- response-shape ----------------------------------------------------------------------------
def test_a_documented_answer_passes_under_any_documented_success_status() -> None:
    run(response_shape, server(), {})
    run(response_shape, server(partial=True), {})  # 206 is in the documented 2XX: a conforming choice


def test_an_answer_off_its_schema_or_status_fails() -> None:
    with pytest.raises(ContractFailure, match="count"):
        run(response_shape, server(count_text=True), {})
    with pytest.raises(ContractFailure, match="status 202"):
        run(response_shape, server(status=202), {"status": 200})


def test_the_example_body_is_sent_each_time_with_its_members() -> None:
    sent: list[Any] = []

    def recording(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return server(extra={"colour": "blue"})(request)  # extra members conform

    run(response_shape, recording, {"bodies": [{}, {"size": 2}]}, "POST /things")
    # x-unique members new on every request, the entry's members set on top of the example.
    assert sent == [{"name": "ada-things-rule-1", "size": 1}, {"name": "ada-things-rule-2", "size": 2}]
    with pytest.raises(ContractFailure, match="at name"):
        run(response_shape, server(name=5), {"bodies": [{}]}, "POST /things")


def test_a_documented_success_without_a_body_is_not_exercised_never_passed() -> None:
    with pytest.raises(RuleSkipped, match="documented without a body"):
        run(response_shape, server(bodiless=True), {"bodies": [{}]}, "POST /things")


def test_path_values_name_settings_and_a_second_host_must_answer_alike() -> None:
    run(response_shape, server(), {"path_values": {"id": "{THING_ID}"}}, "GET /things/{id}", {"THING_ID": "t9"})
    with pytest.raises(RuleSkipped, match="DEMO_THING_ID"):
        run(response_shape, server(), {"path_values": {"id": "{THING_ID}"}}, "GET /things/{id}")

    def two_hosts(request: httpx.Request) -> httpx.Response:
        return server(count_text=request.url.host == "alt.invalid")(request)

    run(response_shape, server(), {"same_on": "ALT"}, settings={"ALT": "http://alt.invalid"})
    with pytest.raises(ContractFailure, match="answers GET /things differently"):
        run(response_shape, two_hosts, {"same_on": "ALT"}, settings={"ALT": "http://alt.invalid"})


# -- response-header ---------------------------------------------------------------------------
PROBES = {"headers": ["X-Trace"], "probes": [{"operation": "GET /things"},
                                               {"operation": "POST /things", "example_body": True},
                                               {"operation": "POST /things", "content": "{", "content_type":
                                                "application/json"}]}


def test_a_documented_header_on_every_probe_passes() -> None:
    run(response_header, server(), PROBES)
    # POST documents no 404: the header it documents for its other answers holds the 404 too.
    run(response_header, server(unserved="/things"), {"headers": ["X-Trace"], "probes": [{"operation": "POST /things",
                                                                                      "example_body": True}]})


@pytest.mark.parametrize(("deviation", "message"), [({"no_trace": True}, "without X-Trace"),
                                                    ({"trace": "not-a-uuid"}, "X-Trace is 'not-a-uuid'")])
def test_a_header_missing_or_off_its_schema_fails(deviation: dict[str, Any], message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(response_header, server(**deviation), PROBES)


# -- route-served over several routes ----------------------------------------------------------
ROUTES = {"missing_statuses": [404, 405, 501], "operations": ["GET /things", "POST /things"],
          "placeholder_operations": ["GET /things/{id}"]}


def test_every_listed_route_must_be_served_and_a_placeholder_id_may_be_unknown() -> None:
    run(route_served, server(), ROUTES, operation=None)
    run(route_served, server(unserved="/conformance-placeholder"), ROUTES, operation=None)
    with pytest.raises(ContractFailure, match="POST /things is listed but answered 404"):
        run(route_served, server(unserved="/things"), {**ROUTES, "operations": ["POST /things"]}, operation=None)


def test_an_alias_prefix_is_observed_never_judged() -> None:
    params = {"missing_statuses": [404, 405, 501], "alias_prefix": "/v1", "observes": "demo.conflict.alias"}

    def versioned_too(request: httpx.Request) -> httpx.Response:
        return server()(request) if request.url.path in ("/things", "/v1/things") else httpx.Response(404)

    assert run(route_served, versioned_too, params).observations == {"demo.conflict.alias": "served too"}
    only_plain = server(unserved="/v1/things")
    assert run(route_served, only_plain, params).observations == {"demo.conflict.alias": "not served"}


def test_an_operation_served_at_either_reading_of_its_path_passes_and_the_reading_is_observed() -> None:
    params = {"missing_statuses": [404, 405], "observes": "demo.conflict.alias",
              "readings": {"operation": "GET /things", "paths": ["/things", "/shop/{shop}/things"]},
              "path_values": {"shop": "{SHOP_ID}"}}
    at = {"SHOP_ID": "s1"}
    only_first = server(unserved="/shop/s1/things")
    assert run(route_served, only_first, params, operation=None, settings=at).observations == {
        "demo.conflict.alias": "served too"}  # the first reading (the second answered no 2xx)
    assert run(route_served, server(), params, operation=None, settings=at).observations == {
        "demo.conflict.alias": "served too and not served"}  # both
    by_shop = server(unserved="/things")

    def shop_scoped(request: httpx.Request) -> httpx.Response:
        return server()(request) if request.url.path == "/shop/s1/things" else by_shop(request)

    assert run(route_served, shop_scoped, params, operation=None, settings=at).observations == {
        "demo.conflict.alias": "not served"}  # the second reading only
    with pytest.raises(ContractFailure, match="served at none of"):
        run(route_served, by_shop, params, operation=None, settings=at)
