"""Faults of the marketplace simulator: each makes it break one documented rule.

Most are wrappers that rewrite a request before the simulator sees it or a response after it;
the ones of the bearer check patch the simulator's OAuth server (``authenticate``), the smallest
change that makes the server wrong in exactly one way. The OAuth flow's faults are in
oauth_faults.py; the paths and the query rewrite here are shared with it and the variants.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from conformance.faults.base import Fault, fault, on_request
from conformance.faults.toolkit import path, response_body, status
from conformance.services.marketplace.oauth_server import SCOPES, Grant
from conformance.services.marketplace.simulator import APP, SIM_CLIENT_ID, SIM_USER_ID
from conformance.simulators import Simulator
from conformance.transport.model import Request

__all__ = ["CREATE_LISTING", "DELETE_IMAGE", "FAULTS", "FOREVER", "GET_LISTINGS", "OK", "with_query"]

LISTINGS = APP + "/listings"
_RECEIPTS_RE = r"^/v3/application/shop/[^/]+/receipts$"
_RECEIPTS = path(_RECEIPTS_RE)
GET_LISTINGS = path(f"^{LISTINGS}$", "GET")  # getListingsByShop
CREATE_LISTING = path(r"^/v3/application/shop/[^/]+/listings$", "POST")  # createDraftListing
DELETE_IMAGE = path(r"^/v3/application/shop/[^/]+/listings/[^/]+/images/[^/]+$", "DELETE")  # deleteListingImage
_ANY_GET = path("", "GET")
OK = range(200, 300)
FOREVER = 10.0 ** 12


def with_query(request: Request, edit: Callable[[dict[str, str]], dict[str, str]]) -> Request:
    """The request with its query string rewritten by ``edit`` (one value a name)."""
    request.query = list(edit(dict(request.query)).items())
    return request




# -- keys and bearer tokens -------------------------------------------------------------------
def _patch_authenticate(sim: Simulator, wrap: Callable[[Any], Callable[[str | None, str], Grant]]) -> Simulator:
    oauth = sim.oauth  # type: ignore[attr-defined]
    oauth.authenticate = wrap(oauth.authenticate)
    return sim


def _bearer_optional(sim: Simulator) -> Simulator:
    def wrap(real: Callable[[str | None, str], Grant]) -> Callable[[str | None, str], Grant]:
        def authenticate(authorization: str | None, app_key: str) -> Grant:
            if not authorization:  # no token: served as the seeded user
                return Grant(SIM_USER_ID, SIM_CLIENT_ID, SCOPES, FOREVER)
            return real(authorization, app_key)
        return authenticate
    return _patch_authenticate(sim, wrap)


def _trust_user_prefix(sim: Simulator) -> Simulator:
    """Bearer <digits>.<anything> is served as that user: the token itself is never looked up."""
    def wrap(real: Callable[[str | None, str], Grant]) -> Callable[[str | None, str], Grant]:
        def authenticate(authorization: str | None, app_key: str) -> Grant:
            match = re.fullmatch(r"Bearer ([0-9]+)\..+", authorization or "")
            if match is None:
                return real(authorization, app_key)
            return Grant(int(match.group(1)), SIM_CLIENT_ID, SCOPES, FOREVER)
        return authenticate
    return _patch_authenticate(sim, wrap)


# -- paths, bodies, types -------------------------------------------------------------------
def _move_receipts(request: Request) -> Request:
    if _RECEIPTS(request):
        request.path = request.path.replace("/shop/", "/shops/", 1)
    return request










def _first(size: int) -> Callable[[Any], Any]:
    return lambda body: {**body, "results": body["results"][:size]}


def _listings_without_limit(request: Request) -> bool:
    return GET_LISTINGS(request) and "limit" not in request.params


def _with_limit(request: Request) -> bool:
    return any(name == "limit" for name, _ in request.query)


def _count_is_page_size(body: Any) -> Any:
    return {**body, "count": len(body["results"])} if isinstance(body, dict) and "results" in body else body


def _alias_refused(request: Request) -> Request:
    """Neither name of "inactive or edit" is taken by the state filter."""
    if GET_LISTINGS(request) and request.params.get("state") in ("inactive", "edit"):
        request = with_query(request, lambda q: {**q, "state": "zz-not-listed"})
    return request






FAULTS: list[Fault] = [
    fault("inactive-edit-refused",
          "the state filter takes neither inactive nor edit")(on_request(_alias_refused)),
    fault("bearer-optional",
          "a scoped operation without Authorization is served as the seeded user")(_bearer_optional),
    fault("receipts-moved",
          "getShopReceipts is not served at its configured path (served under /shops/ instead)")(
        on_request(_move_receipts)),
    fault("default-limit-20",
          "without limit a page holds 20 records")(
        response_body(_listings_without_limit, _first(20))),
    fault("limit-capped-at-50",
          "a page never holds more than 50 records")(response_body(GET_LISTINGS, _first(50))),
    fault("count-equals-page-size",
          "count is the number of records on the page")(
        response_body(_ANY_GET, _count_is_page_size, OK)),
    # From review: a refresh token refused for reuse must not pass for one refused for age.
    # From review 2: wrong servers that weaker checks passed (or skipped).
    fault("trust-user-prefix",
          "Bearer <user_id>.<anything> is served as that user; the token is never looked up")(_trust_user_prefix),
    fault("count-is-page-size-only",
          "getListingsByShop's count is the number of records on the page")(
        response_body(GET_LISTINGS, _count_is_page_size, OK)),
    fault("limit-param-refused",
          "limit is refused whatever its value")(
        status(_with_limit, 400, body={"error": "limit is not supported"})),
]
