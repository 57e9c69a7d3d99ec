"""Derived fault families of issue 30's last round, against a small in-test contract and simulator:
credential-unchecked (faults/credentials.py), refusal-as-500 (faults/crashes.py), the answer
walker and the member families built on it (faults/broken.py, faults/answers.py) and the
paging families past-end-served, next-dropped, cursor-loops, more-denied and default-not-applied
(faults/paging.py), and read-only-written (faults/effects.py)."""

from __future__ import annotations

import json
from typing import Any

from conformance.contract import Contract, Rule
from conformance.contract.model import Source
from conformance.faults.answers import answer_faults
from conformance.faults.base import Fault
from conformance.faults.broken import ANY, ENUM, TYPE, broken, reaches
from conformance.faults.crashes import refusal_crash_faults
from conformance.faults.credentials import credential_unchecked_faults
from conformance.faults.effects import effect_faults
from conformance.faults.paging import paging_faults
from conformance.transport.model import Request, Response

SOURCE = Source("volume-0.md", "Endpoints", "A", "", "a")
_RECORD = {"type": "object", "required": ["id", "kind"], "properties": {
    "id": {"type": "string", "format": "uuid"},
    "kind": {"type": "string", "enum": ["a", "b"]},
    "hash": {"type": "string", "pattern": "^[0-9a-f]+$"},
    "tags": {"type": "array", "items": {"type": "string"}}}}
_PAGE = {"type": "object", "properties": {"data": {"type": "array", "items": {"$ref": "#/components/schemas/Record"}},
                                          "pages": {"type": "integer"}}}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "security": [{"key": []}],
    "paths": {
        "/things": {"get": {"responses": _json(_PAGE)}, "post": {"responses": _json(_RECORD)}},
        "/things/{id}": {"get": {"responses": _json({"$ref": "#/components/schemas/Record"})}},
        "/ports": {"get": {"responses": _json({"type": "array", "items": {"type": "number"}})}},
        "/shop": {"get": {"security": [{"token": []}], "responses": _json(_RECORD)}},
        "/connect": {"get": {"security": [], "responses": {"302": {"description": "redirect"}}}},
        "/cursor": {"get": {"security": [], "responses": _json({"type": "object"})}},
        "/numbered": {"get": {"security": [], "responses": _json({"type": "object"}), "parameters": [
            {"name": "page", "in": "query", "schema": {"type": "integer", "default": 1}}]}},
    },
    "components": {
        "schemas": {"Record": _RECORD},
        "securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-Key", "x-credential": "{API_KEY}"},
            "token": {"type": "oauth2", "x-credential": "Bearer {ACCESS_TOKEN}", "x-tokens": {"ACCESS_TOKEN": "R"}},
        },
    },
}


def _rule(name: str, kind: str = "schema", operation: str | None = "GET /things", status: int | None = None,
          **params: Any) -> Rule:
    return Rule(f"demo.things.{name}", kind, name, SOURCE, operation=operation, params=params,
                violation={"status": status} if status else None)


RULES = [
    _rule("key-required", "auth", **{"as": {"none": True}}),
    _rule("bearer-refused", "auth", **{"as": {"none": True, "also": {"Authorization": "Bearer {API_KEY}"}}}),
    _rule("token-required", "auth", operation="GET /shop", **{"as": {"omit": ["token"]}}),
    _rule("update-key", "auth", operation=None, check="setting-path", method="PATCH", **{"as": {"none": True}}),
    _rule("other-key-reads", "auth", check="response-shape", **{"as": {"swap": {"API_KEY": "OTHER_KEY"}}}),
    _rule("bad-body", "type", operation="POST /things", status=400, check="invalid-bodies"),
    _rule("wrong-method", "error", check="refused-edit", refused={"method": "DELETE"}),
    _rule("method-405", "error", status=405, check="refused-edit", refused={"method": "DELETE"}),
    _rule("generated", check="schemathesis", operation=None),
    _rule("connect", "error", operation="GET /connect", check="authorization-refused", where="query.scope"),
    _rule("record", operation="GET /things/{id}", check="response-shape"),
    _rule("ports", operation="GET /ports", check="response-shape"),
    _rule("members", operation="GET /things/{id}", check="response-members", members=["kind", "id"]),
    _rule("past-end", "paging", check="page-past-end", page_param="page", total_pages_field="pages",
          items_field="data"),
    _rule("cursor-walk", "paging", operation="GET /cursor", check="paging-walk", style="cursor", cursor_param="after",
          next_field="next", more_field="hasMore"),
    _rule("numbered-walk", "paging", operation="GET /numbered", check="paging-walk", style="page", page_param="page",
          more_field="more"),
    _rule("read-only", "conflict", operation="PUT /things/{id}", check="read-only-ignored",
          write={"call": "PUT /things/{id}"}, read={"call": "GET /things/{id}"}, probes={"kind": ["a", "b"]}),
    Rule("demo.things.page-default", "paging", "page", SOURCE, operation="GET /numbered", where="query.page",
         params={"check": "param-default", "items_field": "data"}),
]
CONTRACT = Contract("demo", "demo", OPENAPI, RULES, [], [], {})
RECORD = {"id": "0b9f5a9e-2f55-4b8e-9a57-6c1d3f1e2a10", "kind": "a", "hash": "beef", "tags": ["x"]}


