"""The OAuth 2.0 authorization request (steps 1-2 of the code grant) as a client sends it, and the
core check ``authorization-refused``: one member of it wrong, and no code is issued.

The client is the contract's (``auth.oauth.client_for``). A browser carries no credentials; where
the authorization host refuses such a request outright (a 4xx), it is sent once more with the
API's own credentials, since a contract may allow both readings: a rule naming that conflict in
``params.observes`` gets which one the target showed, by the conflict's alternatives in this order:
"with the API's credentials", "without".

``authorization-refused``: the rule's member (``where: query.<name>``) at each of
``params.values`` (for an enum rule also the near misses of the listed values:
``outside_values``), and left out when ``params.leave_out``: no code is issued and the failure is
readable (an error redirect back to the redirect_uri sent, with error and no code; or a 4xx: a
5xx is a crash). The valid request beside it is granted first (the control: without it, "no
code" would prove nothing). Every value is tried before the verdict.
"""

from __future__ import annotations

from typing import Any

from conformance.auth.oauth import MISSING, OAuthClient, Pkce, Redirect, client_for, read_redirect
from conformance.checks.boundary import outside_values
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.errors import ContractFailure
from conformance.transport.model import Exchange

__all__ = ["authorization_refused", "connect", "granted"]


def connect(client: OAuthClient, query: dict[str, str]) -> tuple[Exchange, bool]:
    """The authorization request, without credentials and, where refused outright, with the API's
    (module doc). Returns the answer and whether the credentials were sent."""
    exchange = client.authorize(query)
    if 400 <= exchange.response.status < 500:
        return client.authorize(query, api_credentials=True), True
    return exchange, False


def granted(ctx: CheckContext, client: OAuthClient | None = None) -> tuple[OAuthClient, Pkce, Redirect]:
    """A valid authorization request granted as a client sees it (a code back to the redirect_uri,
    with the state sent); the conflict the rule observes, if any, gets which reading it took."""
    client = client or client_for(ctx)
    pkce = client.pkce()
    query = client.authorization_query(pkce)
    exchange, with_credentials = connect(client, query)
    redirect = client.expect_code(exchange, query, pkce)
    if ctx.rule.params.get("observes"):
        ctx.observed(0 if with_credentials else 1)
    return client, pkce, redirect


def _failed_properly(exchange: Exchange, query: dict[str, str]) -> bool:
    """A failed authorization request: an error redirect back to the redirect_uri sent (with error,
    without code) or a 4xx refusal. A 5xx is a crash, not a failure the client can read."""
    if 400 <= exchange.response.status < 500:
        return True
    redirect = read_redirect(exchange)
    return (redirect is not None and "redirect_uri" in query and redirect.base == query["redirect_uri"]
            and bool(redirect.params.get("error")) and redirect.code is None)


@named("authorization-refused",
       params={"values": {"type": "array", "items": {"type": "string"}}, "leave_out": {"type": "boolean"}})
def authorization_refused(ctx: CheckContext) -> None:
    rule = ctx.rule
    client, _, _ = granted(ctx)
    name = (rule.where or "").partition(".")[2]
    variants: list[Any] = list(rule.params.get("values") or [])
    if rule.kind == "enum" and rule.operation and rule.where:
        variants = outside_values(ctx.contract.where_schema(rule.operation, rule.where).get("enum") or [], variants)
    variants += [MISSING] if rule.params.get("leave_out") else []
    if not variants:
        ctx.skip("the rule names no value to send (params values or leave_out)")
    disputes: list[ContractFailure] = []
    for value in variants:
        try:
            _no_code_for(ctx, client, name, value)
        except ContractFailure as failure:
            disputes.append(failure)
    if disputes:
        first = disputes[0]
        raise ContractFailure(rule.id, "; ".join(d.message for d in disputes), expected=first.expected,
                              exchange=first.exchange)


def _no_code_for(ctx: CheckContext, client: OAuthClient, name: str, value: Any) -> None:
    rule = ctx.rule
    query = client.authorization_query(client.pkce(), **{name: value})
    exchange, _ = connect(client, query)
    shown = "left out" if value is MISSING else f"={value!r}"
    redirect = read_redirect(exchange)
    expect(redirect is None or redirect.code is None, rule.id, f"{name} {shown}: a code was issued anyway",
           exchange=exchange, expected="no code (an error redirect or a 4xx)")
    expect(_failed_properly(exchange, query), rule.id,
           f"{name} {shown}: answered {exchange.response.status} "
           f"{exchange.response.header('location') or ''}".rstrip(), exchange=exchange,
           expected="an error redirect to the redirect_uri sent (error, no code) or a 4xx refusal")
