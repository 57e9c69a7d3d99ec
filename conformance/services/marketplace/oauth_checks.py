"""OAuth 2.0 checks of the marketplace service (volume 3, part B, Authentication).

The harness is the OAuth client (``conformance.auth.oauth``): it makes its own PKCE verifier
and S256 challenge, sends the authorization request, reads the redirect's Location without
following it (the redirect host is the client's, never contacted), compares state as a client
must, and exchanges the code (``checks/authorization.py``: the authorization request, and the
core check of its refusals). User tokens otherwise come from a pre-issued REFRESH_TOKEN
(refresh grant), which is how an HTTP target without automatic consent is tested.
"""

from __future__ import annotations

from typing import Any

from conformance.auth.oauth import MISSING, OAuthClient, Pkce, Redirect, read_redirect
from conformance.checks.authorization import connect, granted
from conformance.checks.boundary import outside_values
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses, validator
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import named
from conformance.services.marketplace.client import CONNECT, RECEIPTS, call, oauth
from conformance.transport.model import Exchange

__all__: list[str] = []

_TRIGGER = {"trigger": {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}}


def _validate_query(ctx: CheckContext, redirect: Redirect, which: str) -> None:
    schema = ctx.contract.operation(CONNECT)["responses"]["3XX"]["x-redirect-query"][which]
    errors = sorted(validator(ctx.contract, ctx.contract.deref(schema)).iter_errors(redirect.params), key=str)
    expect(not errors, ctx.rule.id, f"redirect query: {errors[0].message if errors else ''}",
           exchange=redirect.exchange, expected="a redirect query valid under the contract")


def _accepted_on_receipts(ctx: CheckContext, client: OAuthClient, access_token: str, why: str) -> None:
    ctx.credential("SHOP_ID")  # skips with the reason where it is not configured; never a silent pass
    expect_status(ctx.rule.id, call(ctx, RECEIPTS, auth=client.presenting(access_token)),
                  success_statuses(ctx.contract, RECEIPTS), why)


# -- the grant, step by step -----------------------------------------------------------------
@named("marketplace/connect-redirect")
def connect_redirect(ctx: CheckContext) -> None:
    _validate_query(ctx, granted(ctx)[2], "success")


@named("marketplace/state-echoed", params=_TRIGGER, required=("trigger",))
def state_echoed(ctx: CheckContext) -> None:
    client, _, _ = granted(ctx)  # the success redirect's state is compared by the client
    other = client.pkce()
    failure = read_redirect(connect(client, client.authorization_query(other, **ctx.rule.params["trigger"]))[0])
    expect(failure is not None and failure.params.get("state") == other.state, ctx.rule.id,
           "the failure redirect does not carry the state sent", exchange=failure.exchange if failure else None,
           expected="state echoed on the error redirect too")


@named("marketplace/scope-space-separated")
def scope_space_separated(ctx: CheckContext) -> None:
    # The client asks for every scope of the scheme, space-separated; a token granted past the
    # first must work where a later one (transactions_r) is needed.
    client, pkce, redirect = granted(ctx)
    assert redirect.code
    body = client.tokens(client.exchange_code(redirect.code, pkce), "exchanging the code")
    _accepted_on_receipts(ctx, client, body["access_token"],
                          "a token granted the example scopes on getShopReceipts (transactions_r)")


@named("marketplace/token-exchange")
def token_exchange(ctx: CheckContext) -> None:
    client, pkce, redirect = granted(ctx)
    assert redirect.code
    body = client.tokens(client.exchange_code(redirect.code, pkce), "exchanging the code with its verifier")
    expect(bool(body.get("refresh_token")), ctx.rule.id, "the code exchange gave no refresh token",
           expected="refresh_token in the token response")
    _accepted_on_receipts(ctx, client, body["access_token"],
                          "the access token from the code exchange on a scoped operation")


