"""Scenario check of the rate limit (archived tags are a core read-after-write rule)."""

from __future__ import annotations

from functools import partial

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status
from conformance.checks.registry import named

__all__: list[str] = []

CLIENT = "GET /metadata/client"


@named("social/per-minute", params={"per_minute": {"type": "integer", "minimum": 1}}, required=("per_minute",))
def per_minute(ctx: CheckContext) -> None:
    """Reach a 429, wait what it asks (or a minute), then the next ``per_minute`` requests are
    served and the one after them is refused. Not on a target where waiting is real: the harness
    keeps the documented rate there, so it would never send the 61st request in a minute."""
    ctx.require(not ctx.can.waits_real_time, "exceed the documented rate (the harness keeps it on live targets)")
    limit = ctx.rule.params["per_minute"]
    send = partial(ctx.call, CLIENT, backoff=False)
    first = next((e for e in (send() for _ in range(limit + 1)) if e.response.status == 429), None)
    expect(first is not None, ctx.rule.id, f"{limit + 1} requests within a minute were all served",
           expected=f"429 at the latest for request {limit + 1}")
    assert first is not None
    # A whole minute (at least): a sliding window is empty again then, a fixed one too.
    retry = first.response.headers.get("retry-after", "")
    ctx.sleep(max(float(retry) if retry.isdigit() else 0.0, 60.0))
    for number in range(1, limit + 1):
        served = send()
        expect(served.response.status == 200, ctx.rule.id, f"request {number} of {limit} in a fresh minute answered "
               f"{served.response.status}", exchange=served, expected=f"{limit} requests a minute served")
    expect_status(ctx.rule.id, send(), 429, f"request {limit + 1} within the minute")
