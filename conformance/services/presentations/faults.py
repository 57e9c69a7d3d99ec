"""Faults of the presentation-generation simulator: each makes it break one documented rule."""

from __future__ import annotations

import json
import re
from typing import Any

from conformance.faults.base import Fault, FaultySimulator, fault, json_edit, on_request, on_response, request_json_edit
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

# The fault module may know the simulator's seeded key: it is part of the simulator's surface.
_KEY = "sim-ultra-key"


def _body_edit(path: str, edit: Any) -> Any:
    """Rewrite the JSON body of POSTs to ``path`` before the simulator sees them."""
    return request_json_edit(lambda r: r.method == "POST" and r.path == path, edit)


def _gen_response(edit: Any) -> Any:
    def after(request: Request, response: Response) -> Response:
        if request.method == "GET" and request.path.startswith("/v1.0/generations/") and response.status == 200:
            response.body = json_edit(response.body, edit)
        return response

    return on_response(after)


def _status_warnings(body: Any) -> Any:
    if isinstance(body, dict):
        body["warnings"] = "imageOptions.model is ignored for web image sources"
    return body


def _any_recipient(body: dict[str, Any]) -> dict[str, Any]:
    # A server that takes any string as a recipient: what is no address becomes one.
    email = (body.get("sharingOptions") or {}).get("emailOptions") if isinstance(body.get("sharingOptions"), dict) else None
    if isinstance(email, dict) and isinstance(email.get("recipients"), list):
        email["recipients"] = [r if not isinstance(r, str) or "@" in r else f"{r}@example.com"
                               for r in email["recipients"]]
    return body


def _coerce_flag(flag: str) -> Any:
    # A lenient server reading the text "true" or the number 1 as the boolean true.
    def edit(body: dict[str, Any]) -> dict[str, Any]:
        cards = body.get("cardOptions")
        hf = cards.get("headerFooter") if isinstance(cards, dict) else None
        if isinstance(hf, dict) and hf.get(flag) in ("true", 1) and not isinstance(hf.get(flag), bool):
            hf[flag] = True
        return body
    return edit


def _bearer_as_key(request: Request) -> Request:
    auth = request.header("authorization") or ""
    if auth.startswith("Bearer ") and "x-api-key" not in request.headers:
        request.headers["x-api-key"] = auth[len("Bearer "):]
    return request


def _default_key(request: Request) -> Request:
    request.headers.setdefault("x-api-key", _KEY)
    return request


def _drop_header(request: Request, response: Response) -> Response:
    response.headers.pop("x-ratelimit-remaining-burst", None)
    return response


def _repeat_across_pages(request: Request, response: Response) -> Response:
    if request.path == "/v1.0/themes" and "after" in request.params and response.status == 200:
        def edit(body: Any) -> Any:
            body["data"].insert(0, {"id": "theme-01", "name": "Theme 01"})
            return body
        response.body = json_edit(response.body, edit)
    return response


def _drop(key: str, when_status: str | None = None) -> Any:
    def edit(body: Any) -> Any:
        if isinstance(body, dict) and (when_status is None or body.get("status") == when_status):
            body.pop(key, None)
        return body
    return edit


def _reverts(sim: Simulator) -> Simulator:
    seen: set[str] = set()

    def after(request: Request, response: Response) -> Response:
        if request.path.startswith("/v1.0/generations/") and response.status == 200:
            body = json.loads(response.body)
            if body.get("status") == "completed":
                if body["generationId"] in seen:
                    response.body = json.dumps({"generationId": body["generationId"], "status": "pending"}).encode()
                seen.add(body["generationId"])
        return response
    return FaultySimulator(sim, after=after)  # type: ignore[return-value]


def _text_plain_as_json(request: Request) -> Request:
    if request.header("content-type") == "text/plain":
        request.headers["content-type"] = "application/json"
    return request