class Things:
    """Answers 200 to the seeded key, 401 otherwise; a few routes answer what the tests need."""

    credentials: dict[str, str] = {"API_KEY": "seeded-key"}

    def __init__(self) -> None:
        self.seen: list[Request] = []

    def handle(self, request: Request) -> Response:
        self.seen.append(request)
        if request.path == "/cursor":  # two pages: the first leads to the second by cursor c2
            if dict(request.query).get("after") == "c2":
                return Response.json_response(200, {"data": [2], "hasMore": False})
            return Response.json_response(200, {"data": [1], "hasMore": True, "next": "c2"})
        if request.path == "/numbered":
            page = int(dict(request.query).get("page", "1"))
            return Response.json_response(200, {"data": [page], "more": page < 2})
        if request.path == "/connect":
            scope = dict(request.query).get("scope")
            return Response(302, {"location": "https://client.example/cb?" + ("code=1" if scope else "error=x")})
        if request.headers.get("x-key") != "seeded-key":
            return Response.json_response(401, {"message": "no key"})
        if request.path == "/ports":
            return Response.json_response(200, [80, 443])
        if request.method == "PUT":  # read-only kind refused, anything else taken
            return Response.json_response(400 if b"kind" in request.body else 200, {})
        if request.method == "POST":
            return Response.json_response(400, {"message": "bad body"})
        if request.path == "/things" and request.method == "GET":
            page = int(dict(request.query).get("page", "1"))
            if page > 2:
                return Response.json_response(400, {"message": "past the end"})
            return Response.json_response(200, {"data": [RECORD], "pages": 2})
        if request.path.startswith("/things/") and request.method == "GET":
            return Response.json_response(200, RECORD)
        return Response.json_response(405, {"message": "method"})


def _faults() -> dict[str, Fault]:
    return {f.name: f for f in [*credential_unchecked_faults(CONTRACT), *refusal_crash_faults(CONTRACT),
                                *answer_faults(CONTRACT), *paging_faults(CONTRACT), *effect_faults(CONTRACT)]}


def _send(fault: str, method: str, path: str, sim: Things | None = None, **options: Any) -> Response:
    wrapped = _faults()[fault].apply(sim or Things())  # type: ignore[arg-type]
    return wrapped.handle(Request.build(method, path, **options))  # type: ignore[attr-defined]


def test_credential_unchecked_serves_a_request_without_the_key_as_the_seeded_one() -> None:
    sim = Things()
    assert _send("credential-unchecked:things.key-required", "GET", "/things", sim).status == 200
    assert sim.seen[-1].headers["x-key"] == "seeded-key"
    # Another operation is left as sent: the fault is the rule's.
    assert _send("credential-unchecked:things.key-required", "GET", "/ports").status == 401


def test_credential_unchecked_drops_the_credential_presented_another_way() -> None:
    sim = Things()
    answer = _send("credential-unchecked:things.bearer-refused", "GET", "/things", sim,
                   headers={"Authorization": "Bearer seeded-key"})
    assert answer.status == 200 and "authorization" not in {k.lower() for k in sim.seen[-1].headers}


