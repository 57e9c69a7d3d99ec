"""Allowed variants of the affiliate simulator: choices the document leaves open.

Every rule must pass under each (the generic variants of ``conformance.faults.variants`` apply
as well).
"""

from __future__ import annotations

from typing import Any

from conformance.faults.base import Variant, variant
from conformance.faults.toolkit import operation, request_body, response_body
from conformance.services.affiliate.faults import _REPORT, _rules
from conformance.simulators import Simulator
from conformance.transport.model import Request

__all__ = ["VARIANTS"]

_UPLOAD = "/v1/networks/uploads/temp"


def _other_file_urls(body: Any) -> Any:
    """Upload urls of another shape and names (not shown): /files/<token>?sig=..., named file-N."""
    for number, item in enumerate(body["urls"]):
        item["url"] = item["url"] + "?sig=conformance"
        item["name"] = f"file-{number}"
    return body


def _unzip_asked(request: Request) -> bool:
    return request.path == _UPLOAD and ("unzip", "true") in request.query


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
    variant("temp-url-readable-twice", "a temporary file's url can be read more than once")(_rules(single_use=False)),
    # "span at most one year" read as a calendar year (366 days when it holds 29 February).
    variant("one-calendar-year", "the conversion window and span read as one calendar year")(
        _rules(calendar_year=True)),
    # The report's row order is not documented.
    variant("report-oldest-first", "report rows oldest first")(_rules(newest_first=False)),
    variant("other-upload-urls", "upload urls with a query and other names")(
        response_body(operation("POST", _UPLOAD), _other_file_urls)),
    variant("email-keeps-archive", "the email endpoint also gives conversions older than a year")(
        _rules(email_archive_days=100_000)),
    variant("old-from-clipped", "a report from before the previous 365 days is served from the window's start")(
        _rules(clip_old_from=True)),
    variant("zero-based-pages", "report pages are counted from 0")(_rules(first_page=0)),
    variant("raw-clicks-kept-longer", "raw clicks are kept about 13 months, not 3")(_rules(click_keep_days=400)),
    variant("put-requires-all-fields", "a PUT omitting a field is refused 400 (all fields must be sent)")(
        _rules(put_requires_all=True)),
    variant("unzip-any-mime", "unzip takes any mime_type and unzips the archive")(
        request_body(_unzip_asked, lambda body: {**body, "mime_type": "application/zip"})),
]
