"""Marketplace faults of the OAuth server: each makes it break one OAuth rule."""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import parse_qsl, urlencode

from conformance.faults.base import Fault, FaultySimulator, fault, on_response
from conformance.faults.toolkit import Match, Wrap, path
from conformance.services.marketplace.faults import FOREVER
from conformance.services.marketplace.oauth_server import pkce_challenge
from conformance.services.marketplace.simulator import CONNECT_PATH, TOKEN_PATH
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


_CODE_GRANT = _grant("authorization_code")


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


def _error_code_localized(request: Request, response: Response) -> Response:
    """A failed authorization's error code written in the user's language: no RFC 6749 code (the
    ABNF of appendix A.7 allows printable ASCII only)."""
    location = response.header("location") or ""
    if _CONNECT(request) and "error=" in location:
        response.headers = {**response.headers, "location": location.replace("error=", "error=port%C3%A9e+", 1)}
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


OAUTH_FAULTS: list[Fault] = [
    fault("verifier-not-checked",
          "any well-formed code_verifier is accepted")(_any_verifier),
    fault("access-token-never-expires",
          "access tokens are still accepted after the hour")(_grants("access")),
    fault("refresh-token-never-expires",
          "refresh tokens are still accepted after 90 days")(_grants("refresh")),
    fault("single-use-refresh-no-expiry",
          "refresh tokens never expire but are single-use")(_single_use_refresh_no_expiry),
    fault("error-code-localized",
          "a failed authorization's error is a French phrase, not an RFC 6749 error code")(
        on_response(_error_code_localized)),
]
