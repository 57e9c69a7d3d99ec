"""OAuth 2.0 (RFC 6749, with PKCE: RFC 7636) as the contract's ``oauth2`` scheme describes it:
the core checks of the code grant's redirects, its token requests, the refresh grant and token
lifetimes, for any service whose scheme the harness's client reads (``auth.oauth.client_for``).

The harness is the client: it makes its own verifier and S256 challenge, reads the redirect's
Location without following it, compares state as a client must (``checks.authorization``: the
authorization request and the core check of its refusals) and exchanges the code. Everything
else comes from the rule's params: the operation a token is tried on (``use_on``, with its path
values; the rule's own operation by default), a failing authorization request (``trigger``), which
token request is edited (``edit``), and the lifetimes (numbers the document gives and OpenAPI
cannot hold). The redirect query's schemas are the authorization operation's 3xx
``x-redirect-query`` (``success``, ``failure``); the configured refresh token is the source the
scheme's ``x-tokens`` names.

Every refusal is held against a control that succeeded first (``checks.refusal``): a correct
exchange of a fresh code, or the refresh grant with a token no earlier step used.
"""

from __future__ import annotations

from typing import Any

from conformance.auth.oauth import MISSING, OAuthClient, Pkce, Redirect, client_for, read_redirect
from conformance.auth.variants import AuthAs
from conformance.checks.authorization import connect, granted
from conformance.checks.boundary import outside_values
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses, validator
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import named
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__: list[str] = []

_USE_ON = {"use_on": {"type": "object", "additionalProperties": False, "required": ["operation"], "properties": {
    "operation": {"type": "string"}, "path_values": {"type": "object", "additionalProperties": {"type": "string"}}}}}
_TRIGGER = {"trigger": {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}}
_WAITS = {"margin_seconds": {"type": "integer", "minimum": 1}, "max_real_wait_seconds": {"type": "number"}}


# -- what the checks share ---------------------------------------------------------------------
def _refresh_source(client: OAuthClient) -> str:
    """The configured refresh token the scheme's ``x-tokens`` names (``{ACCESS_TOKEN: REFRESH_TOKEN}``)."""
    tokens = client.scheme.get("x-tokens") or {}
    if not tokens:
        raise ContractFileError(f"securitySchemes.{client.scheme_name} has no x-tokens (which setting is the "
                                "refresh token)")
    return str(next(iter(tokens.values())))


def _use_on(ctx: CheckContext) -> str:
    """The operation a token is tried on: ``use_on``, else the rule's own."""
    operation = (ctx.rule.params.get("use_on") or {}).get("operation") or ctx.rule.operation
    if not operation:
        raise ContractFileError(f"{ctx.rule.id}: its check tries a token on an operation; give params.use_on")
    return str(operation)


def _use(ctx: CheckContext, how: AuthAs) -> Exchange:
    """One call of ``use_on`` with its path values (skipped where a named setting is not configured)."""
    path_values = ctx.settings_in((ctx.rule.params.get("use_on") or {}).get("path_values"))
    return ctx.call(_use_on(ctx), auth=how, path_values=path_values)


def _accepted(ctx: CheckContext, client: OAuthClient, access_token: str, why: str) -> None:
    expect_status(ctx.rule.id, _use(ctx, client.presenting(access_token)), success_statuses(ctx.contract, _use_on(ctx)),
                  why)


def _validate_query(ctx: CheckContext, client: OAuthClient, redirect: Redirect, which: str) -> None:
    responses = ctx.contract.operation(client.authorization_operation).get("responses") or {}
    schemas = next((r["x-redirect-query"] for r in responses.values() if "x-redirect-query" in r), None)
    if not schemas or which not in schemas:
        raise ContractFileError(f"{client.authorization_operation}: no 3xx response with x-redirect-query.{which} "
                                "(the schema of the redirect's query)")
    errors = sorted(validator(ctx.contract, ctx.contract.deref(schemas[which])).iter_errors(redirect.params), key=str)
    expect(not errors, ctx.rule.id, f"redirect query: {errors[0].message if errors else ''}",
           exchange=redirect.exchange, expected="a redirect query valid under the contract")


# -- the grant, step by step -------------------------------------------------------------------
@named("oauth-redirect-query")
def redirect_query(ctx: CheckContext) -> None:
    """A valid authorization request, granted: the redirect back holds the code and the state
    sent (the client's duties) and its query is valid under ``x-redirect-query.success``."""
    client, _, redirect = granted(ctx)
    _validate_query(ctx, client, redirect, "success")


@named("oauth-state-echoed", params=_TRIGGER, required=("trigger",))
def state_echoed(ctx: CheckContext) -> None:
    """The state sent comes back on success (compared by the client) and on a failure too: the
    authorization request with the ``trigger`` members, which must fail."""
    client, _, _ = granted(ctx)
    other = client.pkce()
    failure = read_redirect(connect(client, client.authorization_query(other, **ctx.rule.params["trigger"]))[0])
    expect(failure is not None and failure.params.get("state") == other.state, ctx.rule.id,
           "the failure redirect does not carry the state sent", exchange=failure.exchange if failure else None,
           expected="state echoed on the error redirect too")


