"""Rate limits (issue 30): requests sent faster than the documented limit are refused with its
status. Two checks, both counting requests, never reading the clock for a verdict:

``rate-limit`` (a burst) sends ``request`` (a step, ``checks/steps.py``; the rule's operation with its
example request when left out; ``body: example`` makes its ``x-unique`` members new on every
request, so creates never collide) back to back, without the harness's own back-off, up to
``max_burst_requests`` times. The first answer with the rule's documented status
(``violation.status``, else 429) passes the rule; every answer before it must be a documented
success (a 5xx, or any other refusal, fails). When a limited client is served again is not judged:
backing off is advice to clients. No refusal within the bound is a skip (the ceiling is not shown,
or was not reached by the bounded probe), never a pass.

``rate-window`` ("N requests per minute"): the rule's operation is sent until it is refused with the
rule's status (429 where none is documented), at the latest at request ``most + 1``; after waiting
what the refusal asks (``Retry-After`` in seconds) or the ``window`` (seconds, default 60), whichever
is longer (a sliding window is empty again then, a fixed one too), the next ``most`` requests are
served and the one after them is refused. Not on a target where waiting is real: the harness keeps
the documented rate there, so it would never send request ``most + 1`` within a window.

No verdict depends on timing: the requests go as fast as the target answers, and what counts is
their number; the window's wait is the target's clock (``ctx.sleep``).

A status the document tells clients to retry (``x-retry-statuses``) is retried at once, so the
window is not moved (``CheckContext.send`` without back-off). One that stays after the retries
leaves the rule unchecked, unless the request before it was served: the target is then shown up,
and a limit answered with such a status (503 "overloaded" for 429) is judged as it stands.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.paths import path_values
from conformance.checks.refusal import documented_status
from conformance.checks.registry import named
from conformance.checks.steps import STEP_SCHEMA, Steps
from conformance.transport.model import Exchange

__all__ = ["rate_limit", "rate_window"]

_TOO_MANY = 429  # RFC 6585: the status a rate limit answers where the document names none


def _judged_once_served(ctx: CheckContext, send: Callable[[], Exchange]) -> Callable[[], Exchange]:
    """``send``, whose answer is judged as it stands (a transient one too) while the answer before
    it was served: the target is up, so a status it keeps is its answer to the count, not a storm."""
    served = False

    def sent() -> Exchange:
        nonlocal served
        if served:
            with ctx.judging_refusal():
                exchange = send()
        else:
            exchange = send()
        served = 200 <= exchange.response.status < 300 and not exchange.transient
        return exchange

    return sent


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
    send = _judged_once_served(ctx, lambda: steps.send(request, backoff=False).exchange)
    for number in range(1, p["max_burst_requests"] + 1):
        exchange = send()
        if exchange.response.status == limited:
            return
        why = f"request {number} of a burst ({request['call']})"
        expect(not exchange.transient, ctx.rule.id, f"{why}: kept answering {exchange.transient} right after a "
               "served request", exchange=exchange, expected=f"a success or {limited}")
        expect_status(ctx.rule.id, exchange, served | {limited}, why)
    ctx.skip(f"no {limited} within {p['max_burst_requests']} requests to {request['call']}: the ceiling is not "
             "shown, or the bounded probe did not reach it")



@named("rate-window", params={"most": {"type": "integer", "minimum": 1}, "window": {"type": "number", "minimum": 1}},
       required=("most",))
def rate_window(ctx: CheckContext) -> None:
    ctx.require(not ctx.can.waits_real_time, "exceed the documented rate (the harness keeps it on live targets)")
    most, window = ctx.rule.params["most"], float(ctx.rule.params.get("window", 60))
    operation, status = str(ctx.rule.operation), documented_status(ctx) or 429
    send = _judged_once_served(ctx, partial(ctx.call, operation, backoff=False,
                                            path_values=path_values(ctx, operation).values))
    first = next((e for e in (send() for _ in range(most + 1)) if e.response.status == status), None)
    expect(first is not None, ctx.rule.id, f"none of {most + 1} requests within {window:g} seconds was answered "
           f"{status}", exchange=ctx.session.exchanges[-1], expected=f"{status} at the latest for request {most + 1}")
    assert first is not None
    retry = first.response.headers.get("retry-after", "")
    ctx.sleep(max(float(retry) if retry.isdigit() else 0.0, window))
    for number in range(1, most + 1):
        served = send()
        expect(200 <= served.response.status < 300, ctx.rule.id, f"request {number} of {most} in a fresh window "
               f"answered {served.response.status}", exchange=served, expected=f"{most} requests a window served")
    expect_status(ctx.rule.id, send(), status, f"request {most + 1} within the window")
