"""Faults of the outreach simulator: each makes it break one documented rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.faults.base import Fault, fault, json_edit, on_request, on_response, request_json_edit
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

# The fault module may know the simulator's seeded keys: they are part of its surface.
_ALL_ALL = "Bearer sim-outreach-all-all"
_ACCOUNTS = "/api/v2/accounts"


def _is(request: Request, method: str, path: str) -> bool:
    return request.method == method and request.path == path


def _rewrite_body(method: str, path: str, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """Rewrite the JSON body of matching requests (``path`` may end in ``*``) before the simulator sees them."""
    def matches(request: Request) -> bool:
        return request.method == method and (request.path == path or path.endswith("*") and
                                             request.path.startswith(path[:-1]))

    return request_json_edit(matches, edit, empty=b"{}")


def _provider_8_refused(body: dict[str, Any]) -> dict[str, Any]:
    if body.get("provider_code") == 8:
        body["provider_code"] = "eight"
    return body


def _reroute(sim: Simulator, method: str, path: str, handler: Callable[..., Response],
             scope: tuple[str, str] = ("accounts", "create")) -> None:
    guarded = sim._guarded(scope, handler, method == "POST")  # type: ignore[attr-defined]
    for route in sim._routes:
        if route.method == method and route.pattern.match(path):
            route.handler = guarded
            return


def _update_writes_read_only(sim: Simulator) -> Simulator:
    """is_managed_account sent on update is stored."""
    sim.refuse_read_only = False  # type: ignore[attr-defined]
    original = sim.update_account  # type: ignore[attr-defined]

    def update(request: Request, email: str) -> Response:
        response: Response = original(request, email)
        sent = json.loads(request.body)
        if response.status == 200 and "is_managed_account" in sent:
            sim.accounts[email]["is_managed_account"] = sent["is_managed_account"]  # type: ignore[attr-defined]
        return response

    _reroute(sim, "PATCH", _ACCOUNTS + "/x@y", update, ("accounts", "update"))
    return sim


def _status(method: str, path: str, new: int, when: int | None = None) -> Any:
    def after(request: Request, response: Response) -> Response:
        if (request.method == method and (request.path == path or path.endswith("*") and
                                          request.path.startswith(path[:-1]))
                and (when is None or response.status == when)):
            response.status = new
        return response
    return on_response(after)


def _key_as(old: str, new: str | None) -> Any:
    """Requests carrying ``old`` (or no key when old is '') travel with ``new`` instead."""
    def before(request: Request) -> Request:
        current = request.header("authorization") or ""
        if current == old or (old == "" and not current):
            if new is None:
                request.headers.pop("authorization", None)
            else:
                request.headers["authorization"] = new
        return request
    return before


def _only(method: str, path: str, fn: Callable[[Request], Request]) -> Any:
    def before(request: Request) -> Request:
        return fn(request) if (request.method == method and request.path == path) else request
    return on_request(before)


def _edit_json(method: str, prefix: str, edit: Callable[[Any], Any]) -> Any:
    def after(request: Request, response: Response) -> Response:
        if request.method == method and request.path.startswith(prefix) and 200 <= response.status < 300:
            response.body = json_edit(response.body, edit)
        return response
    return on_response(after)


def _set(name: str, value: Any) -> Callable[[Any], Any]:
    def edit(body: Any) -> Any:
        if isinstance(body, dict):
            body[name] = value
        return body
    return edit


def _limit_ignored(request: Request) -> Request:
    request.query = [(k, v) for k, v in request.query if k != "limit"]
    return request


def _repeat_on_walk(request: Request, response: Response) -> Response:
    if _is(request, "GET", "/api/v2/campaigns") and "starting_after" in request.params and response.status == 200:
        def edit(body: Any) -> Any:
            body["items"].insert(0, {"id": "0190c0de-0000-7000-8000-000000000001", "name": "Campaign 1"})
            return body
        response.body = json_edit(response.body, edit)
    return response


def _cursor_loops(request: Request, response: Response) -> Response:
    after = request.params.get("starting_after")
    if _is(request, "GET", "/api/v2/campaigns") and after and response.status == 200:
        body = response.json()
        if isinstance(body, dict) and body.get("next_starting_after") is None:
            body["next_starting_after"] = after
            response.body = json.dumps(body).encode()
    return response


def _truncated_for_accounts_all(request: Request, response: Response) -> Response:
    # Whatever the answer to an accounts:all key, a body declared JSON must be JSON.
    if _is(request, "POST", _ACCOUNTS) and request.header("authorization") == "Bearer sim-outreach-accounts-all":
        response.body = response.body[: len(response.body) // 2]
    return response


def _delete_keeps(request: Request) -> Request:
    if request.method == "DELETE" and request.path.startswith(_ACCOUNTS + "/"):
        request.method = "GET"  # answered 200 with the account; nothing is removed
    return request


def _limit_as_503(request: Request, response: Response) -> Response:
    # The creation limit answered with another status than the documented 429.
    if request.method == "POST" and request.path == _ACCOUNTS and response.status == 429:
        return Response.json_response(503, {"error": "busy"})
    return response


def _patch_ignored(request: Request) -> Request:
    if request.method == "PATCH" and request.path.startswith(_ACCOUNTS + "/") and b"Grace" in request.body:
        request.body = b'{"sending_gap": 10}'
    return request


def _campaign_name_ignored(request: Request) -> Request:
    if request.method == "PATCH" and request.path.startswith("/api/v2/campaigns/") and b"renamed" in request.body:
        request.body = b"{}"
    return request


def _email_list_string(request: Request) -> Request:
    if request.method == "PATCH" and request.path.startswith("/api/v2/campaigns/"):
        body = json.loads(request.body or b"{}")
        if isinstance(body.get("email_list"), str):
            body["email_list"] = [body["email_list"]]
            request.body = json.dumps(body).encode()
    return request


def _activate_is_pause(request: Request) -> Request:
    if request.method == "POST" and request.path.endswith("/activate"):
        request.path = request.path[: -len("activate")] + "pause"
    return request


def _unserved(method: str, path: str) -> Any:
    def before(request: Request) -> Request:
        if request.method == method and request.path == path:
            request.path = path + "-gone"
        return request
    return on_request(before)


def _analytics_id_refused(request: Request, response: Response) -> Response:
    if _is(request, "GET", "/api/v2/campaigns/analytics") and "id" in request.params:
        return Response(400, {"content-type": "application/json"}, b'{"error": "unknown query parameter id"}')
    return response


def _write_on_create(field: str) -> Callable[[Simulator], Simulator]:
    """Read-only ``field`` sent on create is accepted and stored as sent."""
    def apply(sim: Simulator) -> Simulator:
        sim.refuse_read_only = False  # type: ignore[attr-defined]
        original = sim.create_account  # type: ignore[attr-defined]

        def create(request: Request) -> Response:
            response: Response = original(request)
            sent = json.loads(request.body)
            if response.status == 200 and field in sent:
                sim.accounts[sent["email"]][field] = sent[field]  # type: ignore[attr-defined]
            return response

        sim.create_account = create  # type: ignore[attr-defined]
        _reroute(sim, "POST", _ACCOUNTS, create)
        return sim
    return apply


def _neither_mark_read(request: Request) -> Request:
    if request.path.endswith("/mark-as-read"):
        request.method = "PUT"
    return request


FAULTS: list[Fault] = [
    fault("provider-code-8-refused",
          "provider_code 8 (AirMail) is refused")(_rewrite_body("POST", _ACCOUNTS, _provider_8_refused)),
    fault("warmup-status-written-on-create",
          "read-only warmup_status sent on create is stored")(_write_on_create("warmup_status")),
    fault("timestamp-created-written-on-create",
          "read-only timestamp_created sent on create is stored")(_write_on_create("timestamp_created")),
    fault("analytics-id-refused",
          "GET /campaigns/analytics refuses the documented query parameter id")(on_response(_analytics_id_refused)),
    fault("read-only-written-on-update",
          "read-only is_managed_account sent on update is stored")(_update_writes_read_only),
    fault("reply-to-refused",
          "a create with reply_to is refused")(_rewrite_body("POST", _ACCOUNTS, lambda b: {**b, "reply_to": 1}
                                                                if "reply_to" in b else b)),
    fault("create-without-scope-allowed",
          "a key without accounts:create may create")(
        _only("POST", _ACCOUNTS, _key_as("Bearer sim-outreach-campaigns-all", _ALL_ALL))),
    fault("accounts-create-key-refused",
          "a key with accounts:create is refused for account creation")(
        _only("POST", _ACCOUNTS, _key_as("Bearer sim-outreach-accounts-create", "Bearer sim-outreach-campaigns-all"))),
    fault("create-without-key-accepted",
          "account creation without a key is served")(_only("POST", _ACCOUNTS, _key_as("", _ALL_ALL))),
    fault("invalid-key-403",
          "an invalid key on account creation is answered 403, not the documented 401")(
        _status("POST", _ACCOUNTS, 403, when=401)),
    fault("campaigns-open-without-key",
          "GET /campaigns is served without a key")(_only("GET", "/api/v2/campaigns", _key_as("", _ALL_ALL))),
    fault("create-answers-201",
          "a create is answered 201, not the documented 200")(_status("POST", _ACCOUNTS, 201, when=200)),
    fault("account-status-outside-enum",
          "GET /accounts/{email} reports status 4")(_edit_json("GET", _ACCOUNTS + "/", _set("status", 4))),
    fault("list-limit-ignored",
          "GET /accounts ignores limit")(_only("GET", _ACCOUNTS, _limit_ignored)),
    fault("delete-keeps-account",
          "DELETE /accounts/{email} answers 200 and removes nothing")(on_request(_delete_keeps)),
    fault("rate-limit-as-503",
          "account creation past the limit is answered 503, not 429")(on_response(_limit_as_503)),
    fault("update-not-persisted",
          "an update is answered 2xx but not stored")(on_request(_patch_ignored)),
    fault("sending-gap-string-accepted",
          "sending_gap 'thirty' is accepted on update")(
        _rewrite_body("PATCH", _ACCOUNTS + "/*", lambda b: {**b, "sending_gap": 30}
                      if isinstance(b.get("sending_gap"), (str, bool)) else b)),
    fault("warmup-enable-no-job",
          "warm-up enable answers 204 without a job")(
        on_response(lambda q, r: Response(204, {}, b"") if _is(q, "POST", _ACCOUNTS + "/warmup/enable") else r)),
    fault("starting-after-repeats",
          "a page after starting_after repeats the first campaign")(on_response(_repeat_on_walk)),
    fault("next-cursor-loops",
          "the last page's next_starting_after points back at the page itself")(on_response(_cursor_loops)),
    fault("accounts-all-answer-ill-formed",
          "the answer to an accounts:all create is truncated JSON")(on_response(_truncated_for_accounts_all)),
    fault("no-scope-key-500",
          "a create with a key without accounts:create crashes (500) instead of being refused")(
        _status("POST", _ACCOUNTS, 500, when=403)),
    fault("campaign-email-list-text",
          "GET /campaigns/{id} reports email_list as one string")(
        _edit_json("GET", "/api/v2/campaigns/0", _set("email_list", "sender@outreach.example"))),
    fault("campaign-rename-ignored",
          "PATCH /campaigns/{id} answers 2xx and keeps the old name")(on_request(_campaign_name_ignored)),
    fault("email-list-string-accepted",
          "email_list as a bare string is accepted")(on_request(_email_list_string)),
    fault("activate-not-observable",
          "activate leaves the campaign paused")(on_request(_activate_is_pause)),
    fault("mark-as-read-served-by-neither",
          "mark-as-read answers neither POST nor PATCH")(on_request(_neither_mark_read)),
    fault("ctd-status-unrouted",
          "GET /accounts/ctd-status is not served")(_unserved("GET", _ACCOUNTS + "/ctd-status")),
    fault("microsoft-init-unrouted",
          "POST /oauth/microsoft/init is not served")(_unserved("POST", "/api/v2/oauth/microsoft/init")),
]
