"""Allowed variants of the affiliate simulator: choices the document leaves open.

Every rule must pass under each (the generic variants of ``conformance.faults.variants`` apply
as well).
"""

from __future__ import annotations

import json
from typing import Any

from conformance.faults.base import Variant, on_response, variant
from conformance.faults.toolkit import operation, path, request_body, response_body, status
from conformance.services.affiliate.faults import _REPORT, _attr, _reverse, _rules
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]

_UPLOAD = "/v1/networks/uploads/temp"
_DASHBOARD = "/v1/affiliates/dashboard/summary"


def _ndjson_as_json(request: Request, response: Response) -> Response:
    # The export's media types are not shown.
    if request.path.endswith("/conversions/export") and response.headers.get("content-type") == "application/x-ndjson":
        response.headers = {**response.headers, "content-type": "application/json"}
    return response


def _other_file_urls(body: Any) -> Any:
    """Upload urls of another shape and names (not shown): /files/<token>?sig=..., named file-N."""
    for number, item in enumerate(body["urls"]):
        item["url"] = item["url"] + "?sig=conformance"
        item["name"] = f"file-{number}"
    return body


def _archive_kept(sim: Simulator) -> Simulator:
    """The email endpoint keeps conversions older than a year (it "may" omit them)."""
    def edit(request: Request, body: Any) -> Any:
        email = json.loads(request.body).get("email")
        rows = sorted((r for r in sim.data.conversions if r["email"] == email),  # type: ignore[attr-defined]
                      key=lambda r: -r["conversion_unix_timestamp"])
        return {"conversions": rows[:100]}
    return response_body(operation("POST", _REPORT + "/email"), edit, with_request=True)(sim)


def _integer_cards(body: Any) -> Any:
    # Card values are numbers; whole ones may come as JSON integers.
    return {k: {n: int(v) if float(v).is_integer() else v for n, v in card.items()} for k, card in body.items()}


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


def _links_with_text_ids(body: Any) -> Any:
    if isinstance(body, dict) and "campaigns" in body:
        body["campaigns"] = [_link_with_text_ids(c) for c in body["campaigns"]]
        return body
    return _link_with_text_ids(body)


def _string_ids(sim: Simulator) -> Simulator:
    # Smart-link and redirect id types are not shown (gap untyped-members): strings here, in
    # answers and in the bodies it takes back.
    links = path("^/v1/networks/campaigns")
    sim = response_body(links, _links_with_text_ids, statuses=(200, 201))(sim)
    return request_body(links, _link_with_int_ids)(sim)


def _number(value: Any) -> Any:
    return int(value) if isinstance(value, str) and value.isdigit() else value


def _link_with_int_ids(link: Any) -> Any:
    if isinstance(link, dict):
        link.update({k: _number(link[k]) for k in _LINK_IDS if k in link})
        for redirect in link.get("redirects") or []:
            if isinstance(redirect, dict):
                redirect.update({k: _number(redirect[k]) for k in _REDIRECT_IDS if k in redirect})
    return link


def _text_cards(body: Any) -> Any:
    # Card value types are not shown: decimal strings here.
    return {k: {n: f"{float(v):.2f}" for n, v in card.items()} for k, card in body.items()}


def _text_click_times(body: Any) -> Any:
    # Click times are untyped by the document: strings here, in click rows and report rows.
    for click in body.get("clicks", []):
        click["unix_timestamp"] = _text(click.get("unix_timestamp"))
    for row in body.get("conversions", []):
        row["click_unix_timestamp"] = _text(row.get("click_unix_timestamp"))
    return body


def _click_or_report(request: Request) -> bool:
    return request.path in ("/v1/affiliates/reporting/clicks/stream", _REPORT)


def _unzip_asked(request: Request) -> bool:
    return request.path == _UPLOAD and ("unzip", "true") in request.query


def _lenient_bodies(sim: Simulator) -> Simulator:
    def before_upload(body: dict[str, Any]) -> dict[str, Any]:
        body.setdefault("mime_type", "application/octet-stream")
        body.setdefault("content_base64", "")
        return body

    def before_email(body: dict[str, Any]) -> dict[str, Any]:
        body.setdefault("email", "nobody@affiliate.invalid")
        return body

    sim = request_body(operation("POST", _REPORT + "/email"), before_email, b"{}")(sim)
    return request_body(operation("POST", _UPLOAD), before_upload, b"{}")(sim)