@named("marketplace/error-redirect", params=_TRIGGER, required=("trigger",))
def error_redirect(ctx: CheckContext) -> None:
    client, _, _ = granted(ctx)  # the control: a valid request is granted
    pkce = client.pkce()
    exchange, _ = connect(client, client.authorization_query(pkce, **ctx.rule.params["trigger"]))
    redirect = read_redirect(exchange)
    expect(redirect is not None and redirect.base == client.redirect_uri, ctx.rule.id,
           "a failed authorization did not redirect back to redirect_uri", exchange=exchange,
           expected="3xx to redirect_uri with error")
    assert redirect is not None
    _validate_query(ctx, redirect, "failure")
    description = redirect.params["error_description"]
    # "English": RFC 6749 allows printable ASCII only; an empty text explains nothing.
    expect(description.strip() != "" and description.isascii() and description.isprintable(), ctx.rule.id,
           f"error_description {description!r} is no readable English text", exchange=exchange)
    expect(redirect.params.get("state") == pkce.state and redirect.code is None, ctx.rule.id,
           "the error redirect lacks the state sent or carries a code", exchange=exchange)


# -- token requests --------------------------------------------------------------------------
class _TokenRequests:
    """Fresh codes for one check, and the control every refusal is held against: a correct
    exchange of a fresh code is accepted, so a target that refuses every token request fails."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.client = oauth(ctx)
        self._control: Exchange | None = None

    def fresh(self) -> tuple[Pkce, str]:
        _, pkce, redirect = granted(self.ctx, self.client)
        assert redirect.code
        return pkce, redirect.code

    def control(self) -> Exchange:
        if self._control is None:
            pkce, code = self.fresh()
            self._control = self.client.exchange_code(code, pkce)
            self.client.tokens(self._control, "a correct exchange of a fresh code")
        return self._control

    def refused(self, why: str, exchange: Exchange) -> None:
        expect_refused(self.ctx, why, lambda: exchange, control=self.control)


@named("marketplace/token-fields-required",
       params={"fields": {"type": "array", "items": {"type": "string"}}}, required=("fields",))
def token_fields_required(ctx: CheckContext) -> None:
    t = _TokenRequests(ctx)
    for name in ctx.rule.params["fields"]:
        pkce, code = t.fresh()
        t.refused(f"token request without {name}", t.client.exchange_code(code, pkce, **{name: MISSING}))


@named("marketplace/token-grant-type",
       params={"outside": {"type": "array", "items": {"type": "string"}}}, required=("outside",))
def token_grant_type(ctx: CheckContext) -> None:
    """Each value outside the list (the rule's, and near misses of the listed ones) is refused."""
    t = _TokenRequests(ctx)
    listed = ctx.contract.openapi["components"]["schemas"]["TokenRequest"]["properties"]["grant_type"]["enum"]
    for value in outside_values(listed, ctx.rule.params["outside"]):
        pkce, code = t.fresh()
        t.refused(f"grant_type={value!r} outside the list", t.client.exchange_code(code, pkce, grant_type=value))
    refresh_token = ctx.optional("REFRESH_TOKEN")
    if refresh_token:  # grant_type=refresh_token is listed: accepted
        t.client.tokens(t.client.refresh(refresh_token), "grant_type=refresh_token")


@named("marketplace/token-redirect-uri-match")
def token_redirect_uri_match(ctx: CheckContext) -> None:
    t = _TokenRequests(ctx)
    pkce, code = t.fresh()
    other = t.client.redirect_uri.rstrip("/") + "/elsewhere"
    t.refused("a redirect_uri other than step 1's", t.client.exchange_code(code, pkce, redirect_uri=other))


@named("marketplace/token-verifier-match")
def token_verifier_match(ctx: CheckContext) -> None:
    t = _TokenRequests(ctx)
    pkce, code = t.fresh()
    wrong = Pkce.derive(ctx.rule.id, 1000).verifier  # well-formed, just not this challenge's
    t.refused("a code_verifier of another challenge", t.client.exchange_code(code, pkce, code_verifier=wrong))


@named("marketplace/code-single-use")
def code_single_use(ctx: CheckContext) -> None:
    t = _TokenRequests(ctx)
    client = t.client
    pkce, code = t.fresh()
    first = client.exchange_code(code, pkce)
    client.tokens(first, "first exchange of a fresh code")
    expect_refused(ctx, "the same code exchanged a second time", lambda: client.exchange_code(code, pkce),
                   control=lambda: first)


# -- refresh grant and lifetimes -------------------------------------------------------------
@named("marketplace/refresh-grant")
def refresh_grant(ctx: CheckContext) -> None:
    client = oauth(ctx)
    body = client.tokens(client.refresh(ctx.credential("REFRESH_TOKEN")), "refresh_token grant with REFRESH_TOKEN")
    expect_status(ctx.rule.id, call(ctx, RECEIPTS, auth=client.presenting(body["access_token"])),
                  success_statuses(ctx.contract, RECEIPTS), "the refreshed access token on getShopReceipts")


@named("marketplace/expires-in", params={"access_token_seconds": {"type": "integer", "minimum": 1}},
       required=("access_token_seconds",))
def expires_in(ctx: CheckContext) -> None:
    seconds = ctx.rule.params["access_token_seconds"]
    client = oauth(ctx)
    exchange = client.refresh(ctx.credential("REFRESH_TOKEN"))
    body = client.tokens(exchange, "refresh_token grant")
    if "expires_in" not in body:
        ctx.skip("the token response states no expires_in (the document does not show the body)")
    expect(body["expires_in"] == seconds, ctx.rule.id, f"expires_in is {body['expires_in']}",
           exchange=exchange, expected=f"expires_in {seconds} (the access token lifetime)")


_WAITS = {"margin_seconds": {"type": "integer", "minimum": 1}, "max_real_wait_seconds": {"type": "number"}}


def _wait(ctx: CheckContext, seconds: float) -> None:
    """Simulated time on sim, none on replay; real time only when it is short."""
    if ctx.can.waits_real_time:
        real = seconds / ctx.target.settings.time_scale
        limit = ctx.rule.params["max_real_wait_seconds"]
        ctx.require(real <= limit, f"wait {real:.0f} s of real time (over {limit} s); it is checked on the "
                    "simulator's clock, or serve with --clock-rate R and set CONFORMANCE_TIME_SCALE=R")
    ctx.sleep(seconds)


@named("marketplace/access-token-lifetime",
       params={"access_token_seconds": {"type": "integer"}, **_WAITS}, required=("access_token_seconds", *_WAITS))
def access_token_lifetime(ctx: CheckContext) -> None:
    params, client = ctx.rule.params, oauth(ctx)
    margin = params["margin_seconds"]
    ok = success_statuses(ctx.contract, RECEIPTS)

    def issued_now() -> Any:
        body = client.tokens(client.refresh(ctx.credential("REFRESH_TOKEN")), "refresh_token grant")
        return client.presenting(body["access_token"])

    # The timing starts at issue: a token from a refresh grant made now.
    token = issued_now()
    _wait(ctx, params["access_token_seconds"] - margin)
    expect_status(ctx.rule.id, call(ctx, RECEIPTS, auth=token), ok, f"the access token {margin} s before the hour")
    _wait(ctx, 2 * margin)
    late = call(ctx, RECEIPTS, auth=token)
    # What a client does next: refresh, and the new token works again (the control).
    expect_refused(ctx, f"the access token {margin} s after the hour", lambda: late,
                   control=lambda: call(ctx, RECEIPTS, auth=issued_now()), credential_variant=True)
    expect_status(ctx.rule.id, call(ctx, RECEIPTS, auth=issued_now()), ok, "a token refreshed after expiry")


@named("marketplace/refresh-token-lifetime",
       params={"refresh_token_seconds": {"type": "integer"}, "unspent": {"type": "string"}, **_WAITS},
       required=("refresh_token_seconds", "unspent", *_WAITS))
def refresh_token_lifetime(ctx: CheckContext) -> None:
    params, client = ctx.rule.params, oauth(ctx)
    # Only meaningful when the configured refresh token is fresh: the simulator seeds it so.
    # A fresh simulator per case (or its recording) seeds it now; elsewhere its age is unknown, and
    # waiting out its lifetime would also expire it for every later case on a shared server.
    ctx.require(ctx.can.steerable or ctx.can.replays, "tell when its configured refresh token was issued "
                "(the lifetime is checked on the simulator's clock)")
    margin, lifetime = params["margin_seconds"], params["refresh_token_seconds"]
    _wait(ctx, lifetime - margin)
    # Two never-used tokens: the control is spent before the lifetime ends and the probe only
    # after, so a token refused for being reused cannot pass for one refused for its age.
    control = client.refresh(ctx.credential(params["unspent"]))
    client.tokens(control, f"refresh_token grant with {params['unspent']} before {lifetime} s")
    _wait(ctx, 2 * margin)
    expect_refused(ctx, f"a refresh token past {lifetime} s", lambda: client.refresh(ctx.credential("REFRESH_TOKEN")),
                   control=lambda: control)
