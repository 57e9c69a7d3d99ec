"""Scenario check of the conversion report (volume 3, part C): the start of the 365-day / one-year
window with its documented conflict (formats, filters, defaults and the span are core checks).

Dates come from the target's today (``common.today``: the TODAY setting), never from the harness's clock.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.affiliate.common import REPORT, dated_body, ok, today
from conformance.transport.model import Exchange

__all__: list[str] = []

_RANGE = {"days": {"type": "integer", "minimum": 1}}


def _year_back(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:
        return day.replace(year=day.year - 1, day=28)


def _send(ctx: CheckContext, first: date, last: date) -> Exchange:
    return ctx.call(REPORT, json_body=dated_body(ctx, REPORT, **{"from": first.isoformat(), "to": last.isoformat()}))


def _older_rows(exchange: Exchange, edge: date) -> list[str]:
    """Ids of rows dated before ``edge`` in every timezone (14 hours of slack: the report's
    timezone offset is not shown)."""
    limit = datetime.combine(edge, time(), UTC).timestamp() - 14 * 3600
    body = exchange.response.json()
    rows = body.get("conversions") if isinstance(body, dict) else None
    return [str(r.get("conversion_id")) for r in rows or [] if isinstance(r, dict)
            and isinstance(r.get("conversion_unix_timestamp"), (int, float)) and r["conversion_unix_timestamp"] < limit]


def _before_window(ctx: CheckContext, exchange: Exchange, edge: date, why: str) -> None:
    """Refused (any 4xx), or served without rows from before the window (gap window-before-start)."""
    status = exchange.response.status
    if 400 <= status < 500:
        return
    ok(ctx, exchange, REPORT, why)
    older = _older_rows(exchange, edge)
    expect(not older, ctx.rule.id, f"{why}: answered with {len(older)} rows from before {edge}", exchange=exchange,
           expected="a refusal, or only rows of the previous 365 days")


@named("affiliate/window-start", params={**_RANGE, "span_days": {"type": "integer", "minimum": 0},
                  "probe_days": {"type": "integer", "minimum": 1}}, required=("days", "span_days", "probe_days"))
def window_start(ctx: CheckContext) -> None:
    days, span = ctx.rule.params["days"], ctx.rule.params["span_days"]
    end = today(ctx)
    edge = end - timedelta(days=days)
    ok(ctx, _send(ctx, edge, edge + timedelta(days=span)), REPORT, f"from {days} days back (the edge)")
    past = edge - timedelta(days=1)
    if _year_back(end) == past:  # one year back is a day further: the readings differ there
        probe = _send(ctx, past, past + timedelta(days=span))
        if 400 <= probe.response.status < 500:
            ctx.observed(0)
        else:  # served: whether that day's rows come too cannot be told apart from clipping
            _before_window(ctx, probe, past, f"from {days + 1} days back, exactly one year")
        edge = past
    else:
        ctx.observed(0, 1)  # the two readings coincide at this date
    start = edge - timedelta(days=ctx.rule.params["probe_days"])
    _before_window(ctx, _send(ctx, start, edge), edge,
                   f"from {ctx.rule.params['probe_days']} days before the previous {days} days")
