"""Faults of the marketplace simulator: each makes it break one documented rule.

Most are wrappers that rewrite a request before the simulator sees it or a response after it;
the OAuth ones patch the simulator's OAuth server (its codes, grants or ``authenticate``), the
smallest change that makes the server wrong in exactly one way.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes, urlencode

from conformance.faults.base import Fault, FaultySimulator, fault, json_edit, on_request, on_response
from conformance.simulators import Simulator
from conformance.simulators.marketplace import SIM_CLIENT_ID, SIM_SHARED_SECRET, SIM_USER_ID
from conformance.simulators.marketplace_oauth import SCOPES, Grant, pkce_challenge
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

APP = "/v3/application"
LISTINGS = APP + "/listings"
TOKEN = "/v3/public/oauth/token"
CONNECT = "/oauth/connect"
_RECEIPTS = re.compile(r"^/v3/application/shop/[^/]+/receipts$")
_CREATE = re.compile(r"^/v3/application/shop/[^/]+/listings$")
_IMAGE = re.compile(r"^/v3/application/shop/[^/]+/listings/[^/]+/images/[^/]+$")
_FOREVER = 10.0 ** 12


def _query(request: Request, edit: Callable[[dict[str, str]], dict[str, str]]) -> Request:
    request.query = list(edit(dict(request.query)).items())
    return request


def _form(request: Request) -> dict[str, str]:
    try:
        return dict(parse_qsl(request.body.decode("utf-8"), keep_blank_values=True))
    except UnicodeDecodeError:
        return {}


def _ok_json(pred: Callable[[Request], bool], edit: Callable[[Any], Any]) -> Callable[[Simulator], Simulator]:
    """Edit the JSON body of 2xx responses to requests ``pred`` selects."""
    def after(request: Request, response: Response) -> Response:
        if pred(request) and 200 <= response.status < 300:
            response.body = json_edit(response.body, edit)
        return response
    return on_response(after)


def _results(edit: Callable[[dict[str, Any]], None]) -> Callable[[Any], Any]:
    def run(body: Any) -> Any:
        for item in body.get("results", []) if isinstance(body, dict) else []:
            edit(item)
        return body
    return run


def _is_listings(request: Request) -> bool:
    return request.method == "GET" and request.path == LISTINGS


def _is_token(request: Request, grant: str | None = None) -> bool:
    return request.path == TOKEN and (grant is None or _form(request).get("grant_type") == grant)


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


def _grants(attr: str, pred: Callable[[Request], bool]) -> Callable[[Simulator], Simulator]:
    """After matching requests, every grant in ``sim.oauth.<attr>`` lives (practically) forever."""
    def apply(sim: Simulator) -> Simulator:
        def after(request: Request, response: Response) -> Response:
            table = getattr(sim.oauth, attr)  # type: ignore[attr-defined]
            for key, grant in table.items():
                table[key] = dataclasses.replace(grant, expires=_FOREVER)
            return response
        return FaultySimulator(sim, after=lambda req, resp: after(req, resp) if pred(req) else resp)  # type: ignore[return-value]
    return apply


# -- OAuth ----------------------------------------------------------------------------------
def _any_verifier(sim: Simulator) -> Simulator:
    def before(request: Request) -> Request:
        form = _form(request)
        entry = sim.oauth.codes.get(form.get("code", ""))  # type: ignore[attr-defined]
        if _is_token(request, "authorization_code") and entry is not None and form.get("code_verifier"):
            entry.challenge = pkce_challenge(form["code_verifier"])
        return request
    return FaultySimulator(sim, before=before)  # type: ignore[return-value]


def _codes_reusable(sim: Simulator) -> Simulator:
    def after(request: Request, response: Response) -> Response:
        for entry in sim.oauth.codes.values():  # type: ignore[attr-defined]
            entry.used = False
        return response
    return FaultySimulator(sim, after=after)  # type: ignore[return-value]


def _http_redirect_accepted(sim: Simulator) -> Simulator:
    """The simulator validates an https twin of an http redirect_uri; the Location goes back to http."""
    downgrade: set[int] = set()

    def before(request: Request) -> Request:
        uri = request.params.get("redirect_uri", "")
        if request.path == CONNECT and uri.startswith("http://"):
            downgrade.add(id(request))
            request = _query(request, lambda q: {**q, "redirect_uri": "https://" + uri[len("http://"):]})
        return request

    def after(request: Request, response: Response) -> Response:
        location = response.header("location")
        if id(request) in downgrade and location:
            downgrade.discard(id(request))
            response.headers["location"] = "http://" + location[len("https://"):]
        return response
    return FaultySimulator(sim, before=before, after=after)  # type: ignore[return-value]


def _plain_method(request: Request) -> Request:
    if request.path == CONNECT and request.params.get("code_challenge_method") != "S256":
        request = _query(request, lambda q: {**q, "code_challenge_method": "S256"})
    return request


def _location_edit(edit: Callable[[dict[str, str]], dict[str, str]]) -> Callable[[Simulator], Simulator]:
    def after(request: Request, response: Response) -> Response:
        location = response.header("location")
        if request.path == CONNECT and location and "?" in location:
            base, _, query = location.partition("?")
            response.headers["location"] = base + "?" + urlencode(edit(dict(parse_qsl(query))))
        return response
    return on_response(after)


def _connect_errors_500(request: Request, response: Response) -> Response:
    """Every authorization request that issues no code crashes instead of failing readably."""
    if request.path == CONNECT and "code=" not in (response.header("location") or ""):
        return Response.json_response(500, {"error": "server_error", "error_description": "internal error"})
    return response


def _first_scope_only(request: Request) -> Request:
    """Only the first of the space-separated scopes is read (as if the list were one scope)."""
    if request.path == CONNECT and "scope" in request.params:
        request = _query(request, lambda q: {**q, "scope": q["scope"].split(" ")[0]})
    return request


def _broken_refresh(request: Request) -> Request:
    if _is_token(request, "refresh_token"):
        request.body = urlencode({**_form(request), "refresh_token": "0.broken"}).encode()
    return request


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


def _clamp(name: str, low: int | None = None, high: int | None = None) -> Callable[[Request], Request]:
    def fix(q: dict[str, str]) -> dict[str, str]:
        if q.get(name, "").isdigit():
            value = int(q[name])
            value = max(value, low) if low is not None else value
            value = min(value, high) if high is not None else value
            q[name] = str(value)
        return q
    return lambda request: _query(request, fix)


def _unlisted_state(request: Request) -> Request:
    if _is_listings(request) and request.params.get("state") == "zz-not-listed":
        request = _query(request, lambda q: {k: v for k, v in q.items() if k != "state"})
    return request


def _shift_offset(request: Request) -> Request:
    return _query(request, lambda q: {**q, "offset": str(int(q["offset"]) - 1)}
                  if _is_listings(request) and q.get("offset", "0").isdigit() and int(q.get("offset", "0")) > 0 else q)


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


def _flatten_money(node: Any) -> Any:
    """Every Money object becomes the plain number amount / divisor."""
    if isinstance(node, dict):
        if {"amount", "divisor"} <= set(node) and isinstance(node["divisor"], int) and node["divisor"]:
            return node["amount"] / node["divisor"]
        return {key: _flatten_money(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_flatten_money(value) for value in node]
    return node


def _negative_offset_500(request: Request, response: Response) -> Response:
    if request.params.get("offset", "").startswith("-"):
        return Response.json_response(500, {"message": "internal error"})
    return response


class _FrozenClock:
    """A clock that never moves: nothing the simulator issues ever expires."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def now(self) -> float:
        return float(self._inner.now())

    def advance(self, seconds: float) -> None:
        return None


