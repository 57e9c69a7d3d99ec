"""Allowed variants of the outreach simulator: choices the document leaves open. Every rule
must still pass under each."""

from __future__ import annotations

import json
from typing import Any

from conformance.faults.base import Variant, on_response, variant
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]


def _attribute(name: str, value: Any) -> Any:
    def apply(sim: Simulator) -> Simulator:
        setattr(sim, name, value)
        return sim
    return apply


def _mark_read_by_patch(sim: Simulator) -> Simulator:
    # The method column's reading: PATCH serves mark-as-read, POST is answered 405.
    for route in sim._routes:
        if route.method == "POST" and route.pattern.pattern.endswith("mark-as-read$"):
            route.method = "PATCH"
    return sim


def _bodiless_actions(request: Request, response: Response) -> Response:
    # Activate, pause and delete bodies are not shown: a 204 without body is as good.
    verbs = ("/activate", "/pause")
    if response.status == 200 and (request.path.endswith(verbs) or request.method == "DELETE"):
        return Response(204, {}, b"")
    return response


def _other_error_body(request: Request, response: Response) -> Response:
    # The error body shape is not shown.
    if response.status >= 400:
        message = (response.json() or {}).get("message", "error") if response.body else "error"
        response.body = json.dumps({"error": {"code": response.status, "detail": message}}).encode()
    return response


def _string_states(request: Request, response: Response) -> Response:
    # Campaign state values are not shown: names instead of numbers.
    if request.path.startswith("/api/v2/campaigns/") and response.status == 200 and response.body:
        body = response.json()
        if isinstance(body, dict) and isinstance(body.get("status"), int):
            body["status"] = {0: "draft", 1: "running", 2: "paused"}.get(body["status"], "other")
            response.body = json.dumps(body).encode()
    return response


VARIANTS: tuple[Variant, ...] = (
    variant("read-only-ignored", "read-only fields on create and update are dropped, not refused")(
        _attribute("refuse_read_only", False)),
    variant("duplicate-create-updates", "creating an existing email updates it instead of refusing")(
        _attribute("refuse_duplicates", False)),
    variant("scope-refusal-401", "a key without the needed scope is answered 401 instead of 403")(
        _attribute("scope_refusal_status", 401)),
    variant("mark-as-read-by-patch", "mark-as-read is served by PATCH, as the method column says")(
        _mark_read_by_patch),
    variant("bodiless-actions", "activate, pause and deletes answer 204 without a body")(
        on_response(_bodiless_actions)),
    variant("other-error-body", "errors carry {error: {code, detail}}")(on_response(_other_error_body)),
    variant("named-campaign-states", "campaign states are names (draft, running, paused)")(
        on_response(_string_states)),
)
