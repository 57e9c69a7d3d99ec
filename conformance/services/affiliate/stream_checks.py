"""The affiliate scenario check (volume 3, part C): clicks with conversions are kept past the click
stream's 3 months. Everything else of the service is a core check (``date-span``, ``window-start``,
``filters-combine``, ``export-matches``, ``put-replaces``, ...) or read-after-write data."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from conformance.checks.combine import read_every_page
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, today
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.paging import PAGING_PARAMS, member_names
from conformance.checks.registry import named
from conformance.errors import ContractFileError

__all__: list[str] = []

REPORT = "POST /v1/networks/reporting/conversions"
CLICKS = "POST /v1/affiliates/reporting/clicks/stream"


def _stamp(day: date) -> str:
    return f"{day.isoformat()} 00:00:00"


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
    # The click stream's example (re-dated from the target's today) over the old window.
    exchange = ctx.call(CLICKS, json_body={**example_body(ctx, CLICKS), "from": _stamp(start), "to": _stamp(end)})
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, CLICKS), "an old click window")
    answer = expect_json_schema(ctx.rule.id, ctx.contract, exchange, ctx.contract.response_schema(CLICKS, 200) or {},
                                "an old click window")
    got = {c.get("transaction_id") for c in answer["clicks"]}
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