def _single_use_refresh_no_expiry(sim: Simulator) -> Simulator:
    # Rotation instead of expiry: a reused refresh token is refused, an old one never is.
    sim.clock = _FrozenClock(sim.clock)  # type: ignore[assignment]
    used: set[str] = set()

    def before(request: Request) -> Request:
        if request.path.endswith("/oauth/token"):
            form = dict(parse_qsl(request.body.decode("utf-8", "replace")))
            token = form.get("refresh_token")
            if form.get("grant_type") == "refresh_token" and token:
                if token in used:
                    form["refresh_token"] = "used-up"
                    request.body = urlencode(form).encode()
                used.add(token)
        return request

    return FaultySimulator(sim, before=before)  # type: ignore[return-value]


FAULTS: list[Fault] = [
    fault("keystring-alone-accepted", "marketplace.auth.key-format",
          "x-api-key without the shared secret is accepted")(on_request(_add_secret)),
    fault("bearer-optional", "marketplace.auth.bearer-required",
          "a scoped operation without Authorization is served as the seeded user")(_bearer_optional),
    fault("scope-not-enforced", "marketplace.auth.scope-listings-w",
          "every token may do everything, whatever scopes it was granted")(_all_scopes),
    fault("receipts-moved", "marketplace.endpoint.url-shape",
          "getShopReceipts answers only under /v3/application/shops/...")(on_request(_move_receipts)),
    fault("ids-from-headers", "marketplace.endpoint.ids-in-path",
          "deleteListingImage takes its ids from headers when the path lacks them")(on_request(_ids_from_headers)),
    fault("delete-twice-succeeds", "marketplace.endpoint.delete-listing-image",
          "deleting an image that is gone succeeds again")(on_response(_delete_again(204))),
    fault("receipts-without-results", "marketplace.endpoint.shop-receipts",
          "getShopReceipts answers with count only")(
        _ok_json(lambda r: r.method == "GET" and bool(_RECEIPTS.match(r.path)), lambda b: {"count": b["count"]})),
    fault("non-ascii-form-refused", "marketplace.endpoint.form-posts",
          "a UTF-8 form with non-ASCII text is refused")(on_response(_non_ascii_refused)),
    fault("latin1-charset", "marketplace.endpoint.utf8-bodies",
          "JSON bodies declare charset=iso-8859-1")(on_response(_latin1)),
    fault("unlisted-state-accepted", "marketplace.types.enum-rejected",
          "a state outside the list is ignored instead of refused")(on_request(_unlisted_state)),
    fault("fractional-limit-truncated", "marketplace.types.integer",
          "limit=25.5 is read as 25")(on_request(_truncate_fractions)),
    fault("numbers-as-json-numbers", "marketplace.types.number-as-string",
          "item_weight is returned as a JSON number")(
        _ok_json(_is_listings, _results(lambda i: i.update(item_weight=float(i["item_weight"]))))),
    fault("limit-24-accepted", "marketplace.paging.limit-range",
          "limit below 25 is raised to 25 instead of refused")(on_request(_clamp("limit", low=25))),
    fault("offset-12001-accepted", "marketplace.paging.offset-max",
          "offset above 12000 is lowered to 12000 instead of refused")(on_request(_clamp("offset", high=12_000))),
    fault("default-limit-20", "marketplace.paging.limit-default",
          "without limit a page holds 20 records")(on_response(_page_cut(20, True))),
    fault("limit-capped-at-50", "marketplace.paging.page-size",
          "a page never holds more than 50 records")(on_response(_page_cut(50, False))),
    fault("count-equals-page-size", "marketplace.paging.count-total",
          "count is the number of records on the page")(
        _ok_json(lambda r: r.method == "GET", _count_is_page_size)),
    fault("pages-overlap", "marketplace.paging.walk",
          "every page after the first starts one record early")(on_request(_shift_offset)),
    fault("unlisted-receipt-status", "marketplace.receipts.status-values",
          "canceled receipts show status 'refunded'")(
        _ok_json(lambda r: bool(_RECEIPTS.match(r.path)),
                 _results(lambda i: i.update(status="refunded") if i.get("status") == "canceled" else None))),
    fault("state-filter-ignored", "marketplace.listings.state-filter",
          "state=draft lists active listings")(on_request(lambda r: _query(
              r, lambda q: {**q, "state": "active"} if q.get("state") == "draft" else q))),
    fault("active-without-quantity", "marketplace.listings.active-has-quantity",
          "active listings show quantity 0")(
        _ok_json(_is_listings, _results(lambda i: i.update(quantity=0) if i.get("state") == "active" else None))),
    fault("money-without-divisor", "marketplace.money.shape",
          "a listing's price has no divisor")(
        _ok_json(_is_listings, _results(lambda i: i.get("price", {}).pop("divisor", None)))),
    fault("negative-offset-500", "marketplace.generic.responses-documented",
          "a negative offset crashes the service with 500")(on_response(_negative_offset_500)),
    fault("http-redirect-accepted", "marketplace.oauth.redirect-https",
          "an http redirect_uri gets a code")(_http_redirect_accepted),
    fault("plain-challenge-accepted", "marketplace.oauth.code-challenge-method",
          "a request without code_challenge_method=S256 is treated as S256")(on_request(_plain_method)),
    fault("state-not-echoed", "marketplace.oauth.state-echoed",
          "the redirect back carries a state of the server's own")(
        _location_edit(lambda q: {**q, "state": "sim-state"} if "state" in q else q)),
    fault("error-without-description", "marketplace.oauth.error-redirect",
          "an error redirect has no error_description")(
        _location_edit(lambda q: {k: v for k, v in q.items() if k != "error_description"})),
    fault("code-exchange-without-refresh-token", "marketplace.oauth.token-exchange",
          "the code exchange gives an access token only")(
        _ok_json(lambda r: _is_token(r, "authorization_code"),
                 lambda b: {k: v for k, v in b.items() if k != "refresh_token"})),
    fault("verifier-not-checked", "marketplace.oauth.token-verifier-match",
          "any well-formed code_verifier is accepted")(_any_verifier),
    fault("reused-code-accepted", "marketplace.oauth.code-single-use",
          "an authorization code can be exchanged again")(_codes_reusable),
    fault("refresh-grant-broken", "marketplace.oauth.refresh-grant",
          "every refresh_token grant is refused")(on_request(_broken_refresh)),
    fault("access-token-never-expires", "marketplace.oauth.access-token-lifetime",
          "access tokens are still accepted after the hour")(_grants("access", lambda r: _is_token(r))),
    fault("refresh-token-never-expires", "marketplace.oauth.refresh-token-lifetime",
          "refresh tokens are still accepted after 90 days")(_grants("refresh", lambda r: _is_token(r))),
    fault("expires-in-two-hours", "marketplace.oauth.expires-in",
          "the token response says expires_in 7200")(
        _ok_json(lambda r: _is_token(r), lambda b: {**b, "expires_in": 7200})),
    # From review: a refresh token refused for reuse must not pass for one refused for age.
    fault("single-use-refresh-no-expiry", "marketplace.oauth.refresh-token-lifetime",
          "refresh tokens never expire but are single-use")(_single_use_refresh_no_expiry),
    # From review 2: wrong servers that weaker checks passed (or skipped).
    fault("trust-user-prefix", "marketplace.auth.bearer-garbage",
          "Bearer <user_id>.<anything> is served as that user; the token is never looked up")(_trust_user_prefix),
    fault("form-latin1-garbled", "marketplace.endpoint.form-posts",
          "createDraftListing decodes its UTF-8 form as latin-1 and stores the mojibake")(on_request(_form_latin1)),
    fault("count-is-page-size-only", "marketplace.paging.walk",
          "getListingsByShop's count is the number of records on the page")(
        _ok_json(_is_listings, _count_is_page_size)),
    fault("delete-again-500", "marketplace.endpoint.delete-listing-image",
          "deleting an image that is gone crashes with 500")(on_response(_delete_again(500))),
    fault("connect-errors-500", "marketplace.oauth.redirect-https",
          "every authorization request that issues no code crashes with 500")(on_response(_connect_errors_500)),
    fault("first-scope-only", "marketplace.oauth.scope-space-separated",
          "only the first of the space-separated scopes is granted")(on_request(_first_scope_only)),
    fault("limit-param-refused", "marketplace.types.integer",
          "limit is refused whatever its value")(on_response(_limit_refused)),
    fault("flat-money", "marketplace.money.shape",
          "prices and totals are plain numbers, no Money object anywhere")(
        _ok_json(lambda r: r.method == "GET", _flatten_money)),
]