def _status_remap(path_prefix: str, old: int, new: int) -> Any:
    def after(request: Request, response: Response) -> Response:
        if request.path.startswith(path_prefix) and response.status == old:
            response.status = new
        return response
    return on_response(after)


def _wrong_type_500(request: Request, response: Response) -> Response:
    try:
        body = json.loads(request.body) if request.body else None
    except ValueError:
        return response
    if isinstance(body, dict) and "textMode" in body and not isinstance(body["textMode"], str):
        return Response.json_response(500, {"message": "internal error"})
    return response


def _number_id(request: Request, response: Response) -> Response:
    if request.method == "POST" and response.status == 200:
        response.body = json_edit(response.body, lambda b: {**b, "generationId": 12345})
    return response


def _unknown_status(body: Any) -> Any:
    if isinstance(body, dict) and body.get("status") == "pending":
        body["status"] = "running"
    return body


def _drop_next_cursor(request: Request, response: Response) -> Response:
    if request.path == "/v1.0/folders" and response.status == 200:
        response.body = json_edit(response.body, _drop("nextCursor"))
    return response


def _drop_warnings(request: Request, response: Response) -> Response:
    if request.method == "POST" and response.status == 200:
        response.body = json_edit(response.body, _drop("warnings"))
    return response


def _coerce_num_cards(body: dict[str, Any]) -> dict[str, Any]:
    value = body.get("numCards")
    if isinstance(value, (bool, float)) or (isinstance(value, str) and value.isdigit()):
        body["numCards"] = int(value)
    return body


def _failed_becomes_pending(sim: Simulator) -> Simulator:
    failed: set[str] = set()

    def after(request: Request, response: Response) -> Response:
        if request.path.startswith("/v1.0/generations/") and response.status == 200:
            body = json.loads(response.body)
            if body.get("generationId") in failed:
                response.body = json.dumps({"generationId": body["generationId"], "status": "pending"}).encode()
            elif body.get("status") == "failed":
                failed.add(body["generationId"])
        return response
    return FaultySimulator(sim, after=after)  # type: ignore[return-value]


def _created_garbage(request: Request, response: Response) -> Response:
    if request.method == "POST" and request.path == "/v1.0/generations" and response.status == 200:
        response.status, response.body = 201, b'{"id": 42}'
    return response


def _forgets_finished(request: Request, response: Response) -> Response:
    if request.path.startswith("/v1.0/generations/") and response.status == 200 and (
            json.loads(response.body).get("status") != "pending"):
        return Response.json_response(404, {"message": "no such generation"})
    return response


def _malformed_json_500(request: Request, response: Response) -> Response:
    if request.method == "POST" and response.status == 400:
        try:
            json.loads(request.body)
        except ValueError:
            return Response.json_response(500, {"message": "internal error"})
    return response


def _web_source_refused(body: dict[str, Any]) -> dict[str, Any]:
    image = body.get("imageOptions")
    if isinstance(image, dict) and image.get("source") == "webAllImages":
        image["source"] = "unknown-source"
    return body


def _theme_id_renamed(request: Request, response: Response) -> Response:
    if request.path == "/v1.0/themes" and response.status == 200:
        def edit(body: Any) -> Any:
            body["data"] = [{"themeId": i["id"], "name": i["name"]} for i in body["data"]]
            return body
        response.body = json_edit(response.body, edit)
    return response


def _odd_id_crashes(request: Request, response: Response) -> Response:
    # Only ids holding characters no id the simulator issues has: what a fuzzer sends.
    tail = request.path.rsplit("/", 1)[-1]
    if request.path.startswith("/v1.0/generations/") and tail and re.search(r"[^A-Za-z0-9_-]", tail):
        return Response.json_response(500, {"message": "internal error"})
    return response


