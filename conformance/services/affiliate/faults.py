"""Faults of the affiliate simulator: each makes it break one documented rule.

Most patch one of the simulator's own numbers or switches (``sim.rules``); the rest
rewrite a request before the simulator sees it or a response after.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.faults.base import Fault, fault, on_response
from conformance.faults.toolkit import operation, request_body, response_body, status
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

_REPORT = "/v1/networks/reporting/conversions"
_CAMPAIGNS = "/v1/networks/campaigns"


def _rules(**values: Any) -> Callable[[Simulator], Simulator]:
    def apply(sim: Simulator) -> Simulator:
        for name, value in values.items():
            setattr(sim.rules, name, value)  # type: ignore[attr-defined]
        return sim
    return apply


def _routing_value(body: dict[str, Any]) -> dict[str, Any]:
    for redirect in body.get("redirects") or []:
        if isinstance(redirect, dict):
            redirect.setdefault("routing_value", 1)
    return body


def _zip_compressed_refused(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "mime_type": "text/plain"} if body.get("mime_type") == "application/x-zip-compressed" else body


def _trending_on_cvr(body: Any) -> Any:
    body["cvr"]["trending_percentage"] = 0.0
    return body


def _lose_name(body: Any) -> Any:
    body["campaign_name"] = "Untitled"
    return body


def _labels_text(body: Any) -> Any:
    # labels is a string array by the document; a comma-joined string breaks it.
    for link in body.get("campaigns", []):
        link["labels"] = ",".join(link.get("labels") or [])
    return body


def _old_from_crashes(request: Request, response: Response) -> Response:
    # A from before the window crashes instead of being refused or clipped.
    if request.path == _REPORT and response.status == 400 and b"previous 365" in response.body:
        return Response.json_response(500, {"message": "internal error"})
    return response


def _first_page_misstated(request: Request, body: Any) -> Any:
    # An answer to a request naming no page states page 2 while serving the first.
    paging = (json.loads(request.body or b"{}") or {}).get("paging") or {}
    if isinstance(paging, dict) and "page" not in paging:
        return {**body, "paging": {**body["paging"], "page": 2}}
    return body


def _empty_upload_ill_formed(request: Request, response: Response) -> Response:
    # Whatever the answer to an upload without members, a body declared JSON must be JSON.
    if request.path == "/v1/networks/uploads/temp" and request.body.strip() == b"{}":
        response.body = response.body[: len(response.body) // 2]
    return response


FAULTS: list[Fault] = [
    fault("window-unbounded", "a from before the previous 365 days is served with its old rows")(
        _rules(window_days=100_000)),
    fault("old-from-500", "a from before the window crashes (500)")(
        on_response(_old_from_crashes)),
    fault("first-page-misstated", "the answer without a page number states page 2")(
        response_body(operation("POST", _REPORT), _first_page_misstated, with_request=True)),
    fault("filters-one-type-anded", "filters of one type combine with AND")(
        _rules(same_type=all)),
    fault("filters-two-types-ored", "filters of different types combine with OR")(
        _rules(across_types=any)),
    fault("conversion-other-row", "an id fetches the next conversion")(_rules(conversion_shift=1)),
    fault("email-oldest-100", "the email endpoint gives the oldest 100 of the year")(_rules(email_latest=False)),
    fault("converted-clicks-purged", "clicks with conversions go after 3 months")(_rules(converted_kept=False)),
    fault("trending-on-cvr", "cvr carries trending_percentage")(
        response_body(operation("POST", "/v1/affiliates/dashboard/summary"), _trending_on_cvr)),
    fault("zip-compressed-refused",
          "unzip refuses application/x-zip-compressed")(
        request_body(operation("POST", "/v1/networks/uploads/temp"), _zip_compressed_refused)),
    fault("priority-without-routing-value",
          "priority routing without routing_value is accepted")(
        request_body(operation("POST", _CAMPAIGNS), _routing_value)),
    fault("created-name-lost", "the create answer renames the smart link")(
        response_body(operation("POST", _CAMPAIGNS), _lose_name)),
    fault("list-labels-as-text", "the list gives labels as one string")(
        response_body(operation("GET", _CAMPAIGNS), _labels_text)),
    fault("empty-upload-answer-ill-formed",
          "the answer to an upload without members is truncated JSON")(on_response(_empty_upload_ill_formed)),
    fault("put-refused", "every PUT, even one with all fields, is refused")(
        status(operation("PUT", _CAMPAIGNS + "/{campaign_id}"), 400, when=200,
               body={"message": "smart links cannot be replaced"})),
]