@named("oauth-error-redirect", params=_TRIGGER, required=("trigger",))
def error_redirect(ctx: CheckContext) -> None:
    """RFC 6749 section 4.1.2.1: the failing request (``trigger``) redirects back to the
    redirect_uri with the state, an error (the query valid under ``x-redirect-query.failure``), an
    error_description a reader can read, and no code. The valid request is granted first."""
    client, _, _ = granted(ctx)
    pkce = client.pkce()
    exchange, _ = connect(client, client.authorization_query(pkce, **ctx.rule.params["trigger"]))
    redirect = read_redirect(exchange)
    expect(redirect is not None and redirect.base == client.redirect_uri, ctx.rule.id,
           "a failed authorization did not redirect back to redirect_uri", exchange=exchange,
           expected="3xx to redirect_uri with error")
    assert redirect is not None
    _validate_query(ctx, client, redirect, "failure")
    description = redirect.params.get("error_description", "")
    # RFC 6749 allows printable ASCII only; an empty text explains nothing.
    expect(description.strip() != "" and description.isascii() and description.isprintable(), ctx.rule.id,
           f"error_description {description!r} is no readable text", exchange=exchange)
    expect(redirect.params.get("state") == pkce.state and redirect.code is None, ctx.rule.id,
           "the error redirect lacks the state sent or carries a code", exchange=exchange)


@named("oauth-code-exchange", params={**_USE_ON, "refresh_token": {"type": "boolean"}})
def code_exchange(ctx: CheckContext) -> None:
    """The code of a granted request (every scope of the scheme, space-separated) exchanged with
    its verifier gives an access token accepted on ``use_on`` (and a refresh token, where
    ``params.refresh_token``)."""
    client, pkce, redirect = granted(ctx)
    assert redirect.code
    body = client.tokens(client.exchange_code(redirect.code, pkce), "exchanging the code with its verifier")
    if ctx.rule.params.get("refresh_token"):
        expect(bool(body.get("refresh_token")), ctx.rule.id, "the code exchange gave no refresh token",
               expected="refresh_token in the token response")
    _accepted(ctx, client, body["access_token"], "the access token from the code exchange (every scope granted)")


