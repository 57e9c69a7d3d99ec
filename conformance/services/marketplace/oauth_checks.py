"""OAuth 2.0 checks of the marketplace service (volume 3, part B, Authentication), and the
token helpers the API checks share.

The harness is the OAuth client: it makes its own PKCE verifier and S256 challenge, sends the
authorization request, reads the redirect's Location without following it (the redirect host is
the client's, never contacted), compares state as a client must, and exchanges the code.
User tokens otherwise come from a pre-issued REFRESH_TOKEN (refresh grant), which is how an
HTTP target without automatic consent is tested.

Verifier and state are derived from the rule id and a counter, not drawn at random: replay
matches requests on their query (code_challenge, state), so a replayed run must send the same
bytes as the recorded one. They only ever reach a test application's authorization.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses, validator
from conformance.checks.registry import for_rule
from conformance.services.marketplace.client import (
    MISSING,
    RECEIPTS,
    bearer_for,
    client_id,
    optional,
    refresh,
    refused,
    scoped_call,
    token_body,
    token_request,
    user_bearer,
)
from conformance.transport.model import Exchange, Request

__all__: list[str] = []

CONNECT = "GET /oauth/connect"


def _accepted_on_receipts(ctx: CheckContext, rule_id: str, bearer: str, why: str) -> None:
    ctx.credential("SHOP_ID")  # skips with the reason where it is not configured; never a silent pass
    expect_status(rule_id, scoped_call(ctx, RECEIPTS, bearer), success_statuses(ctx.contract, RECEIPTS), why)


# -- PKCE client -----------------------------------------------------------------------------
def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class Pkce:
    verifier: str
    challenge: str
    state: str

    @classmethod
    def make(cls, rule_id: str, n: int) -> Pkce:
        seed = hashlib.sha256(f"conformance:{rule_id}:{n}".encode()).digest()
        # 64 random-looking bytes -> 86 base64url characters: RFC 7636's 43..128 unreserved.
        verifier = _b64url(seed + hashlib.sha256(seed).digest())
        challenge = _b64url(hashlib.sha256(verifier.encode("ascii")).digest())  # S256
        return cls(verifier, challenge, hashlib.sha256(seed + b"state").hexdigest()[:32])


@dataclass
class Redirect:
    exchange: Exchange
    base: str  # scheme://host/path of the Location, without its query
    params: dict[str, str]


def _redirect(exchange: Exchange) -> Redirect | None:
    location = exchange.response.header("location")
    if not (300 <= exchange.response.status < 400 and location):
        return None
    parts = urlsplit(location)
    base = location.split("?", 1)[0].split("#", 1)[0]
    return Redirect(exchange, base, dict(parse_qsl(parts.query, keep_blank_values=True)))


def connect_query(ctx: CheckContext, pkce: Pkce, **changes: Any) -> dict[str, str]:
    schema = ctx.contract.where_schema
    query: dict[str, Any] = {
        "response_type": schema(CONNECT, "query.response_type")["enum"][0],
        "client_id": client_id(ctx),
        "redirect_uri": ctx.credential("REDIRECT_URI"),
        "scope": ctx.contract.rule("marketplace.oauth.scope-space-separated").params["example"],
        "state": pkce.state,
        "code_challenge": pkce.challenge,
        "code_challenge_method": schema(CONNECT, "query.code_challenge_method")["enum"][0],
    }
    query.update(changes)
    return {k: v for k, v in query.items() if v is not MISSING}


def connect(ctx: CheckContext, query: dict[str, str]) -> Exchange:
    """The authorization request: a browser navigation without x-api-key; where that is refused
    outright, once more with the key (conflict connect-api-key allows both)."""
    path = (optional(ctx, "AUTH_URL") or "").rstrip("/") + ctx.path("/oauth/connect", operation=CONNECT)
    exchange = ctx.session.send(Request.build("GET", path, params=query))
    if refused(exchange):
        exchange = ctx.session.send(ctx.auth(Request.build("GET", path, params=query)))
    return exchange


def authorize(ctx: CheckContext, rule_id: str, pkce: Pkce, **changes: Any) -> tuple[Redirect, str]:
    """Steps 1-2 as a client does them: the redirect must go back to redirect_uri with our state."""
    query = connect_query(ctx, pkce, **changes)
    exchange = connect(ctx, query)
    redirect = _redirect(exchange)
    expect(redirect is not None, rule_id, "a valid authorization request did not redirect back",
           exchange=exchange, expected="3xx with a Location to redirect_uri")
    assert redirect is not None
    expect(redirect.base == query["redirect_uri"], rule_id,
           f"the redirect goes to {redirect.base!r}, not to the redirect_uri sent", exchange=exchange,
           expected=f"Location on {query['redirect_uri']}")
    # The client's duty: compare state and abort on mismatch.
    expect(redirect.params.get("state") == pkce.state, rule_id,
           "the redirect's state differs from the state sent: the client must abort",
           exchange=exchange, expected=f"state={pkce.state}")
    expect(bool(redirect.params.get("code")) and "error" not in redirect.params, rule_id,
           "a valid, consented authorization request issued no code", exchange=exchange,
           expected="code in the redirect's query")
    return redirect, redirect.params["code"]


def exchange_code(ctx: CheckContext, code: str, pkce: Pkce, /, **changes: Any) -> Exchange:
    form: dict[str, Any] = {"grant_type": "authorization_code", "client_id": client_id(ctx),
                            "redirect_uri": ctx.credential("REDIRECT_URI"), "code": code,
                            "code_verifier": pkce.verifier}
    form.update(changes)
    return token_request(ctx, form)


def _code_issued(exchange: Exchange) -> bool:
    redirect = _redirect(exchange)
    return redirect is not None and bool(redirect.params.get("code"))


def _failed_properly(exchange: Exchange, query: dict[str, str]) -> bool:
    """A failed authorization request: an error redirect back to the redirect_uri sent (with error,
    without code) or a 4xx refusal. A 5xx is a crash, not a failure the client can read."""
    if refused(exchange):
        return True
    redirect = _redirect(exchange)
    return (redirect is not None and "redirect_uri" in query and redirect.base == query["redirect_uri"]
            and bool(redirect.params.get("error")) and "code" not in redirect.params)


# -- checks ----------------------------------------------------------------------------------
@for_rule("marketplace.oauth.connect-redirect", "marketplace.oauth.state-echoed",
          "marketplace.oauth.scope-space-separated", "marketplace.oauth.token-exchange")
def pkce_flow(ctx: CheckContext) -> None:
    """The whole grant, driven by the harness; each rule reads its part of it."""
    rule_id = ctx.rule.id
    pkce = Pkce.make(rule_id, 1)
    redirect, code = authorize(ctx, rule_id, pkce)
    conflict = "marketplace.conflict.connect-api-key"
    alternatives = ctx.contract.conflicts[[c.id for c in ctx.contract.conflicts].index(conflict)].alternatives
    ctx.observe(conflict, alternatives[0] if "x-api-key" in redirect.exchange.request.headers else alternatives[1])
    if rule_id == "marketplace.oauth.connect-redirect":
        schema = ctx.contract.operation(CONNECT)["responses"]["3XX"]["x-redirect-query"]["success"]
        _validate_query(ctx, redirect, schema)
    elif rule_id == "marketplace.oauth.state-echoed":
        other = Pkce.make(rule_id, 2)
        trigger = ctx.contract.rule("marketplace.oauth.error-redirect").params["trigger"]
        failure = _redirect(connect(ctx, connect_query(ctx, other, **trigger)))
        expect(failure is not None and failure.params.get("state") == other.state, rule_id,
               "the failure redirect does not carry the state sent", exchange=failure.exchange if failure else None,
               expected="state echoed on the error redirect too")
    elif rule_id == "marketplace.oauth.scope-space-separated":
        # Granted past the first scope: transactions_r is fourth in the example list.
        body = token_body(ctx, rule_id, exchange_code(ctx, code, pkce), "exchanging the code")
        _accepted_on_receipts(ctx, rule_id, bearer_for(ctx, body["access_token"]),
                              "a token granted the example scopes on getShopReceipts (transactions_r)")
    else:
        body = token_body(ctx, rule_id, exchange_code(ctx, code, pkce), "exchanging the code with its verifier")
        expect(bool(body.get("refresh_token")), rule_id, "the code exchange gave no refresh token",
               expected="refresh_token in the token response")
        _accepted_on_receipts(ctx, rule_id, bearer_for(ctx, body["access_token"]),
                              "the access token from the code exchange on a scoped operation")


def _validate_query(ctx: CheckContext, redirect: Redirect, schema: dict[str, Any]) -> None:
    errors = sorted(validator(ctx.contract, ctx.contract.deref(schema)).iter_errors(redirect.params), key=str)
    expect(not errors, ctx.rule.id, f"redirect query: {errors[0].message if errors else ''}",
           exchange=redirect.exchange, expected="a redirect query valid under the contract")


@for_rule("marketplace.oauth.response-type", "marketplace.oauth.client-id-required",
          "marketplace.oauth.redirect-https", "marketplace.oauth.state-required",
          "marketplace.oauth.code-challenge-required", "marketplace.oauth.code-challenge-method",
          "marketplace.oauth.error-redirect")
def connect_refused(ctx: CheckContext) -> None:
    """A bad authorization request issues no code; the valid one beside it does (control)."""
    rule = ctx.rule
    authorize(ctx, rule.id, Pkce.make(rule.id, 0))  # without this, "no code" would prove nothing
    if rule.id == "marketplace.oauth.error-redirect":
        pkce = Pkce.make(rule.id, 1)
        exchange = connect(ctx, connect_query(ctx, pkce, **rule.params["trigger"]))
        redirect = _redirect(exchange)
        expect(redirect is not None and redirect.base == ctx.credential("REDIRECT_URI"), rule.id,
               "a failed authorization did not redirect back to redirect_uri", exchange=exchange,
               expected="3xx to redirect_uri with error")
        assert redirect is not None
        schema = ctx.contract.operation(CONNECT)["responses"]["3XX"]["x-redirect-query"]["failure"]
        _validate_query(ctx, redirect, schema)
        description = redirect.params["error_description"]
        # "English": RFC 6749 allows printable ASCII only; an empty text explains nothing.
        expect(description.strip() != "" and description.isascii() and description.isprintable(), rule.id,
               f"error_description {description!r} is no readable English text", exchange=exchange)
        expect(redirect.params.get("state") == pkce.state and "code" not in redirect.params, rule.id,
               "the error redirect lacks the state sent or carries a code", exchange=exchange)
        return
    name = (rule.where or "").partition(".")[2]
    variants: list[Any] = list(rule.params.get("values") or [])
    if rule.kind == "required":
        variants += [MISSING, ""]
    elif rule.kind == "enum":
        variants += [MISSING, "zz-not-listed"]
    for n, value in enumerate(variants, start=1):
        query = connect_query(ctx, Pkce.make(rule.id, n), **{name: value})
        exchange = connect(ctx, query)
        shown = "left out" if value is MISSING else f"={value!r}"
        expect(not _code_issued(exchange), rule.id, f"{name} {shown}: a code was issued anyway",
               exchange=exchange, expected="no code (an error redirect or a 4xx)")
        expect(_failed_properly(exchange, query), rule.id,
               f"{name} {shown}: answered {exchange.response.status} "
               f"{exchange.response.header('location') or ''}".rstrip(), exchange=exchange,
               expected="an error redirect to the redirect_uri sent (error, no code) or a 4xx refusal")


@for_rule("marketplace.oauth.token-fields-required", "marketplace.oauth.token-grant-type",
          "marketplace.oauth.token-redirect-uri-match", "marketplace.oauth.token-verifier-match",
          "marketplace.oauth.code-single-use")
def token_refusals(ctx: CheckContext) -> None:
    """Each bad token request is refused; a correct one with a fresh code still succeeds, so a
    target that refuses everything does not pass."""
    rule_id = ctx.rule.id
    n = 0

    def fresh() -> tuple[Pkce, str]:
        nonlocal n
        n += 1
        pkce = Pkce.make(rule_id, n)
        return pkce, authorize(ctx, rule_id, pkce)[1]

    def must_refuse(exchange: Exchange, why: str) -> None:
        expect(refused(exchange), rule_id, f"{why}: answered {exchange.response.status}",
               exchange=exchange, expected="a 4xx refusal")

    if rule_id == "marketplace.oauth.token-fields-required":
        for name in ctx.rule.params["fields"]:
            pkce, code = fresh()
            must_refuse(exchange_code(ctx, code, pkce, **{name: MISSING}), f"token request without {name}")
    elif rule_id == "marketplace.oauth.token-grant-type":
        pkce, code = fresh()
        must_refuse(exchange_code(ctx, code, pkce, grant_type="zz-not-listed"), "grant_type outside the list")
        if optional(ctx, "REFRESH_TOKEN"):
            refresh(ctx, rule_id)  # grant_type=refresh_token is listed: accepted
    elif rule_id == "marketplace.oauth.token-redirect-uri-match":
        pkce, code = fresh()
        other = ctx.credential("REDIRECT_URI").rstrip("/") + "/elsewhere"
        must_refuse(exchange_code(ctx, code, pkce, redirect_uri=other), "a redirect_uri other than step 1's")
    elif rule_id == "marketplace.oauth.token-verifier-match":
        pkce, code = fresh()
        wrong = Pkce.make(rule_id, 1000).verifier  # well-formed, just not this challenge's
        must_refuse(exchange_code(ctx, code, pkce, code_verifier=wrong), "a code_verifier of another challenge")
    else:  # code-single-use
        pkce, code = fresh()
        token_body(ctx, rule_id, exchange_code(ctx, code, pkce), "first exchange of a fresh code")
        must_refuse(exchange_code(ctx, code, pkce), "the same code exchanged a second time")
        return
    pkce, code = fresh()  # the control: everything right is still accepted
    token_body(ctx, rule_id, exchange_code(ctx, code, pkce), "a correct exchange of a fresh code")


@for_rule("marketplace.oauth.refresh-grant")
def refresh_grant(ctx: CheckContext) -> None:
    _, body = refresh(ctx, ctx.rule.id)
    expect_status(ctx.rule.id, scoped_call(ctx, RECEIPTS, bearer_for(ctx, body["access_token"])),
                  success_statuses(ctx.contract, RECEIPTS), "the refreshed access token on getShopReceipts")


def _wait(ctx: CheckContext, seconds: float) -> None:
    """Simulated time on sim, none on replay; real time on http only when it is short."""
    if ctx.target.name == "http":
        real = seconds / ctx.target.settings.time_scale
        limit = ctx.rule.params["max_real_wait_seconds"]
        if real > limit:
            ctx.skip(f"needs {real:.0f} s of real waiting on an http target (over {limit} s); "
                     "checked on the simulator's clock, or serve with --clock-rate R and set "
                     "CONFORMANCE_TIME_SCALE=R")
    ctx.sleep(seconds)


@for_rule("marketplace.oauth.access-token-lifetime", "marketplace.oauth.refresh-token-lifetime",
          "marketplace.oauth.expires-in")
def token_lifetimes(ctx: CheckContext) -> None:
    rule = ctx.rule
    lifetime_rule = ctx.contract.rule("marketplace.oauth.access-token-lifetime")
    access_seconds = lifetime_rule.params["access_token_seconds"]
    if rule.id == "marketplace.oauth.expires-in":
        exchange, body = refresh(ctx, rule.id)
        if "expires_in" not in body:
            ctx.skip("the token response states no expires_in (the document does not show the body)")
        expect(body["expires_in"] == access_seconds, rule.id, f"expires_in is {body['expires_in']}",
               exchange=exchange, expected=f"expires_in {access_seconds} (1 hour)")
        return
    margin = rule.params["margin_seconds"]
    if rule.id == "marketplace.oauth.refresh-token-lifetime":
        # Only meaningful when the configured refresh token is fresh: the simulator seeds it so.
        if ctx.target.name == "http":
            ctx.skip("an http target's refresh token was issued at an unknown time; the 90 days "
                     "are checked on the simulator's clock")
        lifetime = rule.params["refresh_token_seconds"]
        _wait(ctx, lifetime - margin)
        # Two never-used tokens: the control is spent before the lifetime ends and the probe only
        # after, so a token refused for being reused cannot pass for one refused for its age.
        refresh(ctx, rule.id, "LIMITED_REFRESH_TOKEN")
        _wait(ctx, 2 * margin)
        exchange = token_request(ctx, {"grant_type": "refresh_token", "refresh_token": ctx.credential("REFRESH_TOKEN"),
                                       "client_id": client_id(ctx)})
        expect(refused(exchange), rule.id, f"a refresh token past {lifetime} s was accepted",
               exchange=exchange, expected="a 4xx refusal")
        return
    # The timing starts at issue: a token from a refresh grant made now.
    bearer = user_bearer(ctx, rule.id)
    ok = success_statuses(ctx.contract, RECEIPTS)
    _wait(ctx, access_seconds - margin)
    expect_status(rule.id, scoped_call(ctx, RECEIPTS, bearer), ok, f"the access token {margin} s before the hour")
    _wait(ctx, 2 * margin)
    late = scoped_call(ctx, RECEIPTS, bearer)
    expect(refused(late), rule.id, f"the access token {margin} s after the hour was accepted",
           exchange=late, expected="a 4xx refusal")
    # What a client does next: refresh, and the new token works again.
    expect_status(rule.id, scoped_call(ctx, RECEIPTS, user_bearer(ctx, rule.id)), ok,
                  "a token refreshed after expiry")