FAULTS: list[Fault] = [
    fault("odd-generation-id-500",
          "a status lookup with an id of odd characters crashes with 500")(on_response(_odd_id_crashes)),
    fault("accepts-bearer",
          "a key sent as Authorization: Bearer is accepted")(on_request(_bearer_as_key)),
    fault("accepts-missing-key",
          "a request without X-API-KEY is served as the default account")(on_request(_default_key)),
    fault("drops-burst-header",
          "x-ratelimit-remaining-burst is missing from every response")(on_response(_drop_header)),
    fault("forgets-finished",
          "a generation that ended is answered 404 on the status endpoint")(on_response(_forgets_finished)),
    fault("repeats-theme-across-pages",
          "every themes page after the first repeats the first theme")(on_response(_repeat_across_pages)),
    fault("omits-credits",
          "a completed generation has no credits object")(_gen_response(_drop("credits", "completed"))),
    fault("rate-limit-as-503",
          "a client over the rate limit is answered 503 instead of 429")(_status_remap("/v1.0/themes", 429, 503)),
    fault("drops-export-url",
          "exportUrl is missing although exportAs was given")(_gen_response(_drop("exportUrl"))),
    fault("completed-reverts",
          "a completed generation reads as pending on the next poll")(_reverts),
    fault("no-web-source-warning",
          "the create response never carries warnings")(on_response(_drop_warnings)),
    fault("wrong-type-500",
          "a non-string textMode crashes the service with 500")(on_response(_wrong_type_500)),
    fault("402-as-400",
          "insufficient credits answered 400 instead of 402")(_status_remap("/v1.0/generations", 402, 400)),
    fault("403-as-401",
          "a plan without API access answered 401 instead of 403")(_status_remap("/v1.0/generations", 403, 401)),
    fault("text-plain-accepted",
          "a JSON body sent as text/plain is accepted")(on_request(_text_plain_as_json)),
    fault("unknown-status-value",
          "a running generation reports status 'running', outside the enum")(_gen_response(_unknown_status)),
    fault("failed-without-error",
          "a failed generation has no error object")(_gen_response(_drop("error", "failed"))),
    fault("drops-next-cursor",
          "folders pages say hasMore but carry no nextCursor")(on_response(_drop_next_cursor)),
    fault("numeric-generation-id",
          "the create response gives generationId as a number")(on_response(_number_id)),
    # From the second review: wrong servers that weaker checks once let pass.
    fault("coerces-num-cards-string",
          'numCards "7" (a string) is quietly read as 7')(_body_edit("/v1.0/generations", _coerce_num_cards)),
    fault("failed-becomes-pending",
          "a failed generation reads as pending on the next poll")(_failed_becomes_pending),
    # From the fidelity review (issue 15): deviations the stronger checks see.
    fault("malformed-json-500",
          "a body that is not JSON crashes the service with 500")(on_response(_malformed_json_500)),
    fault("web-source-refused",
          "the web image source is refused with 400 instead of ignoring the model with a warning")(
        _body_edit("/v1.0/generations", _web_source_refused)),
    fault("theme-items-without-id",
          "theme items carry their id as 'themeId', not 'id'")(on_response(_theme_id_renamed)),
    fault("created-201-garbage",
          "generations are created with 201 and a body that is not {generationId}")(on_response(_created_garbage)),
    # Issue 20 (statement index): the Generation table's warnings row.
    fault("status-carries-warnings",
          "the status endpoint repeats the create response's warnings in the Generation")(
        _gen_response(_status_warnings)),
    fault("accepts-any-recipient",
          "a recipient that is no e-mail address is accepted")(
        request_json_edit(lambda r: r.method == "POST" and r.path.startswith("/v1.0/generations"), _any_recipient)),
    fault("coerces-hide-from-first-card",
          'hideFromFirstCard "true" (text) or 1 is read as true')(
        _body_edit("/v1.0/generations", _coerce_flag("hideFromFirstCard"))),
    fault("coerces-hide-from-last-card",
          'hideFromLastCard "true" (text) or 1 is read as true')(
        _body_edit("/v1.0/generations", _coerce_flag("hideFromLastCard"))),
]
