"""Allowed variants of the affiliate simulator: choices the document leaves open.

Every rule must pass under each (the generic variants of ``conformance.faults.variants`` apply
as well).
"""

from __future__ import annotations

import json
from typing import Any

from conformance.faults.base import Variant, json_edit, on_response, variant
from conformance.services.affiliate.faults import _REPORT, _answer, _reverse
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]


def _calendar_year(sim: Simulator) -> Simulator:
    # "span at most one year" read as a calendar year (366 days when it holds 29 February).
    sim.rules.calendar_year = True  # type: ignore[attr-defined]
    return sim


def _oldest_first(sim: Simulator) -> Simulator:
    # The report's row order is not documented.
    sim.rules.newest_first = False  # type: ignore[attr-defined]
    return sim


def _created_201(request: Request, response: Response) -> Response:
    # The create's success status is not shown.
    if request.method == "POST" and request.path == "/v1/networks/campaigns" and response.status == 200:
        response.status = 201
    return response


def _ndjson_as_json(request: Request, response: Response) -> Response:
    # The export's media types are not shown.
    if request.path.endswith("/conversions/export") and response.headers.get("content-type") == "application/x-ndjson":
        response.headers = {**response.headers, "content-type": "application/json"}
    return response


def _other_file_urls(sim: Simulator) -> Simulator:
    """Upload urls of another shape and names (not shown): /files/<token>?sig=..., named file-N."""
    def after(request: Request, response: Response) -> Response:
        if request.path == "/v1/networks/uploads/temp" and response.status == 200:
            def edit(body: Any) -> Any:
                for number, item in enumerate(body["urls"]):
                    item["url"] = item["url"] + "?sig=conformance"
                    item["name"] = f"file-{number}"
                return body
            response.body = json_edit(response.body, edit)
        return response
    return on_response(after)(sim)


def _archive_kept(sim: Simulator) -> Simulator:
    """The email endpoint keeps conversions older than a year (it "may" omit them)."""
    def after(request: Request, response: Response) -> Response:
        if request.path.endswith("/conversions/email") and response.status == 200:
            email = json.loads(request.body).get("email")
            rows = sorted((r for r in sim.data.conversions if r["email"] == email),  # type: ignore[attr-defined]
                          key=lambda r: -r["conversion_unix_timestamp"])
            response.body = json.dumps({"conversions": rows[:100]}).encode()
        return response
    return on_response(after)(sim)


def _unknown_conversion_400(sim: Simulator) -> Simulator:
    """An unknown (well-formed) conversion id answered 400 rather than 404 (not shown)."""
    def after(request: Request, response: Response) -> Response:
        if request.method == "GET" and "/reporting/conversions/" in request.path and response.status == 404:
            response.status = 400
        return response
    return on_response(after)(sim)


def _integer_cards(request: Request, response: Response) -> Response:
    # Card values are numbers; whole ones may come as JSON integers.
    if request.path == "/v1/affiliates/dashboard/summary" and response.status == 200:
        def edit(body: Any) -> Any:
            return {k: {n: int(v) if float(v).is_integer() else v for n, v in card.items()} for k, card in body.items()}
        response.body = json_edit(response.body, edit)
    return response


VARIANTS: list[Variant] = [
    # "at most the latest 100" names which conversions, not their order (gap email-order).
    variant("email-oldest-first", "the conversions of an email come oldest first")(
        _answer("POST", _REPORT + "/email", _reverse("conversions"))),
    variant("one-calendar-year", "the conversion window and span read as one calendar year")(_calendar_year),
    variant("report-oldest-first", "report rows oldest first")(_oldest_first),
    variant("create-answers-201", "smart-link create answers 201 with the smart link")(on_response(_created_201)),
    variant("ndjson-as-application-json", "the json export served as application/json")(on_response(_ndjson_as_json)),
    variant("other-upload-urls", "upload urls with a query and other names")(_other_file_urls),
    variant("email-keeps-archive", "the email endpoint also gives conversions older than a year")(_archive_kept),
    variant("unknown-conversion-400", "an unknown conversion id is answered 400")(_unknown_conversion_400),
    variant("integer-card-values", "whole dashboard values as JSON integers")(on_response(_integer_cards)),
]
