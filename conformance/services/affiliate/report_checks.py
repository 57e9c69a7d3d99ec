"""Scenario checks of the conversion report (volume 3, part C): formats, filters, defaults,
and the 365-day / one-year window with its documented conflict.

Dates come from the target's today (``common.today``: the TODAY setting), never from the harness's clock.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from hypothesis import example
from hypothesis import strategies as st

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.registry import named
from conformance.services.affiliate.common import (
    DAYS,
    PAGED,
    REPORT,
    dated_body,
    ok,
    read_report,
    today,
    window,
)
from conformance.transport.model import Exchange

__all__: list[str] = []

ABSENT = "conformance-absent-value"


def _ids(rows: list[dict[str, Any]]) -> set[str]:
    return {r["conversion_id"] for r in rows}


@named("affiliate/date-formats", params=DAYS, required=("days_back",))
def date_formats(ctx: CheckContext) -> None:
    end = today(ctx)
    start = end - timedelta(days=ctx.rule.params["days_back"])
    for label, first, last in (("YYYY-mm-DD", start.isoformat(), end.isoformat()),
                               ("YYYY-mm-DD hh:mm:ss", f"{start} 00:00:00", f"{end} 00:00:00"),
                               ("both forms mixed", start.isoformat(), f"{end} 12:30:00")):
        body = dated_body(ctx, REPORT, **{"from": first, "to": last})
        ok(ctx, ctx.call(REPORT, json_body=body), REPORT, f"from/to as {label}")


def _row_value(row: dict[str, Any], resource_type: str) -> str:
    value = row.get(resource_type)
    return "" if value is None else str(value)


@named("affiliate/filters-combine",
       params={**PAGED, "resource_types": {"type": "array", "items": {"type": "string"}, "minItems": 2}},
       required=("days_back", "page_size", "max_pages", "resource_types"))
def filters_combine(ctx: CheckContext) -> None:
    """Each generated filter set is evaluated independently over the unfiltered rows: a row
    stays when, for every resource type filtered, its member of that name is one of the values."""
    params = ctx.rule.params
    body = window(ctx, params["days_back"])
    universe = read_report(ctx, body, params["page_size"], params["max_pages"])
    values = {t: sorted({_row_value(r, t) for r in universe} - {""}) for t in params["resource_types"]}
    values = {t: v for t, v in values.items() if v}
    if len(values) < 2 or not any(len(v) >= 2 for v in values.values()):
        ctx.skip("the window's rows do not vary over two filterable types: filters not exercised")
    types = sorted(values)
    wide = next(t for t in types if len(values[t]) >= 2)
    other = next(t for t in types if t != wide)
    pair = st.sampled_from(types).flatmap(lambda t: st.tuples(st.just(t), st.sampled_from([*values[t], ABSENT])))

    @ctx.given(REPORT, strategy=st.lists(pair, min_size=1, max_size=4, unique=True))
    @example([(wide, values[wide][0]), (wide, values[wide][1])])  # OR within one type
    @example([(wide, values[wide][0]), (other, values[other][0])])  # AND across types
    def matches(filters: list[tuple[str, str]]) -> None:
        grouped: dict[str, set[str]] = {}
        for kind, value in filters:
            grouped.setdefault(kind, set()).add(value)
        expected = {r["conversion_id"] for r in universe
                    if all(_row_value(r, kind) in chosen for kind, chosen in grouped.items())}
        query = {"filters": [{"filter_id_value": v, "resource_type": t} for t, v in filters]}
        got = read_report(ctx, {**body, "query": query}, params["page_size"], params["max_pages"])
        expect(_ids(got) == expected, ctx.rule.id,
               f"filters {filters}: {len(got)} rows, {len(expected)} expected "
               f"({len(_ids(got) - expected)} extra, {len(expected - _ids(got))} missing)",
               exchange=ctx.session.exchanges[-1],
               expected="OR within one resource type, AND across types")

    matches()


@named("affiliate/show-only-defaults",
       params={**PAGED, "members": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
       required=("days_back", "page_size", "max_pages", "members"))
def show_only_defaults(ctx: CheckContext) -> None:
    params = ctx.rule.params
    body = window(ctx, params["days_back"])
    omitted = _ids(read_report(ctx, body, params["page_size"], params["max_pages"]))
    for member in params["members"]:
        sent = _ids(read_report(ctx, {**body, member: False}, params["page_size"], params["max_pages"]))
        expect(sent == omitted, ctx.rule.id,
               f"omitting {member} gives {len(omitted)} rows, {member}=false gives {len(sent)}",
               exchange=ctx.session.exchanges[-1], expected=f"{member} defaults to false")


_RANGE = {"days": {"type": "integer", "minimum": 1}}


def _year_back(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:
        return day.replace(year=day.year - 1, day=28)


def _send(ctx: CheckContext, first: date, last: date) -> Exchange:
    return ctx.call(REPORT, json_body=dated_body(ctx, REPORT, **{"from": first.isoformat(), "to": last.isoformat()}))


def _contested(ctx: CheckContext, exchange: Exchange, why: str) -> None:
    """At 366 days in a year holding 29 February: 400 is the 365-day reading, 2xx one year."""
    status = exchange.response.status
    if status == 400:
        ctx.observed(0)
    elif status in success_statuses(ctx.contract, REPORT):
        ctx.observed(1)
    else:
        expect_status(ctx.rule.id, exchange, {400, *success_statuses(ctx.contract, REPORT)}, why)


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


@named("affiliate/span-limit",
       params={**_RANGE, "start_days_back": {"type": "integer", "minimum": 0}}, required=("days", "start_days_back"))
def span_limit(ctx: CheckContext) -> None:
    days = ctx.rule.params["days"]
    start = today(ctx) - timedelta(days=ctx.rule.params["start_days_back"])
    control = _send(ctx, start, start + timedelta(days=days))
    if control.response.status not in success_statuses(ctx.contract, REPORT):
        ctx.skip(f"a {days}-day span starting inside the window (so ending in the future) was refused "
                 f"({control.response.status}); the span edge cannot be separated from the window start")
    ok(ctx, control, REPORT, f"a span of {days} days")
    longer = start + timedelta(days=days + 1)
    probe = ctx.call(REPORT, json_body=dated_body(ctx, REPORT, **{"from": start.isoformat(), "to": longer.isoformat()}))
    after = _year_back(longer)  # the span is one calendar year when this is start
    if after == start:
        _contested(ctx, probe, f"a span of {days + 1} days, exactly one year")
        expect_status(ctx.rule.id, _send(ctx, start, longer + timedelta(days=1)), 400, "a span above one year")
    else:
        expect_status(ctx.rule.id, probe, 400, f"a span of {days + 1} days")
        ctx.observed(0, 1)
