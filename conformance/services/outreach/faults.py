"""Faults of the outreach simulator: each makes it break one documented rule."""

from __future__ import annotations

from typing import Any

from conformance.faults.base import Fault, fault, on_request, on_response
from conformance.faults.toolkit import operation, request_body, response_body, status
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

_ACCOUNTS = "/api/v2/accounts"
_CREATE = operation("POST", _ACCOUNTS)
_CAMPAIGN_LIST = operation("GET", "/api/v2/campaigns")


def _provider_8_refused(body: dict[str, Any]) -> dict[str, Any]:
    if body.get("provider_code") == 8:
        body["provider_code"] = "eight"
    return body


def _create_key_as_campaigns_key(request: Request) -> Request:
    # A create with the accounts:create key is served as one with a key for campaigns only.
    if _CREATE(request) and request.header("authorization") == "Bearer sim-outreach-accounts-create":
        request.headers["authorization"] = "Bearer sim-outreach-campaigns-all"
    return request


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


FAULTS: list[Fault] = [
    fault("provider-code-8-refused",
          "provider_code 8 (AirMail) is refused")(request_body(_CREATE, _provider_8_refused, b"{}")),
    fault("analytics-id-refused",
          "GET /campaigns/analytics refuses the documented query parameter id")(
        status(_analytics_by_id, 400, body={"error": "unknown query parameter id"})),
    fault("reply-to-refused",
          "a create with reply_to is refused")(
        request_body(_CREATE, lambda b: {**b, "reply_to": 1} if "reply_to" in b else b, b"{}")),
    fault("accounts-create-key-refused",
          "a key with accounts:create is refused for account creation")(on_request(_create_key_as_campaigns_key)),
    fault("create-answers-201",
          "a create is answered 201, not the documented 200")(status(_CREATE, 201, when=200)),
    fault("warmup-enable-no-job",
          "warm-up enable answers 204 without a job")(
        on_response(lambda q, r: Response(204, {}, b"") if operation("POST", _ACCOUNTS + "/warmup/enable")(q) else r)),
    fault("next-cursor-loops",
          "the last page's next_starting_after points back at the page itself")(
        response_body(lambda r: _CAMPAIGN_LIST(r) and bool(r.params.get("starting_after")), _cursor_loops,
                      with_request=True)),
    fault("accounts-all-answer-ill-formed",
          "the answer to an accounts:all create is truncated JSON")(on_response(_truncated_for_accounts_all)),
    fault("activate-not-observable",
          "activate leaves the campaign paused")(on_request(_activate_is_pause)),
]
