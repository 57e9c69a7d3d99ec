"""Rows kept past a retention: what one read shows of an old window, another still lists (issue 35,
item 8; was affiliate's own check).

``kept-rows``: the rule's operation (a stream, the request its example body, re-dated) is read over
an old window of ``window_days`` days ending ``end_days_back`` days before the target's today (the
TODAY setting), written into ``members`` (from and to) with ``format``, midnight to midnight. The
window must end more than ``beyond_days`` days back (the retention the document states: a window
inside it would show nothing). The ``source`` operation's rows (read to the end with the paging
params, ``source_members`` set to the window's days, the end ``source_days_after`` later, as a
source row may follow its stream row) whose ``stamp`` (unix seconds, or their text) falls in the
window name a ``key``; each must be among the keys of the stream's ``rows_field`` rows.

The window's midnights are in the request's time zone, whose offset is not shown: a source row
counts only where it falls inside the window under every UTC offset (-12:00 to +14:00), so a
conforming server reading the window in any zone passes. Extra stream rows are no failure (whether
rows without a source row are gone is another question).
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

from conformance.checks.combine import read_every_page
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, today
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.paging import PAGING_PARAMS, dig, member_names
from conformance.checks.registry import named
from conformance.errors import ContractFileError

__all__ = ["kept_rows"]

_NAME = {"type": "string"}
_DAYS = {"type": "integer", "minimum": 1}
_PAIR = {"type": "array", "items": _NAME, "minItems": 2, "maxItems": 2}
# The widest offsets of local time from UTC: a local midnight lies this far either side of UTC's.
_EAST, _WEST = timedelta(hours=14), timedelta(hours=12)


def _seconds(value: Any) -> float | None:
    """A stamp in unix seconds, given as a number or its text (its type may not be shown)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


@named("kept-rows", params={**PAGING_PARAMS, "members": _PAIR, "format": _NAME, "window_days": _DAYS,
                            "end_days_back": _DAYS, "beyond_days": _DAYS, "rows_field": _NAME, "key": _NAME,
                            "source": _NAME, "source_members": _PAIR, "source_days_after": {"type": "integer",
                                                                                               "minimum": 0},
                            "stamp": _NAME},
       required=("members", "window_days", "end_days_back", "beyond_days", "rows_field", "key", "source",
                 "source_members", "stamp", "style"))
def kept_rows(ctx: CheckContext) -> None:
    params = member_names(ctx, ctx.rule.params)
    if params["end_days_back"] <= params["beyond_days"]:
        raise ContractFileError(f"{ctx.rule.id}: the window must end more than {params['beyond_days']} days back")
    operation, source = str(ctx.rule.operation), params["source"]
    end = today(ctx) - timedelta(days=params["end_days_back"])
    start = end - timedelta(days=params["window_days"])
    first, last = params["members"]
    form = params.get("format", "%Y-%m-%d %H:%M:%S")
    stamps = {first: datetime.combine(start, time()).strftime(form), last: datetime.combine(end, time()).strftime(form)}
    exchange = ctx.call(operation, json_body={**example_body(ctx, operation), **stamps})
    why = f"the window {stamps[first]} to {stamps[last]}, {params['end_days_back']} days back"
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation) or set(range(200, 300)), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    answer = expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why) if schema \
        else exchange.response.json()
    rows = dig(answer, params["rows_field"])
    expect(isinstance(rows, list), ctx.rule.id, f"{why}: no rows at {params['rows_field']}", exchange=exchange,
           expected=f"an array of rows at {params['rows_field']}")
    got = {row.get(params["key"]) for row in rows if isinstance(row, dict)}
    # Inside the window whatever the request's zone: after the latest local midnight of its start,
    # before the earliest of its end.
    low = (datetime.combine(start, time(), UTC) + _WEST).timestamp()
    high = (datetime.combine(end, time(), UTC) - _EAST).timestamp()
    after = timedelta(days=params.get("source_days_after", 0))
    dates = dict(zip(params["source_members"], (start.isoformat(), (end + after).isoformat()), strict=True))
    wanted = set()
    for row in read_every_page(ctx, params, dates, operation=source):
        stamp = _seconds(dig(row, params["stamp"])) if isinstance(row, dict) else None
        if stamp is not None and low <= stamp <= high and row.get(params["key"]) is not None:
            wanted.add(row.get(params["key"]))
    if not wanted:
        ctx.skip(f"no {source} row's {params['stamp']} falls in {why} in every time zone: not exercised")
    missing = wanted - got
    expect(not missing, ctx.rule.id, f"{why}: {len(missing)} of the {len(wanted)} rows {source} lists are gone "
           f"(e.g. {sorted(map(str, missing))[:3]})", exchange=exchange,
           expected=f"every row with a {source} row kept")
