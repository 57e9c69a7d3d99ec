"""Scenario check of the click stream (volume 3, part C): the retention of clicks with conversions
(its span limit is the core ``date-span``, unzip of uploads the core read-after-write check)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

from conformance.checks.combine import read_every_page
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.paging import PAGING_PARAMS, member_names
from conformance.checks.registry import named
from conformance.errors import ContractFileError
from conformance.services.affiliate.common import CLICKS, REPORT, dated_body, ok, stamp_text, today
from conformance.transport.model import Exchange

__all__: list[str] = []


def _clicks(ctx: CheckContext, first: str, last: str) -> Exchange:
    return ctx.call(CLICKS, json_body=dated_body(ctx, CLICKS, **{"from": first, "to": last}))


_DAYS = {"type": "integer", "minimum": 1}


@named("affiliate/clicks-retention",
       params={**PAGING_PARAMS, "months": _DAYS, "window_days": _DAYS, "window_end_days_back": _DAYS},
       required=("months", "window_days", "window_end_days_back", "style"))
def clicks_retention(ctx: CheckContext) -> None:
    params = member_names(ctx, ctx.rule.params)
    if params["window_end_days_back"] <= params["months"] * 31:
        raise ContractFileError(f"{ctx.rule.id}: the window must end more than {params['months']} months back")
    end = today(ctx) - timedelta(days=params["window_end_days_back"])
    start = end - timedelta(days=params["window_days"])
    exchange = _clicks(ctx, stamp_text(start), stamp_text(end))
    got = {c.get("transaction_id") for c in ok(ctx, exchange, CLICKS, "an old click window")["clicks"]}
    # The conversions whose click falls in the window (a conversion follows its click), read as
    # the rule's walk params say.
    dates = {"from": start.isoformat(), "to": (end + timedelta(days=2)).isoformat()}
    lo = datetime.combine(start, time(), UTC).timestamp()
    hi = datetime.combine(end, time(), UTC).timestamp()
    wanted = {r.get("transaction_id") for r in read_every_page(ctx, params, dates, operation=REPORT)
              if lo <= _seconds(r.get("click_unix_timestamp")) <= hi}
    if not wanted:
        ctx.skip("no conversion's click falls in the old window: retention not exercised")
    # Only what is promised: clicks with conversions stay. Whether raw clicks are gone after
    # the 3 months is not stated (gap raw-click-expiry), so extra clicks are no failure.
    expect(not (wanted - got), ctx.rule.id, f"{len(wanted - got)} clicks with conversions are gone",
           exchange=exchange, expected="clicks with conversions kept forever")


def _seconds(value: Any) -> float:
    """click_unix_timestamp's type is not shown (gap untyped-members): a number or its text."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return -1.0