def test_credential_unchecked_leaves_an_obtained_token_alone_and_reaches_a_setting_path_by_method() -> None:
    sim = Things()
    _send("credential-unchecked:things.token-required", "GET", "/shop", sim)
    assert "authorization" not in sim.seen[-1].headers  # no seeded value to put in place
    assert _send("credential-unchecked:things.update-key", "PATCH", "/anywhere/1", sim).status == 405
    assert sim.seen[-1].headers["x-key"] == "seeded-key"


def test_credential_families_skip_a_rule_whose_check_expects_acceptance() -> None:
    names = set(_faults())
    assert "credential-unchecked:things.other-key-reads" not in names
    assert "refusal-as-500:things.other-key-reads" not in names


def test_refusal_as_500_answers_the_documented_status_with_500_and_no_other() -> None:
    assert _send("refusal-as-500:things.bad-body", "POST", "/things", headers={"X-Key": "seeded-key"}).status == 500
    assert _send("refusal-as-500:things.bad-body", "POST", "/things").status == 401  # another refusal stands


def test_refusal_as_500_for_a_refused_edit_reaches_the_edited_method() -> None:
    answer = _send("refusal-as-500:things.wrong-method", "DELETE", "/things", headers={"X-Key": "seeded-key"})
    assert answer.status == 500
    assert _send("refusal-as-500:things.wrong-method", "GET", "/things", headers={"X-Key": "seeded-key"}).status == 200


def test_refusal_as_500_for_generated_requests_crashes_every_refusal() -> None:
    assert _send("refusal-as-500:things.generated", "GET", "/ports").status == 500
    assert _send("refusal-as-500:things.generated", "GET", "/ports", headers={"X-Key": "seeded-key"}).status == 200


def test_refusal_as_retried_answers_the_status_the_document_says_to_retry_where_it_says_one() -> None:
    assert not [n for n in _faults() if n.startswith("refusal-as-retried:")]  # no x-retry-statuses: none
    retrying = Contract("demo", "demo", {**OPENAPI, "x-retry-statuses": {"202": "later", "503": "overloaded; retry"}},
                        RULES, [], [], {})
    faults = {f.name: f for f in refusal_crash_faults(retrying)}
    # Beside each refusal-as-500 but the schemathesis rule's (a listed 5xx is a documented answer there).
    assert {n.split(":", 1)[1] for n in faults if n.startswith("refusal-as-retried:")} == {
        n.split(":", 1)[1] for n in faults if n.startswith("refusal-as-500:")} - {"things.generated"}
    wrapped = faults["refusal-as-retried:things.bad-body"].apply(Things())  # type: ignore[arg-type]
    assert wrapped.handle(Request.build("POST", "/things", headers={"X-Key": "seeded-key"})).status == 503  # type: ignore[attr-defined]
    assert wrapped.handle(Request.build("POST", "/things")).status == 401  # type: ignore[attr-defined]


def test_refusal_as_500_for_an_authorization_request_keeps_the_code_grant() -> None:
    assert _send("refusal-as-500:things.connect", "GET", "/connect").status == 500
    assert _send("refusal-as-500:things.connect", "GET", "/connect", params={"scope": "r"}).status == 302


def test_the_walker_breaks_a_listed_member_inside_an_array_of_records() -> None:
    page = {"data": [RECORD], "pages": 1}
    assert broken(CONTRACT, _PAGE, page, ENUM) == {"data": [{**RECORD, "kind": "conformance-not-listed"}], "pages": 1}
    assert page["data"][0]["kind"] == "a"  # the answer itself is left as it was


def test_the_walker_breaks_formats_patterns_and_types_and_says_when_it_cannot() -> None:
    assert broken(CONTRACT, _RECORD, RECORD, ANY)["id"] == "not-a-uuid"  # type: ignore[index]
    assert broken(CONTRACT, _RECORD["properties"]["hash"], "beef", ANY) == "conformance not matching!"
    assert broken(CONTRACT, {"type": "array", "items": {"type": "number"}}, [80], TYPE) == ["1.5"]
    assert broken(CONTRACT, {"properties": {"x": {}}}, {"x": 1}, ANY) is None
    # Nothing in it to break: the container itself, by its type.
    assert broken(CONTRACT, {"type": "array", "items": {}}, [1], TYPE) == {"not": "an array"}
    assert reaches(CONTRACT, _PAGE, ENUM) and not reaches(CONTRACT, {"type": "array", "items": {}}, ENUM)


