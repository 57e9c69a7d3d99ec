"""Faults for the checks no other marketplace fault fails: each breaks exactly the rule it names
(other rules may fail beside it, as a broken server would show)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from conformance.faults.base import Fault, fault, on_request, on_response
from conformance.services.marketplace.fault_support import (
    _CREATE,
    _RECEIPTS,
    LISTINGS,
    _form,
    _is_listings,
    _is_token,
    _ok_json,
)
from conformance.services.marketplace.oauth_faults import _location_edit
from conformance.services.marketplace.simulator import SIM_CLIENT_ID, SIM_REDIRECT_URI
from conformance.transport.model import Request, Response

__all__ = ["MORE_FAULTS"]

_USER_PREFIXED = re.compile(r"^Bearer [0-9]+\.")


def _user_prefix_refused(request: Request, response: Response) -> Response:
    # The documented Bearer <USER_ID>.<ACCESS_TOKEN> form is refused on getShopReceipts.
    if request.method == "GET" and _RECEIPTS.match(request.path) and _USER_PREFIXED.match(
            request.header("authorization") or ""):
        return Response.json_response(401, {"error": "invalid_token"})
    return response


def _count_as_text(body: Any) -> Any:
    return {**body, "count": str(body["count"])} if isinstance(body, dict) and "count" in body else body


def _capitalised_state(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("results"), list):
        return {**body, "results": [{**r, "state": str(r["state"]).capitalize()} if isinstance(r, dict)
                                    and "state" in r else r for r in body["results"]]}
    return body


def _charset_refused(request: Request, response: Response) -> Response:
    # The documented form content type carries charset=utf-8; this server refuses the parameter.
    if request.method == "POST" and _CREATE.match(request.path) and "charset" in (request.header("content-type") or ""):
        return Response.json_response(415, {"error": "unsupported_media_type"})
    return response


def _token_form_edit(**fills: str) -> Any:
    """Authorization-code token requests get ``fills`` for members that are missing or differ."""
    def before(request: Request) -> Request:
        if _is_token(request, "authorization_code"):
            form = _form(request)
            request.body = urlencode({**form, **fills}).encode()
        return request
    return on_request(before)


def _listings_off_v3(request: Request) -> Request:
    # getListingsByShop is served under /application/listings, not under /v3.
    if _is_listings(request):
        request.path = LISTINGS + "-not-here"
    elif request.method == "GET" and request.path == LISTINGS.removeprefix("/v3"):
        request.path = LISTINGS
    return request


MORE_FAULTS: list[Fault] = [
    fault("user-prefix-refused",
          "Bearer <USER_ID>.<ACCESS_TOKEN> is refused on getShopReceipts")(on_response(_user_prefix_refused)),
    fault("count-as-text",
          "a collection's count is a string")(_ok_json(lambda r: r.method == "GET", _count_as_text)),
    fault("redirect-without-code",
          "a granted authorization redirects back without the code")(
        _location_edit(lambda q: {k: v for k, v in q.items() if k != "code"})),
    fault("form-charset-refused",
          "createDraftListing refuses the form content type with charset=utf-8 (415)")(
        on_response(_charset_refused)),
    fault("state-capitalised",
          "listings show their state capitalised (Active), outside the list")(
        _ok_json(_is_listings, _capitalised_state)),
    fault("client-id-optional",
          "the token request without client_id is served as the application's")(
        _token_form_edit(client_id=SIM_CLIENT_ID)),
    fault("redirect-uri-not-compared",
          "the token request's redirect_uri is not compared with the authorization request's")(
        _token_form_edit(redirect_uri=SIM_REDIRECT_URI)),
    fault("listings-off-v3",
          "getListingsByShop is served without /v3")(on_request(_listings_off_v3)),
]