# -- token requests ----------------------------------------------------------------------------
class _TokenRequests:
    """Fresh codes for one check, and the control every refusal is held against: a correct
    exchange of a fresh code is accepted, so a target that refuses every token request fails."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.client = client_for(ctx)
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

    def refused(self, why: str, change: dict[str, Any]) -> None:
        pkce, code = self.fresh()
        exchange = self.client.exchange_code(code, pkce, **change)
        expect_refused(self.ctx, why, lambda: exchange, control=self.control)


_EDITS = ("leave-out", "off-list", "other-redirect-uri", "other-verifier", "code-again")


@named("oauth-token-refused", params={
    "edit": {"enum": list(_EDITS)},
    "fields": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "outside": {"type": "array", "items": {"type": "string"}}}, required=("edit",))
def token_refused(ctx: CheckContext) -> None:
    """A code exchange with one edit is refused (RFC 6749 section 4.1.3, RFC 7636 section 4.6):
    ``leave-out`` each of ``fields``; ``off-list`` each value outside the rule member's list (the
    rule's ``outside`` and near misses of the listed values; a listed refresh_token grant is then
    accepted where the refresh token is configured); ``other-redirect-uri`` than step 1's;
    ``other-verifier`` (well-formed, another challenge's); ``code-again`` (a code exchanged twice)."""
    t, params = _TokenRequests(ctx), ctx.rule.params
    edit = params["edit"]
    if edit == "leave-out":
        for name in params.get("fields") or ctx.skip("the rule names no fields to leave out (params.fields)"):
            t.refused(f"token request without {name}", {name: MISSING})
    elif edit == "off-list":
        if not (ctx.rule.operation and ctx.rule.where):
            raise ContractFileError(f"{ctx.rule.id}: edit off-list needs the rule's operation and where")
        name = ctx.rule.where.partition(".")[2]
        listed = ctx.contract.where_schema(ctx.rule.operation, ctx.rule.where).get("enum") or []
        for value in outside_values(listed, params.get("outside") or []):
            t.refused(f"{name}={value!r} outside the list", {name: value})
        refresh_token = ctx.optional(_refresh_source(t.client))
        if "refresh_token" in listed and refresh_token:  # the listed refresh grant: accepted
            t.client.tokens(t.client.refresh(refresh_token), "grant_type=refresh_token")
    elif edit == "other-redirect-uri":
        other = t.client.redirect_uri.rstrip("/") + "/elsewhere"
        t.refused("a redirect_uri other than step 1's", {"redirect_uri": other})
    elif edit == "other-verifier":
        wrong = Pkce.derive(ctx.rule.id, 1000).verifier  # well-formed, just not this challenge's
        t.refused("a code_verifier of another challenge", {"code_verifier": wrong})
    else:
        pkce, code = t.fresh()
        first = t.client.exchange_code(code, pkce)
        t.client.tokens(first, "first exchange of a fresh code")
        expect_refused(ctx, "the same code exchanged a second time", lambda: t.client.exchange_code(code, pkce),
                       control=lambda: first)


# -- refresh grant and lifetimes ---------------------------------------------------------------
@named("oauth-refresh-grant", params=_USE_ON)
def refresh_grant(ctx: CheckContext) -> None:
    """RFC 6749 section 6: the configured refresh token gives an access token accepted on ``use_on``."""
    client = client_for(ctx)
    body = client.tokens(client.refresh(ctx.credential(_refresh_source(client))), "the refresh_token grant")
    _accepted(ctx, client, body["access_token"], "the refreshed access token")


@named("oauth-expires-in", params={"access_token_seconds": {"type": "integer", "minimum": 1}},
       required=("access_token_seconds",))
def expires_in(ctx: CheckContext) -> None:
    """Where the token response states expires_in (RFC 6749 section 5.1: RECOMMENDED), it is the
    documented access token lifetime."""
    seconds, client = ctx.rule.params["access_token_seconds"], client_for(ctx)
    exchange = client.refresh(ctx.credential(_refresh_source(client)))
    body = client.tokens(exchange, "the refresh_token grant")
    if "expires_in" not in body:
        ctx.skip("the token response states no expires_in")
    expect(body["expires_in"] == seconds, ctx.rule.id, f"expires_in is {body['expires_in']}",
           exchange=exchange, expected=f"expires_in {seconds} (the access token lifetime)")


def _wait(ctx: CheckContext, seconds: float) -> None:
    """Simulated time on sim, none on replay; real time only when it is short."""
    if ctx.can.waits_real_time:
        real = seconds / ctx.target.settings.time_scale
        limit = ctx.rule.params["max_real_wait_seconds"]
        ctx.require(real <= limit, f"wait {real:.0f} s of real time (over {limit} s); it is checked on the "
                    "simulator's clock, or serve with --clock-rate R and set CONFORMANCE_TIME_SCALE=R")
    ctx.sleep(seconds)


@named("oauth-access-token-lifetime", params={"access_token_seconds": {"type": "integer"}, **_USE_ON, **_WAITS},
       required=("access_token_seconds", *_WAITS))
def access_token_lifetime(ctx: CheckContext) -> None:
    """A token from a refresh grant made now is accepted on ``use_on`` ``margin_seconds`` before
    its lifetime ends and refused as long after; a token refreshed then is accepted again."""
    params, client = ctx.rule.params, client_for(ctx)
    margin, source = params["margin_seconds"], _refresh_source(client)
    ok = success_statuses(ctx.contract, _use_on(ctx))

    def issued_now() -> AuthAs:
        return client.presenting(client.tokens(client.refresh(ctx.credential(source)), "refresh_token grant")
                                 ["access_token"])

    token = issued_now()
    _wait(ctx, params["access_token_seconds"] - margin)
    expect_status(ctx.rule.id, _use(ctx, token), ok, f"the access token {margin} s before its lifetime ends")
    _wait(ctx, 2 * margin)
    late = _use(ctx, token)
    # What a client does next: refresh, and the new token works again (the control).
    expect_refused(ctx, f"the access token {margin} s after its lifetime ended", lambda: late,
                   control=lambda: _use(ctx, issued_now()), credential_variant=True)
    expect_status(ctx.rule.id, _use(ctx, issued_now()), ok, "a token refreshed after expiry")


@named("oauth-refresh-token-lifetime",
       params={"refresh_token_seconds": {"type": "integer"}, "unspent": {"type": "string"}, **_WAITS},
       required=("refresh_token_seconds", "unspent", *_WAITS))
def refresh_token_lifetime(ctx: CheckContext) -> None:
    """The configured refresh token is accepted ``margin_seconds`` before its lifetime ends and
    refused as long after. ``unspent`` names a second, never-used refresh token: the control is
    spent before the lifetime ends and the probe only after, so a token refused for being reused
    cannot pass for one refused for its age."""
    params, client = ctx.rule.params, client_for(ctx)
    # Only meaningful when the configured refresh token is fresh: a fresh simulator per case (or
    # its recording) seeds it now; elsewhere its age is unknown, and waiting out its lifetime would
    # also expire it for every later case on a shared server.
    ctx.require(ctx.can.steerable or ctx.can.replays, "tell when its configured refresh token was issued "
                "(the lifetime is checked on the simulator's clock)")
    margin, lifetime = params["margin_seconds"], params["refresh_token_seconds"]
    _wait(ctx, lifetime - margin)
    control = client.refresh(ctx.credential(params["unspent"]))
    client.tokens(control, f"refresh_token grant with {params['unspent']} before {lifetime} s")
    _wait(ctx, 2 * margin)
    expect_refused(ctx, f"a refresh token past {lifetime} s",
                   lambda: client.refresh(ctx.credential(_refresh_source(client))), control=lambda: control)
