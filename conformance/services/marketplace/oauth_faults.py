"""Marketplace faults of the OAuth server: each makes it break one OAuth rule."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from conformance.faults.base import Fault, FaultySimulator, fault, on_request, on_response
from conformance.faults.toolkit import Match, Wrap, path, response_body
from conformance.services.marketplace.faults import FOREVER, OK, with_query
from conformance.services.marketplace.oauth_server import pkce_challenge
from conformance.services.marketplace.simulator import CONNECT_PATH, SIM_CLIENT_ID, SIM_REDIRECT_URI, TOKEN_PATH
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["OAUTH_FAULTS"]

_TOKEN = path(f"^{TOKEN_PATH}$")  # the token endpoint, whatever the grant
_CONNECT = path(f"^{CONNECT_PATH}$")  # the authorization endpoint


def _form(request: Request) -> dict[str, str]:
    try:
        return dict(parse_qsl(request.body.decode("utf-8"), keep_blank_values=True))
    except UnicodeDecodeError:
        return {}


def _grant(kind: str) -> Match:
    """Token requests of the grant type ``kind`` (read from the form, which the toolkit does not parse)."""
    return lambda request: _TOKEN(request) and _form(request).get("grant_type") == kind


_CODE_GRANT, _REFRESH_GRANT = _grant("authorization_code"), _grant("refresh_token")


def _grants(attr: str) -> Wrap:
    """After token requests, every grant in ``sim.oauth.<attr>`` lives (practically) forever."""
    def apply(sim: Simulator) -> Simulator:
        def after(request: Request, response: Response) -> Response:
            if _TOKEN(request):
                table = getattr(sim.oauth, attr)  # type: ignore[attr-defined]
                for key, grant in table.items():
                    table[key] = dataclasses.replace(grant, expires=FOREVER)
            return response
        return FaultySimulator(sim, after=after)  # type: ignore[return-value]
    return apply


# -- OAuth ----------------------------------------------------------------------------------
def _any_verifier(sim: Simulator) -> Simulator:
    def before(request: Request) -> Request:
        form = _form(request)
        entry = sim.oauth.codes.get(form.get("code", ""))  # type: ignore[attr-defined]
        if _CODE_GRANT(request) and entry is not None and form.get("code_verifier"):
            entry.challenge = pkce_challenge(form["code_verifier"])
        return request
    return FaultySimulator(sim, before=before)  # type: ignore[return-value]


def _codes_reusable(sim: Simulator) -> Simulator:
    def after(request: Request, response: Response) -> Response:
        for entry in sim.oauth.codes.values():  # type: ignore[attr-defined]
            entry.used = False
        return response
    return FaultySimulator(sim, after=after)  # type: ignore[return-value]


def _location_edit(edit: Callable[[dict[str, str]], dict[str, str]]) -> Wrap:
    def after(request: Request, response: Response) -> Response:
        location = response.header("location")
        if _CONNECT(request) and location and "?" in location:
            base, _, query = location.partition("?")
            response.headers["location"] = base + "?" + urlencode(edit(dict(parse_qsl(query))))
        return response
    return on_response(after)


def _first_scope_only(request: Request) -> Request:
    """Only the first of the space-separated scopes is read (as if the list were one scope)."""
    if _CONNECT(request) and "scope" in request.params:
        request = with_query(request, lambda q: {**q, "scope": q["scope"].split(" ")[0]})
    return request


def _broken_refresh(request: Request) -> Request:
    if _REFRESH_GRANT(request):
        request.body = urlencode({**_form(request), "refresh_token": "0.broken"}).encode()
    return request


def _token_form_edit(**fills: str) -> Wrap:
    """Authorization-code token requests get ``fills`` for members that are missing or differ."""
    def before(request: Request) -> Request:
        if _CODE_GRANT(request):
            form = _form(request)
            request.body = urlencode({**form, **fills}).encode()
        return request
    return on_request(before)


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


OAUTH_FAULTS: list[Fault] = [
    fault("state-not-echoed",
          "the redirect back carries a state of the server's own")(
        _location_edit(lambda q: {**q, "state": "sim-state"} if "state" in q else q)),
    fault("error-without-description",
          "an error redirect has no error_description")(
        _location_edit(lambda q: {k: v for k, v in q.items() if k != "error_description"})),
    fault("code-exchange-without-refresh-token",
          "the code exchange gives an access token only")(
        response_body(_CODE_GRANT, lambda b: {k: v for k, v in b.items() if k != "refresh_token"}, OK)),
    fault("verifier-not-checked",
          "any well-formed code_verifier is accepted")(_any_verifier),
    fault("reused-code-accepted",
          "an authorization code can be exchanged again")(_codes_reusable),
    fault("refresh-grant-broken",
          "every refresh_token grant is refused")(on_request(_broken_refresh)),
    fault("access-token-never-expires",
          "access tokens are still accepted after the hour")(_grants("access")),
    fault("refresh-token-never-expires",
          "refresh tokens are still accepted after 90 days")(_grants("refresh")),
    fault("expires-in-two-hours",
          "the token response says expires_in 7200")(
        response_body(_TOKEN, lambda b: {**b, "expires_in": 7200}, OK)),
    fault("single-use-refresh-no-expiry",
          "refresh tokens never expire but are single-use")(_single_use_refresh_no_expiry),
    fault("first-scope-only",
          "only the first of the space-separated scopes is granted")(on_request(_first_scope_only)),
    fault("redirect-without-code",
          "a granted authorization redirects back without the code")(
        _location_edit(lambda q: {k: v for k, v in q.items() if k != "code"})),
    fault("client-id-optional",
          "the token request without client_id is served as the application's")(
        _token_form_edit(client_id=SIM_CLIENT_ID)),
    fault("redirect-uri-not-compared",
          "the token request's redirect_uri is not compared with the authorization request's")(
        _token_form_edit(redirect_uri=SIM_REDIRECT_URI)),
]
