"""Marketplace faults of the OAuth server: each makes it break one OAuth rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from conformance.faults.base import Fault, FaultySimulator, fault, on_request, on_response
from conformance.services.marketplace.fault_support import (
    CONNECT,
    _form,
    _grants,
    _is_token,
    _ok_json,
    _query,
)
from conformance.services.marketplace.oauth_server import pkce_challenge
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["OAUTH_FAULTS"]


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
    fault("http-redirect-accepted",
          "an http redirect_uri gets a code")(_http_redirect_accepted),
    fault("plain-challenge-accepted",
          "a request without code_challenge_method=S256 is treated as S256")(on_request(_plain_method)),
    fault("state-not-echoed",
          "the redirect back carries a state of the server's own")(
        _location_edit(lambda q: {**q, "state": "sim-state"} if "state" in q else q)),
    fault("error-without-description",
          "an error redirect has no error_description")(
        _location_edit(lambda q: {k: v for k, v in q.items() if k != "error_description"})),
    fault("code-exchange-without-refresh-token",
          "the code exchange gives an access token only")(
        _ok_json(lambda r: _is_token(r, "authorization_code"),
                 lambda b: {k: v for k, v in b.items() if k != "refresh_token"})),
    fault("verifier-not-checked",
          "any well-formed code_verifier is accepted")(_any_verifier),
    fault("reused-code-accepted",
          "an authorization code can be exchanged again")(_codes_reusable),
    fault("refresh-grant-broken",
          "every refresh_token grant is refused")(on_request(_broken_refresh)),
    fault("access-token-never-expires",
          "access tokens are still accepted after the hour")(_grants("access", lambda r: _is_token(r))),
    fault("refresh-token-never-expires",
          "refresh tokens are still accepted after 90 days")(_grants("refresh", lambda r: _is_token(r))),
    fault("expires-in-two-hours",
          "the token response says expires_in 7200")(
        _ok_json(lambda r: _is_token(r), lambda b: {**b, "expires_in": 7200})),
    fault("single-use-refresh-no-expiry",
          "refresh tokens never expire but are single-use")(_single_use_refresh_no_expiry),
    fault("connect-errors-500",
          "every authorization request that issues no code crashes with 500")(on_response(_connect_errors_500)),
    fault("first-scope-only",
          "only the first of the space-separated scopes is granted")(on_request(_first_scope_only)),
]
