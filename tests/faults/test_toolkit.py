"""The fault toolkit against a tiny in-test simulator: each wrapper changes what it says, for the
requests it picks and no others (so a fault built from it breaks one thing)."""

from __future__ import annotations

import json

from conformance.faults.toolkit import any_request, drop_header, operation, path, request_body, response_body, status
from conformance.transport.model import Request, Response


class Echo:
    """Answers 200 with the request's JSON body (or {}), and an x-trace header."""

    credentials: dict[str, str] = {}

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body) if request.body else {}
        if body.get("bad"):
            return Response.json_response(400, {"message": "bad"})
        return Response.json_response(200, {"got": body, "path": request.path}, {"x-trace": "1"})


def _send(sim: object, method: str, path_: str, body: object = None) -> Response:
    return sim.handle(Request.build(method, path_, json_body=body))  # type: ignore[attr-defined]


def test_operation_matches_the_template_at_the_end_of_the_path() -> None:
    match = operation("GET", "/v1/things/{id}")
    assert match(Request.build("GET", "/api/v1/things/7"))
    assert not match(Request.build("POST", "/api/v1/things/7"))
    assert not match(Request.build("GET", "/api/v1/things/7/parts"))
    assert operation(None, "/v1/things")(Request.build("DELETE", "/v1/things"))


def test_path_is_a_regular_expression_with_an_optional_method() -> None:
    assert path(r"^/v1/.+/messages$")(Request.build("GET", "/v1/42/messages"))
    assert not path(r"^/v1/.+/messages$", "POST")(Request.build("GET", "/v1/42/messages"))


def test_any_request_picks_every_request() -> None:
    assert any_request(Request.build("GET", "/"))
    assert any_request(Request.build("DELETE", "/v1/things/7", json_body={"x": 1}))
    sim = status(any_request, 418, when=400)(Echo())  # type: ignore[arg-type]
    assert _send(sim, "PUT", "/anywhere", {"bad": 1}).status == 418


def test_request_body_edits_only_the_picked_requests() -> None:
    sim = request_body(operation("POST", "/a"), lambda b: {**b, "x": 1})(Echo())  # type: ignore[arg-type]
    assert json.loads(_send(sim, "POST", "/a", {"y": 2}).body)["got"] == {"y": 2, "x": 1}
    assert json.loads(_send(sim, "POST", "/b", {"y": 2}).body)["got"] == {"y": 2}


def test_response_body_edits_the_picked_answers_with_the_listed_statuses() -> None:
    sim = response_body(path("/a"), lambda b: {**b, "extra": True})(Echo())  # type: ignore[arg-type]
    assert json.loads(_send(sim, "POST", "/a", {}).body)["extra"] is True
    assert "extra" not in json.loads(_send(sim, "POST", "/a", {"bad": 1}).body)  # a 400, not listed
    both = response_body(path("/a"), lambda r, b: {**b, "method": r.method}, with_request=True)(Echo())  # type: ignore[arg-type]
    assert json.loads(_send(both, "PUT", "/a", {}).body)["method"] == "PUT"


def test_status_remaps_only_the_given_status_and_may_replace_the_body() -> None:
    sim = status(path("/a"), 422, when=400)(Echo())  # type: ignore[arg-type]
    assert _send(sim, "POST", "/a", {"bad": 1}).status == 422
    assert _send(sim, "POST", "/a", {}).status == 200
    crash = status(path("/a"), 500, body={"message": "boom"})(Echo())  # type: ignore[arg-type]
    answer = _send(crash, "POST", "/a", {})
    assert answer.status == 500 and json.loads(answer.body) == {"message": "boom"}


def test_drop_header_leaves_it_out_of_picked_answers_only() -> None:
    sim = drop_header(path("/a"), "X-Trace")(Echo())  # type: ignore[arg-type]
    assert "x-trace" not in _send(sim, "GET", "/a").headers
    assert _send(sim, "GET", "/b").headers["x-trace"] == "1"


def test_operations_matches_any_listed_operation() -> None:
    from conformance.faults.toolkit import operations

    match = operations(["GET /v1/things/{id}", "POST /v1/things"])
    assert match(Request.build("GET", "/api/v1/things/7")) and match(Request.build("POST", "/v1/things"))
    assert not match(Request.build("POST", "/v1/things/7"))


def test_sent_json_is_the_object_a_request_sent_or_empty() -> None:
    from conformance.faults.toolkit import sent_json

    assert sent_json(Request.build("POST", "/a", json_body={"x": 1})) == {"x": 1}
    assert sent_json(Request.build("POST", "/a", json_body=[1])) == {}
    assert sent_json(Request("POST", "/a", body=b"not json")) == {}
    assert sent_json(Request.build("GET", "/a")) == {}
