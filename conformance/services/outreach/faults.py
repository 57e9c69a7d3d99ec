"""Faults of the outreach simulator: each makes it break one documented rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.faults.base import Fault, fault, on_request, on_response
from conformance.faults.toolkit import Match, Wrap, operation, path, request_body, response_body, status
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

# The fault module may know the simulator's seeded keys: they are part of its surface.
_ALL_ALL = "Bearer sim-outreach-all-all"
_ACCOUNTS = "/api/v2/accounts"
_CREATE = operation("POST", _ACCOUNTS)
_CAMPAIGN_LIST = operation("GET", "/api/v2/campaigns")


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


def _key_as(match: Match, old: str, new: str | None) -> Wrap:
    """Requests ``match`` picks carrying ``old`` (or no key when old is '') travel with ``new`` instead."""
    def before(request: Request) -> Request:
        current = request.header("authorization") or ""
        if match(request) and (current == old or (old == "" and not current)):
            if new is None:
                request.headers.pop("authorization", None)
            else:
                request.headers["authorization"] = new
        return request
    return on_request(before)


def _set(name: str, value: Any) -> Callable[[Any], Any]:
    def edit(body: Any) -> Any:
        if isinstance(body, dict):
            body[name] = value
        return body
    return edit


def _cursor_loops(request: Request, body: Any) -> Any:
    if isinstance(body, dict) and body.get("next_starting_after") is None:
        body["next_starting_after"] = request.params["starting_after"]
    return body


def _truncated_for_accounts_all(request: Request, response: Response) -> Response:
    # Whatever the answer to an accounts:all key, a body declared JSON must be JSON.
    if _CREATE(request) and request.header("authorization") == "Bearer sim-outreach-accounts-all":
        response.body = response.body[: len(response.body) // 2]
    return response


def _activate_is_pause(request: Request) -> Request:
    if request.method == "POST" and request.path.endswith("/activate"):
        request.path = request.path[: -len("activate")] + "pause"
    return request


def _analytics_by_id(request: Request) -> bool:
    return operation("GET", "/api/v2/campaigns/analytics")(request) and "id" in request.params


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


FAULTS: list[Fault] = [
    fault("provider-code-8-refused",
          "provider_code 8 (AirMail) is refused")(request_body(_CREATE, _provider_8_refused, b"{}")),
    fault("warmup-status-written-on-create",
          "read-only warmup_status sent on create is stored")(_write_on_create("warmup_status")),
    fault("timestamp-created-written-on-create",
          "read-only timestamp_created sent on create is stored")(_write_on_create("timestamp_created")),
    fault("analytics-id-refused",
          "GET /campaigns/analytics refuses the documented query parameter id")(
        status(_analytics_by_id, 400, body={"error": "unknown query parameter id"})),
    fault("read-only-written-on-update",
          "read-only is_managed_account sent on update is stored")(_update_writes_read_only),
    fault("reply-to-refused",
          "a create with reply_to is refused")(
        request_body(_CREATE, lambda b: {**b, "reply_to": 1} if "reply_to" in b else b, b"{}")),
    fault("accounts-create-key-refused",
          "a key with accounts:create is refused for account creation")(
        _key_as(_CREATE, "Bearer sim-outreach-accounts-create", "Bearer sim-outreach-campaigns-all")),
    fault("create-without-key-accepted",
          "account creation without a key is served")(_key_as(_CREATE, "", _ALL_ALL)),
    fault("campaigns-open-without-key",
          "GET /campaigns is served without a key")(_key_as(_CAMPAIGN_LIST, "", _ALL_ALL)),
    fault("create-answers-201",
          "a create is answered 201, not the documented 200")(status(_CREATE, 201, when=200)),
    fault("account-status-outside-enum",
          "GET /accounts/{email} reports status 4")(
        response_body(path("^/api/v2/accounts/", "GET"), _set("status", 4), statuses=range(200, 300))),
    fault("warmup-enable-no-job",
          "warm-up enable answers 204 without a job")(
        on_response(lambda q, r: Response(204, {}, b"") if operation("POST", _ACCOUNTS + "/warmup/enable")(q) else r)),
    fault("next-cursor-loops",
          "the last page's next_starting_after points back at the page itself")(
        response_body(lambda r: _CAMPAIGN_LIST(r) and bool(r.params.get("starting_after")), _cursor_loops,
                      with_request=True)),
    fault("accounts-all-answer-ill-formed",
          "the answer to an accounts:all create is truncated JSON")(on_response(_truncated_for_accounts_all)),
    fault("no-scope-key-500",
          "a create with a key without accounts:create crashes (500) instead of being refused")(
        status(_CREATE, 500, when=403)),
    fault("campaign-email-list-text",
          "GET /campaigns/{id} reports email_list as one string")(
        response_body(path("^/api/v2/campaigns/0", "GET"), _set("email_list", "sender@outreach.example"),
                      statuses=range(200, 300))),
    fault("activate-not-observable",
          "activate leaves the campaign paused")(on_request(_activate_is_pause)),
]
