"""A rate limit over a window: "N requests per minute" (issue 30).

``rate-window``: the rule's operation is sent until it is refused with the rule's status (429
where none is documented), at the latest at request ``most + 1``; after waiting what the refusal
asks (``Retry-After`` in seconds) or the ``window`` (seconds, default 60), whichever is longer (a
sliding window is empty again then, a fixed one too), the next ``most`` requests are served and
the one after them is refused. Not on a target where waiting is real: the harness keeps the
documented rate there, so it would never send request ``most + 1`` within a window.
"""

from __future__ import annotations

from functools import partial

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status
from conformance.checks.refusal import documented_status
from conformance.checks.registry import named
from conformance.checks.routes import path_values

__all__ = ["rate_window"]


@named("rate-window", params={"most": {"type": "integer", "minimum": 1}, "window": {"type": "number", "minimum": 1}},
       required=("most",))
def rate_window(ctx: CheckContext) -> None:
    ctx.require(not ctx.can.waits_real_time, "exceed the documented rate (the harness keeps it on live targets)")
    most, window = ctx.rule.params["most"], float(ctx.rule.params.get("window", 60))
    operation, status = str(ctx.rule.operation), documented_status(ctx) or 429
    send = partial(ctx.call, operation, backoff=False, path_values=path_values(ctx, operation).values)
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
