"""Checks that read a target's own ids (issue 35, items 3, 8 and 9), against a tiny server:

* ``route-served`` with ``held``: where a configured setting gives an id the target holds, a 404
  is a missing route (a placeholder operation, a route whose 404 may otherwise mean "none", an
  example body naming the id); unconfigured, a placeholder's 404 is still no verdict and a
  defaulted id's 404 a skip; ``held_when``: a setting saying the target holds what a route
  without ids shows this caller; ``created``: the id a documented create hands out; and one
  derived fault per held or created route;
* ``param-selects``: the answer for one record must not name another, and must differ from the
  other's (equal answers naming neither are skipped, never passed);
* ``response-shape`` with ``schema`` (a component the answer is held to) and ``bodiless_with``
  (a bodiless answer pointing at what it returns, e.g. a 202 with Location).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conformance.checks.routes import route_served
from conformance.checks.selects import param_selects
from conformance.checks.shape import response_shape
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.generic import route_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}, "x-setting": "THING_ID"}
_ONE = {"200": {"description": "one", "content": {"application/json": {"schema": {}}}}}
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/things/{id}": {"get": {"parameters": [_ID], "responses": _ONE},
                         "patch": {"parameters": [_ID], "responses": _ONE},
                         "delete": {"parameters": [_ID], "responses": _ONE}},
        "/things": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
                             "responses": _ONE}},
        "/summary": {"get": {"parameters": [{"name": "id", "in": "query", "schema": {"type": "string"}}],
                             "responses": _ONE}},
        "/jobs": {"post": {"responses": {"2XX": {"description": "a job", "content": {"application/json": {
            "schema": {"not": {"enum": [{}, [], "", None]}}}}}}}},
        "/replies": {"post": {"requestBody": {"content": {"application/json": {
            "schema": {"type": "object"}, "example": {"reply_to": "{REPLY_ID}"}}}}, "responses": _ONE}},
        "/stream": {"post": {"responses": _ONE}},
    },
    "components": {"schemas": {"Thing": {"type": "object", "required": ["id"],
                                         "properties": {"id": {"type": "string"}}}}},
}
Handle = Callable[[Request], Response]


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(status, {"content-type": "application/json", **(headers or {})}, json.dumps(body).encode())


def run(check: Callable[..., None], handle: Handle, params: dict[str, Any], operation: str | None,
        settings: dict[str, str] | None = None) -> None:
    rule = Rule(id="demo.things.rule", kind="endpoint", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, params=params)
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {"defaults": {"THING_ID": "t1"}})
    check(context(contract, rule, handle, settings))


def unserved(request: Request) -> Response:
    """Every thing route missing: 404 whatever the id."""
    return _json(404, {"message": "no route"}) if request.path.startswith("/things/") else _json(200, {})


# -- route-served: held ids -----------------------------------------------------------------------
PLACEHOLDER = {"check": "route-served", "missing_statuses": [404, 405, 501],
               "placeholder_operations": ["PATCH /things/{id}"], "held": ["THING_ID"]}
NONE = {"check": "route-served", "missing_statuses": [404, 405, 501], "none_statuses": [404], "held": ["THING_ID"]}


def test_a_placeholder_route_is_called_with_a_held_id_and_its_404_is_a_missing_route() -> None:
    sent: list[str] = []

    def served(request: Request) -> Response:
        sent.append(request.path)
        return _json(200, {"id": "t9"})

    run(route_served, served, PLACEHOLDER, None, {"THING_ID": "t9"})
    assert sent == ["/things/t9"]
    with pytest.raises(ContractFailure, match="PATCH /things/{id} is listed but answered 404"):
        run(route_served, unserved, PLACEHOLDER, None, {"THING_ID": "t9"})
    run(route_served, unserved, PLACEHOLDER, None)  # no id configured: a placeholder's 404 is no verdict


def test_a_none_status_is_no_excuse_where_the_setting_says_the_target_holds_the_id() -> None:
    with pytest.raises(ContractFailure, match="answered 404"):
        run(route_served, unserved, NONE, "GET /things/{id}", {"THING_ID": "t9"})
    with pytest.raises(RuleSkipped, match="set CONFORMANCE_DEMO_THING_ID"):  # a default id: the target may lack it
        run(route_served, unserved, NONE, "GET /things/{id}")
    with pytest.raises(RuleSkipped, match="cannot tell a missing route from none"):  # not held: no verdict
        run(route_served, unserved, {**NONE, "held": ["OTHER_ID"]}, "GET /things/{id}", {"THING_ID": "t9"})


def nowhere(request: Request) -> Response:
    return _json(404, {"message": "no route"})


def replies(known: str | None) -> Handle:
    """POST /replies served: 404 for an id it does not hold (a conforming choice), 400 without one."""
    def handle(request: Request) -> Response:
        if request.path != "/replies":
            return _json(404, {"message": "no route"})
        sent = json.loads(request.body or b"null")
        if not isinstance(sent, dict) or "reply_to" not in sent:
            return _json(400, {"message": "reply_to is required"})
        return _json(200, {}) if sent["reply_to"] == known else _json(404, {"message": "no such email"})

    return handle


HELD_BODY = {"check": "route-served", "missing_statuses": [404, 405, 501],
             "placeholder_operations": ["POST /replies"], "held": ["REPLY_ID"]}


def test_a_held_id_in_the_example_body_is_sent_and_its_404_is_a_missing_route() -> None:
    run(route_served, replies("r1"), HELD_BODY, None, {"REPLY_ID": "r1"})
    run(route_served, replies(None), HELD_BODY, None)  # no id configured: the placeholder's 400 passes
    run(route_served, nowhere, HELD_BODY, None)  # ... and its 404 is no verdict (an unknown email, maybe)
    with pytest.raises(ContractFailure, match="POST /replies is listed but answered 404"):
        run(route_served, nowhere, HELD_BODY, None, {"REPLY_ID": "r1"})
    with pytest.raises(ContractFailure, match="answered 404"):  # the route served, but not for the held id
        run(route_served, replies("r2"), HELD_BODY, None, {"REPLY_ID": "r1"})


HELD_WHEN = {"check": "route-served", "missing_statuses": [404, 405, 501], "none_statuses": [404],
             "held_when": "PACKAGE"}


def test_held_when_makes_a_404_of_a_route_without_ids_a_missing_route() -> None:
    with pytest.raises(ContractFailure, match="POST /stream is listed but answered 404"):
        run(route_served, nowhere, HELD_WHEN, "POST /stream", {"PACKAGE": "1"})
    with pytest.raises(RuleSkipped, match="set CONFORMANCE_DEMO_PACKAGE where the target holds data"):
        run(route_served, nowhere, HELD_WHEN, "POST /stream")
    # A caller without the package refused (403), or a body-less call refused (400): the route is there.
    run(route_served, lambda r: _json(403, {"message": "no package"}), HELD_WHEN, "POST /stream")
    run(route_served, lambda r: _json(400, {"message": "body"}), HELD_WHEN, "POST /stream", {"PACKAGE": "1"})


def test_each_held_placeholder_route_gets_its_own_derived_fault() -> None:
    placeholders = ["PATCH /things/{id}", "POST /replies", "POST /stream"]
    rule = Rule(id="demo.things.routes", kind="endpoint", statement="s", source=None,  # type: ignore[arg-type]
                operation=None, params={**PLACEHOLDER, "operations": ["GET /things/{id}"],
                                        "placeholder_operations": placeholders, "held": ["THING_ID", "REPLY_ID"]})
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {"defaults": {"THING_ID": "t1"}})
    names = [f.name for f in route_faults(contract)]
    assert [n for n in names if n.startswith("held-route-missing")] == [
        "held-route-missing:things.routes:patch-things-id", "held-route-missing:things.routes"]
    when = Rule(id="demo.things.stream", kind="endpoint", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /stream", params=HELD_WHEN)
    names = [f.name for f in route_faults(Contract("demo", "demo", OPENAPI, [when], [], [], {}))]
    assert "route-missing:things.stream" in names
    created = Rule(id="demo.things.created", kind="endpoint", statement="s", source=None,  # type: ignore[arg-type]
                   operation=None, params=CREATED)
    names = [f.name for f in route_faults(Contract("demo", "demo", OPENAPI, [created], [], [], {}))]
    assert names == ["created-route-missing:things.created:delete-things-id"]


CREATED = {"check": "route-served", "missing_statuses": [404, 405, 501],
           "created": [{"call": "DELETE /things/{id}", "create": {"call": "POST /things", "name": "create",
                                                                 "body": {"id": "t5"}},
                        "path": {"id": "{$create.sent.id}"}}]}


def things(create: int, delete_known: bool = True) -> Handle:
    """POST /things answers ``create``; DELETE /things/{id} deletes what was created (404 for others)."""
    made: set[str] = set()

    def handle(request: Request) -> Response:
        if request.method == "POST":
            if 200 <= create < 300:
                made.add(json.loads(request.body or b"{}")["id"])
            return _json(create, {})
        known = request.path.rsplit("/", 1)[-1] in made
        return _json(200, {}) if known and delete_known else _json(404, {"message": "no such thing"})

    return handle


def test_a_created_id_is_deleted_and_its_404_is_a_missing_route() -> None:
    run(route_served, things(200), CREATED, None)
    run(route_served, things(201), CREATED, None)  # another success status: the id is there all the same
    with pytest.raises(ContractFailure, match="DELETE /things/{id} is listed but answered 404"):
        run(route_served, things(200, delete_known=False), CREATED, None)


def test_a_create_not_accepted_leaves_a_placeholder_and_a_crash_fails() -> None:
    run(route_served, things(403), CREATED, None)  # no id handed out: the placeholder's 404 is no verdict
    with pytest.raises(ContractFailure, match="POST /things answered 500"):
        run(route_served, things(500), CREATED, None)


# -- param-selects ---------------------------------------------------------------------------------
SELECTS = {"check": "param-selects", "param": "id", "values": ["{THING_ID}", "{OTHER_ID}"]}
TWO = {"THING_ID": "t1", "OTHER_ID": "t2"}
FIGURES = {"t1": 3, "t2": 5}


def summary(kind: str) -> Handle:
    def handle(request: Request) -> Response:
        asked = dict(request.query).get("id", "")
        if kind == "ignores":
            return _json(200, [{"thing": t, "sent": n} for t, n in FIGURES.items()])
        if kind == "counts-only":
            return _json(200, {"sent": FIGURES.get(asked, 0)})
        return _json(200, {"sent": 0})  # the same figures for every record

    return handle


def test_an_answer_naming_another_record_fails_and_differing_answers_pass() -> None:
    run(param_selects, summary("counts-only"), SELECTS, "GET /summary", TWO)
    with pytest.raises(ContractFailure, match="id=t1 names t2, another record"):
        run(param_selects, summary("ignores"), SELECTS, "GET /summary", TWO)


def test_equal_answers_naming_neither_record_are_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="alike and names neither"):
        run(param_selects, summary("equal"), SELECTS, "GET /summary", TWO)
    with pytest.raises(RuleSkipped, match="the same"):
        run(param_selects, summary("counts-only"), SELECTS, "GET /summary", {"THING_ID": "t1", "OTHER_ID": "t1"})


# -- response-shape: another component, a bodiless answer pointing at its result ----------------------
def test_schema_holds_the_answer_to_the_named_component() -> None:
    params = {"check": "response-shape", "schema": "Thing", "path_values": {"id": "{THING_ID}"}}
    run(response_shape, lambda r: _json(200, {"id": "t9"}), params, "GET /things/{id}", {"THING_ID": "t9"})
    with pytest.raises(ContractFailure, match="'id' is a required property"):
        run(response_shape, lambda r: _json(200, {"data": {"id": "t9"}}), params, "GET /things/{id}",
            {"THING_ID": "t9"})


def test_a_bodiless_answer_passes_only_with_a_header_pointing_at_its_result() -> None:
    params = {"check": "response-shape", "bodies": [{}], "bodiless_with": ["Location"]}
    run(response_shape, lambda r: Response(202, {"location": "/jobs/1"}, b""), params, "POST /jobs")
    run(response_shape, lambda r: _json(200, {"id": 1}), params, "POST /jobs")
    with pytest.raises(ContractFailure, match="not JSON"):
        run(response_shape, lambda r: Response(202, {}, b""), params, "POST /jobs")