def test_member_families_reach_nested_and_scalar_members() -> None:
    key = {"headers": {"X-Key": "seeded-key"}}
    record = json.loads(_send("member-off-list:things.record", "GET", "/things/1", **key).body)
    assert record["kind"] == "conformance-not-listed"
    assert json.loads(_send("member-retyped:things.ports", "GET", "/ports", **key).body) == ["1.5", 443]
    members = json.loads(_send("member-invalid:things.members", "GET", "/things/1", **key).body)
    assert members == {**RECORD, "kind": "conformance-not-listed"}  # the first named member that can break


def test_past_end_served_answers_the_page_after_the_last_as_the_last_with_no_items() -> None:
    key = {"headers": {"X-Key": "seeded-key"}}
    assert _send("past-end-served:things.past-end", "GET", "/things", params={"page": "3"}, **key).status == 400
    wrapped: Any = _faults()["past-end-served:things.past-end"].apply(Things())  # type: ignore[arg-type]
    assert wrapped.handle(Request.build("GET", "/things", params={"page": "2"}, **key)).status == 200
    past = wrapped.handle(Request.build("GET", "/things", params={"page": "3"}, **key))
    assert past.status == 200 and json.loads(past.body) == {"data": [], "pages": 2}


def test_next_dropped_takes_the_cursor_off_pages_that_say_more() -> None:
    first = json.loads(_send("next-dropped:things.cursor-walk", "GET", "/cursor").body)
    assert first == {"data": [1], "hasMore": True}
    last = _send("next-dropped:things.cursor-walk", "GET", "/cursor", params={"after": "c2"})
    assert json.loads(last.body) == {"data": [2], "hasMore": False}


def test_cursor_loops_points_the_last_page_back_at_itself() -> None:
    last = json.loads(_send("cursor-loops:things.cursor-walk", "GET", "/cursor", params={"after": "c2"}).body)
    assert last == {"data": [2], "hasMore": True, "next": "c2"}
    first = json.loads(_send("cursor-loops:things.cursor-walk", "GET", "/cursor").body)
    assert first["next"] == "c2"  # a page with its own next, or asked for without a cursor, stands


def test_more_denied_makes_every_numbered_page_say_no_more() -> None:
    first = json.loads(_send("more-denied:things.numbered-walk", "GET", "/numbered").body)
    assert first == {"data": [1], "more": False}
    assert "next-dropped:things.numbered-walk" not in _faults() and "more-denied:things.cursor-walk" not in _faults()


def test_default_not_applied_serves_the_default_plus_one_without_the_parameter() -> None:
    assert json.loads(_send("default-not-applied:things.page-default", "GET", "/numbered").body)["data"] == [2]
    named = _send("default-not-applied:things.page-default", "GET", "/numbered", params={"page": "1"})
    assert json.loads(named.body)["data"] == [1]  # a request naming it is left as sent


def test_status_remapped_for_a_refused_edit_acts_on_the_edited_method() -> None:
    key = {"headers": {"X-Key": "seeded-key"}}
    assert _send("status-remapped:things.method-405", "DELETE", "/things", **key).status == 404
    assert _send("refusal-as-500:things.method-405", "DELETE", "/things", **key).status == 500


def test_read_only_written_takes_the_member_and_shows_it_on_later_reads() -> None:
    key = {"headers": {"X-Key": "seeded-key"}}
    wrapped: Any = _faults()["read-only-written:things.read-only"].apply(Things())  # type: ignore[arg-type]
    assert json.loads(wrapped.handle(Request.build("GET", "/things/1", **key)).body)["kind"] == "a"
    written = wrapped.handle(Request.build("PUT", "/things/1", json_body={"kind": "b", "x": 1}, **key))
    assert written.status == 200  # the simulator never saw the read-only member
    assert json.loads(wrapped.handle(Request.build("GET", "/things/1", **key)).body)["kind"] == "b"
