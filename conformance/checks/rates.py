"""Rate limits: requests sent faster than the documented limit are refused with its status (a
building block; issue 30).

``rate-limit`` sends ``request`` (a step, ``checks/steps.py``; the rule's operation with its
example request when left out; ``body: example`` makes its ``x-unique`` members new on every
request, so creates never collide) back to back, without the harness's own back-off, up to
``max_burst_requests`` times. The first answer with the rule's documented status
(``violation.status``, else 429) passes the rule; every answer before it must be a documented
success (a 5xx, or any other refusal, fails). When a limited client is served again is not judged:
backing off is advice to clients. No refusal within the bound is a skip (the ceiling is not shown,
or was not reached by the bounded probe), never a pass.

No verdict depends on timing: the requests go as fast as the target answers, and what counts is
their number, which the simulators' clocks (never advanced here) do not let run out.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect_status, success_statuses
from conformance.checks.refusal import documented_status
from conformance.checks.registry import named
from conformance.checks.steps import STEP_SCHEMA, Steps

__all__: list[str] = []

_TOO_MANY = 429  # RFC 6585: the status a rate limit answers where the document names none


@named("rate-limit", params={"max_burst_requests": {"type": "integer", "minimum": 1}, "request": STEP_SCHEMA},
       required=("max_burst_requests",))
def rate_limit(ctx: CheckContext) -> None:
    p = ctx.rule.params
    assert ctx.rule.operation, "a rate-limit rule names its operation"
    request: dict[str, Any] = p.get("request") or {"call": ctx.rule.operation}
    limited = documented_status(ctx) or _TOO_MANY
    served = success_statuses(ctx.contract, request["call"]) or set(range(200, 300))
    steps = Steps(ctx)
    steps.guard([request])
    for number in range(1, p["max_burst_requests"] + 1):
        exchange = steps.send(request, backoff=False).exchange
        if exchange.response.status == limited:
            return
        expect_status(ctx.rule.id, exchange, served | {limited}, f"request {number} of a burst ({request['call']})")
    ctx.skip(f"no {limited} within {p['max_burst_requests']} requests to {request['call']}: the ceiling is not "
             "shown, or the bounded probe did not reach it")
