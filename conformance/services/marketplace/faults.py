"""Faults of the marketplace simulator: each makes it break one documented rule.

Most are wrappers that rewrite a request before the simulator sees it or a response after it;
the OAuth ones (``marketplace_oauth``) patch the simulator's OAuth server (its codes, grants or
``authenticate``), the smallest change that makes the server wrong in exactly one way.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes, urlencode

from conformance.faults.base import Fault, fault, json_edit, on_request, on_response
from conformance.services.marketplace.fault_support import (
    _CREATE,
    _FOREVER,
    _IMAGE,
    _RECEIPTS,
    APP,
    _is_listings,
    _ok_json,
    _query,
    _results,
)
from conformance.services.marketplace.more_faults import MORE_FAULTS
from conformance.services.marketplace.oauth_faults import OAUTH_FAULTS
from conformance.services.marketplace.oauth_server import SCOPES, Grant
from conformance.services.marketplace.simulator import SIM_CLIENT_ID, SIM_SHARED_SECRET, SIM_USER_ID
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]


# -- keys and bearer tokens -------------------------------------------------------------------
def _add_secret(request: Request) -> Request:
    key = request.header("x-api-key")
    if key is not None and ":" not in key:
        request.headers["x-api-key"] = f"{key}:{SIM_SHARED_SECRET}"
    return request


def _patch_authenticate(sim: Simulator, wrap: Callable[[Any], Callable[[str | None, str], Grant]]) -> Simulator:
    oauth = sim.oauth  # type: ignore[attr-defined]
    oauth.authenticate = wrap(oauth.authenticate)
    return sim


def _bearer_optional(sim: Simulator) -> Simulator:
    def wrap(real: Callable[[str | None, str], Grant]) -> Callable[[str | None, str], Grant]:
        def authenticate(authorization: str | None, app_key: str) -> Grant:
            if not authorization:  # no token: served as the seeded user
                return Grant(SIM_USER_ID, SIM_CLIENT_ID, SCOPES, _FOREVER)
            return real(authorization, app_key)
        return authenticate
    return _patch_authenticate(sim, wrap)


def _all_scopes(sim: Simulator) -> Simulator:
    def wrap(real: Callable[[str | None, str], Grant]) -> Callable[[str | None, str], Grant]:
        return lambda authorization, app_key: dataclasses.replace(real(authorization, app_key), scopes=SCOPES)
    return _patch_authenticate(sim, wrap)


def _trust_user_prefix(sim: Simulator) -> Simulator:
    """Bearer <digits>.<anything> is served as that user: the token itself is never looked up."""
    def wrap(real: Callable[[str | None, str], Grant]) -> Callable[[str | None, str], Grant]:
        def authenticate(authorization: str | None, app_key: str) -> Grant:
            match = re.fullmatch(r"Bearer ([0-9]+)\..+", authorization or "")
            if match is None:
                return real(authorization, app_key)
            return Grant(int(match.group(1)), SIM_CLIENT_ID, SCOPES, _FOREVER)
        return authenticate
    return _patch_authenticate(sim, wrap)


# -- paths, bodies, types -------------------------------------------------------------------
def _move_receipts(request: Request) -> Request:
    if _RECEIPTS.match(request.path):
        request.path = request.path.replace("/shop/", "/shops/", 1)
    return request


def _ids_from_headers(request: Request) -> Request:
    if request.method == "DELETE" and request.path == APP + "/shop/listings/images":
        ids = [request.header(n) for n in ("shop_id", "listing_id", "listing_image_id")]
        if all(ids):
            request.path = f"{APP}/shop/{ids[0]}/listings/{ids[1]}/images/{ids[2]}"
    return request


def _delete_again(status: int) -> Callable[[Request, Response], Response]:
    """Deleting an image that is gone answers ``status`` (a success, or a crash) instead of a 4xx."""
    def after(request: Request, response: Response) -> Response:
        if request.method == "DELETE" and _IMAGE.match(request.path) and response.status == 404:
            return Response(204) if status == 204 else Response.json_response(status, {"error": "internal error"})
        return response
    return after


def _form_latin1(request: Request) -> Request:
    """createDraftListing decodes its UTF-8 form as latin-1: the mojibake is stored, 201 answered."""
    if request.method == "POST" and _CREATE.match(request.path):
        pairs = parse_qsl(request.body.decode("ascii", "replace"), keep_blank_values=True, encoding="latin-1")
        request.body = urlencode(pairs).encode("utf-8")
    return request


def _non_ascii_refused(request: Request, response: Response) -> Response:
    if request.method == "POST" and any(b >= 0x80 for b in unquote_to_bytes(request.body)):
        return Response.json_response(400, {"error": "invalid_request", "error_description": "ASCII only"})
    return response


def _latin1(request: Request, response: Response) -> Response:
    if response.is_json:
        response.headers["content-type"] = "application/json; charset=iso-8859-1"
    return response


def _truncate_fractions(request: Request) -> Request:
    return _query(request, lambda q: {k: (v.split(".")[0] if k in ("limit", "offset") and re.fullmatch(r"\d+\.\d+", v)
                                           else v) for k, v in q.items()})


def _shift_offset(request: Request) -> Request:
    return _query(request, lambda q: {**q, "offset": str(int(q["offset"]) - 1)}
                  if _is_listings(request) and q.get("offset", "0").isdigit() and int(q.get("offset", "0")) > 0 else q)


def _offset_default_one(request: Request) -> Request:
    """Without offset, getListingsByShop starts at the second record."""
    return _query(request, lambda q: {**q, "offset": "1"} if _is_listings(request) and "offset" not in q else q)


def _page_cut(size: int, only_without_limit: bool) -> Callable[[Request, Response], Response]:
    def after(request: Request, response: Response) -> Response:
        if _is_listings(request) and response.status == 200 and not (only_without_limit and "limit" in request.params):
            response.body = json_edit(response.body, lambda b: {**b, "results": b["results"][:size]})
        return response
    return after


def _limit_refused(request: Request, response: Response) -> Response:
    """The limit parameter is refused whatever its value."""
    if any(name == "limit" for name, _ in request.query):
        return Response.json_response(400, {"error": "limit is not supported"})
    return response


def _count_is_page_size(body: Any) -> Any:
    return {**body, "count": len(body["results"])} if isinstance(body, dict) and "results" in body else body


def _negative_offset_500(request: Request, response: Response) -> Response:
    if request.params.get("offset", "").startswith("-"):
        return Response.json_response(500, {"message": "internal error"})
    return response


def _state_accepted(*taken: str) -> Callable[[Request], Request]:
    """getListingsByShop takes ``taken`` (values off the list) as if the state were active."""
    def before(request: Request) -> Request:
        if _is_listings(request) and request.params.get("state") in taken:
            request = _query(request, lambda q: {**q, "state": "active"})
        return request
    return before


def _alias_refused(request: Request) -> Request:
    """Neither name of "inactive or edit" is taken by the state filter."""
    if _is_listings(request) and request.params.get("state") in ("inactive", "edit"):
        request = _query(request, lambda q: {**q, "state": "zz-not-listed"})
    return request


FAULTS: list[Fault] = [
    fault("removed-state-accepted",
          "state=removed (a real-world state the list leaves out) is taken")(on_request(_state_accepted("removed"))),
    fault("inactive-edit-refused",
          "the state filter takes neither inactive nor edit")(on_request(_alias_refused)),
    fault("keystring-alone-accepted",
          "x-api-key without the shared secret is accepted")(on_request(_add_secret)),
    fault("bearer-optional",
          "a scoped operation without Authorization is served as the seeded user")(_bearer_optional),
    fault("scope-not-enforced",
          "every token may do everything, whatever scopes it was granted")(_all_scopes),
    fault("receipts-moved",
          "getShopReceipts is not served at its configured path (served under /shops/ instead)")(
        on_request(_move_receipts)),
    fault("ids-from-headers",
          "deleteListingImage takes its ids from headers when the path lacks them")(on_request(_ids_from_headers)),
    fault("receipts-without-count",
          "getShopReceipts answers with its records but no count")(
        _ok_json(lambda r: r.method == "GET" and bool(_RECEIPTS.match(r.path)),
                 lambda b: {k: v for k, v in b.items() if k != "count"})),
    fault("non-ascii-form-refused",
          "a UTF-8 form with non-ASCII text is refused")(on_response(_non_ascii_refused)),
    fault("latin1-charset",
          "JSON bodies declare charset=iso-8859-1")(on_response(_latin1)),
    fault("fractional-limit-truncated",
          "limit=25.5 is read as 25")(on_request(_truncate_fractions)),
    fault("numbers-as-json-numbers",
          "item_weight is returned as a JSON number")(
        _ok_json(_is_listings, _results(lambda i: i.update(item_weight=float(i["item_weight"]))))),
    fault("default-limit-20",
          "without limit a page holds 20 records")(on_response(_page_cut(20, True))),
    fault("offset-default-one",
          "without offset the page starts at the second record")(on_request(_offset_default_one)),
    fault("limit-capped-at-50",
          "a page never holds more than 50 records")(on_response(_page_cut(50, False))),
    fault("count-equals-page-size",
          "count is the number of records on the page")(
        _ok_json(lambda r: r.method == "GET", _count_is_page_size)),
    fault("pages-overlap",
          "every page after the first starts one record early")(on_request(_shift_offset)),
    fault("unlisted-receipt-status",
          "canceled receipts show status 'refunded'")(
        _ok_json(lambda r: bool(_RECEIPTS.match(r.path)),
                 _results(lambda i: i.update(status="refunded") if i.get("status") == "canceled" else None))),
    fault("state-filter-ignored",
          "state=draft lists active listings")(on_request(lambda r: _query(
              r, lambda q: {**q, "state": "active"} if q.get("state") == "draft" else q))),
    fault("active-without-quantity",
          "active listings show quantity 0")(
        _ok_json(_is_listings, _results(lambda i: i.update(quantity=0) if i.get("state") == "active" else None))),
    fault("money-without-divisor",
          "a listing's price has no divisor")(
        _ok_json(_is_listings, _results(lambda i: i.get("price", {}).pop("divisor", None)))),
    fault("negative-offset-500",
          "a negative offset crashes the service with 500")(on_response(_negative_offset_500)),
    # From review: a refresh token refused for reuse must not pass for one refused for age.
    # From review 2: wrong servers that weaker checks passed (or skipped).
    fault("trust-user-prefix",
          "Bearer <user_id>.<anything> is served as that user; the token is never looked up")(_trust_user_prefix),
    fault("form-latin1-garbled",
          "createDraftListing decodes its UTF-8 form as latin-1 and stores the mojibake")(on_request(_form_latin1)),
    fault("count-is-page-size-only",
          "getListingsByShop's count is the number of records on the page")(
        _ok_json(_is_listings, _count_is_page_size)),
    fault("delete-again-500",
          "deleting an image that is gone crashes with 500")(on_response(_delete_again(500))),
    fault("limit-param-refused",
          "limit is refused whatever its value")(on_response(_limit_refused)),
] + OAUTH_FAULTS + MORE_FAULTS
