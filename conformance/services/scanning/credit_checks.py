"""Scanning checks of scans that observe credit balances: what credits_left gives, the two forms
of ips, and refused scans (whose cost is a gap: observed, never judged).

What an operation costs is the core ``counter-delta`` check over api-info's balances. The
document does not say api-info is free, so a steady cost per api-info read (three reads, equal
gaps) is measured and taken off here too (``balance_drift``); a balance that moves irregularly on
its own (another client on a shared account) makes the attribution impossible: the check skips.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.scanning.checks import (
    CREDIT_FIELDS,
    STRING,
    balance,
    balance_drift,
    expect_shape,
)
from conformance.transport.model import Exchange

__all__: list[str] = []

SCAN = "POST /scan"

_FIELD = {"balance_field": {"enum": list(CREDIT_FIELDS)}}
_IPS = {"ips": {"type": "array", "items": STRING, "minItems": 1}}
_BODIES = {"bodies": {"type": "array", "items": {"type": "object"}, "minItems": 1}}


def _scan(ctx: CheckContext, body: Any) -> Exchange:
    return ctx.call(SCAN, json_body=body)


@named("scanning/scan-response", params={**_IPS, **_FIELD}, required=("ips", "balance_field"))
def scan_response(ctx: CheckContext) -> None:
    """The scan answers {count, id, credits_left}. Which balance credits_left gives is not shown
    (gap credits-left-meaning): how it compares with api-info afterwards is observed, not judged."""
    p = ctx.rule.params
    field = p["balance_field"]
    _, drift = balance_drift(ctx)
    exchange = _scan(ctx, {"ips": ",".join(p["ips"])})
    body = expect_shape(ctx, exchange, SCAN, "a scan")
    left = balance(ctx)[field] + drift[field]
    ctx.observed(f"credits_left {body['credits_left']}, api-info {field} afterwards {left}")


@named("scanning/scan-ips-forms", params=_BODIES, required=("bodies",))
def scan_ips_forms(ctx: CheckContext) -> None:
    for body in ctx.rule.params["bodies"]:
        ips = body["ips"]
        if not isinstance(ips, dict):
            expect_shape(ctx, _scan(ctx, body), SCAN, f"a scan of ips {ips!r}")
            continue
        # The conflict: the mapping as the value of ips, or as the whole body.
        wrapped = _scan(ctx, body)
        if wrapped.response.status == 200:
            expect_shape(ctx, wrapped, SCAN, "a scan with ips as an object")
            ctx.observed(0)
            continue
        bare = _scan(ctx, ips)
        expect(bare.response.status == 200, ctx.rule.id,
               f"ips as an object was refused both as {{ips: {{...}}}} ({wrapped.response.status}) "
               f"and as the whole body ({bare.response.status})", exchange=bare,
               expected="one of the two documented readings accepted")
        expect_shape(ctx, bare, SCAN, "a scan with the ips object as the body")
        ctx.observed(1)