def _number_and_size(body: dict[str, Any]) -> dict[str, Any]:
    paging = body.get("paging")
    if isinstance(paging, dict):
        body["paging"] = {k: v for k, v in (("page", paging.get("number")), ("page_size", paging.get("size")))
                          if v is not None}
    return body


def _other_paging_members(sim: Simulator) -> Simulator:
    # Gap request-paging: the request's paging members are {number, size}; page and page_size
    # there are ignored (the response keeps its documented page, page_size, total_count).
    wrapped = request_body(operation("POST", _REPORT), _number_and_size)(sim)
    # The target's settings say so, as a user would set CONFORMANCE_AFFILIATE_REPORT_PAGE_MEMBER.
    wrapped.credentials = {**sim.credentials, "REPORT_PAGE_MEMBER": "number",  # type: ignore[misc]
                           "REPORT_PAGE_SIZE_MEMBER": "size"}
    return wrapped


VARIANTS: list[Variant] = [
    variant("other-paging-members", "the report's request paging members are number and size")(
        _other_paging_members),
    # Gap upload-use: "used once" does not say its url can be read only once (the use may be an
    # import by an endpoint not shown): the url stays readable.
    variant("temp-url-readable-twice", "a temporary file's url can be read more than once")(_attr(single_use=False)),
    # "at most the latest 100" names which conversions, not their order (gap email-order).
    variant("email-oldest-first", "the conversions of an email come oldest first")(
        response_body(operation("POST", _REPORT + "/email"), _reverse("conversions"))),
    # "span at most one year" read as a calendar year (366 days when it holds 29 February).
    variant("one-calendar-year", "the conversion window and span read as one calendar year")(
        _rules(calendar_year=True)),
    # The report's row order is not documented.
    variant("report-oldest-first", "report rows oldest first")(_rules(newest_first=False)),
    # The create's success status is not shown.
    variant("create-answers-201", "smart-link create answers 201 with the smart link")(
        status(operation("POST", "/v1/networks/campaigns"), 201, when=200)),
    variant("ndjson-as-application-json", "the json export served as application/json")(on_response(_ndjson_as_json)),
    variant("other-upload-urls", "upload urls with a query and other names")(
        response_body(operation("POST", _UPLOAD), _other_file_urls)),
    variant("email-keeps-archive", "the email endpoint also gives conversions older than a year")(_archive_kept),
    # An unknown (well-formed) conversion id answered 400 rather than 404 (not shown).
    variant("unknown-conversion-400", "an unknown conversion id is answered 400")(
        status(path("/reporting/conversions/", "GET"), 400, when=404)),
    variant("integer-card-values", "whole dashboard values as JSON integers")(
        response_body(operation("POST", _DASHBOARD), _integer_cards)),
    variant("old-from-clipped", "a report from before the previous 365 days is served from the window's start")(
        _rules(clip_old_from=True)),
    variant("zero-based-pages", "report pages are counted from 0")(_rules(first_page=0)),
    variant("raw-clicks-kept-longer", "raw clicks are kept about 13 months, not 3")(_rules(click_keep_days=400)),
    variant("string-ids", "smart-link and redirect ids are strings")(_string_ids),
    variant("text-card-values", "dashboard card values are decimal strings")(
        response_body(operation("POST", _DASHBOARD), _text_cards)),
    variant("text-click-times", "click times are strings in click rows and report rows")(
        response_body(_click_or_report, _text_click_times)),
    variant("put-requires-all-fields", "a PUT omitting a field is refused 400 (all fields must be sent)")(
        _attr(put_requires_all=True)),
    variant("unzip-any-mime", "unzip takes any mime_type and unzips the archive")(
        request_body(_unzip_asked, lambda body: {**body, "mime_type": "application/zip"})),
    variant("lenient-bodies", "the email endpoint and the upload take defaults for missing members")(_lenient_bodies),
]
