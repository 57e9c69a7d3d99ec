"""Allowed variants of the affiliate simulator: choices the document leaves open.

Every rule must pass under each (the generic variants of ``conformance.faults.variants`` apply
as well).
"""

from __future__ import annotations

import json
from typing import Any

from conformance.faults.base import (
    FaultySimulator,
    Variant,
    json_edit,
    on_request,
    on_response,
    request_json_edit,
    variant,
)
from conformance.services.affiliate.faults import _REPORT, _answer, _attr, _reverse, _rules, _unzip_any
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


_LINK_IDS = ("network_campaign_id", "network_id", "network_tracking_domain_id", "catch_all_network_offer_id")
_REDIRECT_IDS = ("network_campaign_redirect_id", "redirect_network_offer_id", "redirect_network_offer_url_id")


def _text(value: Any) -> Any:
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _link_with_text_ids(link: Any) -> Any:
    if isinstance(link, dict):
        link.update({k: _text(link[k]) for k in _LINK_IDS if k in link})
        for redirect in link.get("redirects") or []:
            redirect.update({k: _text(redirect[k]) for k in _REDIRECT_IDS if k in redirect})
    return link


def _string_ids(sim: Simulator) -> Simulator:
    # Smart-link and redirect id types are not shown (gap untyped-members): strings here, in
    # answers and in the bodies it takes back.
    def before(request: Request) -> Request:
        if request.path.startswith("/v1/networks/campaigns") and request.body:
            request.body = json_edit(request.body, _link_with_int_ids)
        return request

    def after(request: Request, response: Response) -> Response:
        if request.path.startswith("/v1/networks/campaigns") and response.status in (200, 201):
            def edit(body: Any) -> Any:
                if isinstance(body, dict) and "campaigns" in body:
                    body["campaigns"] = [_link_with_text_ids(c) for c in body["campaigns"]]
                    return body
                return _link_with_text_ids(body)
            response.body = json_edit(response.body, edit)
        return response

    return FaultySimulator(sim, before=before, after=after)  # type: ignore[return-value]


def _number(value: Any) -> Any:
    return int(value) if isinstance(value, str) and value.isdigit() else value


def _link_with_int_ids(link: Any) -> Any:
    if isinstance(link, dict):
        link.update({k: _number(link[k]) for k in _LINK_IDS if k in link})
        for redirect in link.get("redirects") or []:
            if isinstance(redirect, dict):
                redirect.update({k: _number(redirect[k]) for k in _REDIRECT_IDS if k in redirect})
    return link


def _text_cards(request: Request, response: Response) -> Response:
    # Card value types are not shown: decimal strings here.
    if request.path == "/v1/affiliates/dashboard/summary" and response.status == 200:
        def edit(body: Any) -> Any:
            return {k: {n: f"{float(v):.2f}" for n, v in card.items()} for k, card in body.items()}
        response.body = json_edit(response.body, edit)
    return response


def _text_click_times(request: Request, response: Response) -> Response:
    # Click times are untyped by the document: strings here, in click rows and report rows.
    if response.status == 200 and request.path in ("/v1/affiliates/reporting/clicks/stream", _REPORT):
        def edit(body: Any) -> Any:
            for click in body.get("clicks", []):
                click["unix_timestamp"] = _text(click.get("unix_timestamp"))
            for row in body.get("conversions", []):
                row["click_unix_timestamp"] = _text(row.get("click_unix_timestamp"))
            return body
        response.body = json_edit(response.body, edit)
    return response


def _lenient(request: Request) -> bool:
    return request.method == "POST" and request.path in (_REPORT + "/email", "/v1/networks/uploads/temp")


def _lenient_bodies(sim: Simulator) -> Simulator:
    def before_upload(body: dict[str, Any]) -> dict[str, Any]:
        body.setdefault("mime_type", "application/octet-stream")
        body.setdefault("content_base64", "")
        return body

    def before_email(body: dict[str, Any]) -> dict[str, Any]:
        body.setdefault("email", "nobody@affiliate.invalid")
        return body

    sim = request_json_edit(lambda r: _lenient(r) and r.path.endswith("/email"), before_email, b"{}")(sim)
    return request_json_edit(lambda r: _lenient(r) and r.path.endswith("/temp"), before_upload, b"{}")(sim)


def _other_paging_members(sim: Simulator) -> Simulator:
    # Gap request-paging: the request's paging members are {number, size}; page and page_size
    # there are ignored (the response keeps its documented page, page_size, total_count).
    def before(request: Request) -> Request:
        if request.method == "POST" and request.path == _REPORT and request.body:
            try:
                body = json.loads(request.body)
            except ValueError:
                return request
            paging = body.get("paging") if isinstance(body, dict) else None
            if isinstance(paging, dict):
                body["paging"] = {k: v for k, v in (("page", paging.get("number")), ("page_size", paging.get("size")))
                                  if v is not None}
                request.body = json.dumps(body).encode()
        return request

    wrapped = FaultySimulator(sim, before=before)
    # The target's settings say so, as a user would set CONFORMANCE_AFFILIATE_REPORT_PAGE_MEMBER.
    wrapped.credentials = {**sim.credentials, "REPORT_PAGE_MEMBER": "number",  # type: ignore[attr-defined]
                           "REPORT_PAGE_SIZE_MEMBER": "size"}
    return wrapped  # type: ignore[return-value]


VARIANTS: list[Variant] = [
    variant("other-paging-members", "the report's request paging members are number and size")(
        _other_paging_members),
    # Gap upload-use: "used once" does not say its url can be read only once (the use may be an
    # import by an endpoint not shown): the url stays readable.
    variant("temp-url-readable-twice", "a temporary file's url can be read more than once")(_attr(single_use=False)),
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
    variant("old-from-clipped", "a report from before the previous 365 days is served from the window's start")(
        _rules(clip_old_from=True)),
    variant("zero-based-pages", "report pages are counted from 0")(_rules(first_page=0)),
    variant("raw-clicks-kept-longer", "raw clicks are kept about 13 months, not 3")(_rules(click_keep_days=400)),
    variant("string-ids", "smart-link and redirect ids are strings")(_string_ids),
    variant("text-card-values", "dashboard card values are decimal strings")(on_response(_text_cards)),
    variant("text-click-times", "click times are strings in click rows and report rows")(
        on_response(_text_click_times)),
    variant("put-requires-all-fields", "a PUT omitting a field is refused 400 (all fields must be sent)")(
        _attr(put_requires_all=True)),
    variant("unzip-any-mime", "unzip takes any mime_type and unzips the archive")(on_request(_unzip_any)),
    variant("lenient-bodies", "the email endpoint and the upload take defaults for missing members")(_lenient_bodies),
]
