"""Scenario checks of the outreach accounts: what no generic check expresses (a create with a
fresh identifier under another key, the rate limit on creation). Read-only fields, updates and
deletes read back are the core checks read-only-ignored and read-after-write. Campaign, email
and route checks: campaign_checks.py."""

from __future__ import annotations

from itertools import count
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, auth_as
from conformance.checks.boundary import with_member
from conformance.checks.context import CheckContext
from conformance.checks.examples import unique
from conformance.checks.expect import expect, expect_status
from conformance.checks.observatory import shape
from conformance.checks.registry import named
from conformance.checks.wellformed import ill_formed
from conformance.errors import ContractFileError, SkipKind
from conformance.services.outreach import campaign_checks  # noqa: F401  (registers its checks)
from conformance.transport.model import Exchange

__all__: list[str] = []


class Fresh:
    """Sends the operation's example with its ``x-unique`` members (the account's email) new on
    every request (``checks/examples.py``: ``local+<rule>-<n>@domain``), ``edits`` on top."""

    def __init__(self, ctx: CheckContext, operation: str | None = None) -> None:
        self.ctx = ctx
        self.operation = operation or ctx.rule.operation or ""
        self._serial = count(1)
        self.last: dict[str, Any] = {}

    def send(self, edits: dict[str, Any] | None = None, **kwargs: Any) -> Exchange:
        body = unique(self.ctx, self.operation, self.ctx.contract.request_example(self.operation), next(self._serial))
        for dotted, value in (edits or {}).items():
            body = with_member(body, dotted, value)
        self.last = body
        return self.ctx.call(self.operation, json_body=body, **kwargs)


_AS: dict[str, Any] = {"as": AUTH_AS_SCHEMA}


@named("outreach/scope-observe", params={**_AS, "gap": {"type": "string", "pattern": r"^[a-z]+\.gap\.[a-z0-9-]+$"}},
       required=("gap", "as"))
def scope_observe(ctx: CheckContext) -> None:
    """What a key whose grant the document does not define gets: recorded, never judged (the
    gap observatory's outcome); only an answer ill-formed for its declared media type fails."""
    if ctx.rule.params["gap"] not in {g.id for g in ctx.contract.gaps}:
        raise ContractFileError(f"{ctx.rule.id}: observes {ctx.rule.params['gap']}, not a gap of the contract")
    how = auth_as(ctx.rule.params["as"])
    operation = ctx.rule.operation or ""
    if ctx.contract.json_media(operation).get("x-unique"):
        exchange = Fresh(ctx).send(auth=how)
    else:
        exchange = ctx.call(operation, auth=how)
    problem = ill_formed(exchange.response)
    expect(problem is None, ctx.rule.id, f"{operation}: {problem}", exchange=exchange,
           expected="a body that is what its Content-Type declares")
    ctx.skip(f"gap {ctx.rule.params['gap']} observed, not judged: {operation} with {how.describe()} answered "
             f"{exchange.response.status} {shape(exchange.response)}", SkipKind.GAP_OBSERVED)


_BURST = {"max_burst_requests": {"type": "integer", "minimum": 1}}


@named("outreach/create-rate-limit", params=_BURST, required=tuple(_BURST))
def create_rate_limit(ctx: CheckContext) -> None:
    """Creation past the limit is answered 429. Whether the target serves again after a client
    backs off, and when, is not shown (the back-off is advice to clients): gap rate-limits."""
    params = ctx.rule.params
    fresh = Fresh(ctx)
    for _ in range(params["max_burst_requests"]):
        exchange = fresh.send(backoff=False)
        if exchange.response.status == 429:
            return
        expect_status(ctx.rule.id, exchange, 200, "a create within the rate limit")
    ctx.skip(f"no 429 within {params['max_burst_requests']} creates: the ceiling is not shown (bounded probe)")

