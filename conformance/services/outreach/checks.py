"""Scenario checks of the outreach accounts: what no generic check expresses (the rate limit on
creation). Read-only fields, updates and deletes read back are the core checks read-only-ignored
and read-after-write; what keys of an undefined grant get is the core gap-probe. Campaign, email
and route checks: campaign_checks.py."""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.examples import unique
from conformance.checks.expect import expect_status
from conformance.checks.registry import named
from conformance.services.outreach import campaign_checks  # noqa: F401  (registers its checks)

__all__: list[str] = []

_BURST = {"max_burst_requests": {"type": "integer", "minimum": 1}}


@named("outreach/create-rate-limit", params=_BURST, required=tuple(_BURST))
def create_rate_limit(ctx: CheckContext) -> None:
    """Creation past the limit is answered 429. Whether the target serves again after a client
    backs off, and when, is not shown (the back-off is advice to clients): gap rate-limits.
    Each create sends the example with its ``x-unique`` members (the account's email) new
    (``checks/examples.py``: ``local+<rule>-<n>@domain``)."""
    params = ctx.rule.params
    operation = ctx.rule.operation or ""
    for serial in range(1, params["max_burst_requests"] + 1):
        body = unique(ctx, operation, ctx.contract.request_example(operation), serial)
        exchange = ctx.call(operation, json_body=body, backoff=False)
        if exchange.response.status == 429:
            return
        expect_status(ctx.rule.id, exchange, 200, "a create within the rate limit")
    ctx.skip(f"no 429 within {params['max_burst_requests']} creates: the ceiling is not shown (bounded probe)")
