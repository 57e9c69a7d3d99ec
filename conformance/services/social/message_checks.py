"""Scenario checks of inbox messages: message ids, bare dates, post_type (the default order is the core
``rows-ordered``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import named
from conformance.services.social.support import MESSAGES, accepted, body, post, rows_of

__all__ = ["read_messages"]

_INT = {"type": "integer", "minimum": 1}


def read_messages(ctx: CheckContext, query: dict[str, Any], max_pages: int,
                  enough: int | None = None) -> list[tuple[list[Any], Any, Any]]:
    """Pages of a messages query, following next_cursor: (rows, paging, exchange) each."""
    pages: list[tuple[list[Any], Any, Any]] = []
    cursor = None
    for number in range(1, max_pages + 1):
        exchange = post(ctx, MESSAGES, {**query, **({"page_cursor": cursor} if cursor else {})})
        answer = accepted(ctx, exchange, MESSAGES, f"messages page {number}")
        pages.append((answer["data"], answer.get("paging"), exchange))
        cursor = (answer.get("paging") or {}).get("next_cursor")
        if not cursor or (enough and sum(len(p[0]) for p in pages) >= enough):
            return pages
    ctx.skip(f"the messages query needs more than {max_pages} pages: not read to the end")


@named("social/message-id-max", params={"max_ids": _INT}, required=("max_ids",))
def message_id_max(ctx: CheckContext) -> None:
    most = ctx.rule.params["max_ids"]
    query = body(ctx, MESSAGES)
    query.pop("limit", None)
    guids: list[str] = []
    for rows, _, _ in read_messages(ctx, query, max_pages=most, enough=most + 1):
        guids += [r["guid"] for r in rows]
    if len(guids) <= most:
        ctx.skip(f"the example's query has {len(guids)} messages: {most + 1} ids cannot be named")

    def with_ids(count: int) -> Any:
        return post(ctx, MESSAGES, {"filters": [f"message_id.eq({', '.join(guids[:count])})"]})

    expect_refused(ctx, f"{most + 1} message ids", partial(with_ids, most + 1), control=partial(with_ids, most))


@named("social/bare-date-midnight", params={"start": {"type": "string"}, "end": {"type": "string"},
                                                        "limit": _INT}, required=("start", "end", "limit"))
def bare_date_midnight(ctx: CheckContext) -> None:
    """The bare-date range selects what a range from midnight to midnight selects, in some one
    time zone (which zone a bare date's midnight is in is not said: no timezone is sent, and
    what timezone does on messages is gap messages-timezone). The candidates are read from a
    range a day wider on each side; a message at exactly the end may go either way (range dots
    on messages are not defined)."""
    start, end = date.fromisoformat(ctx.rule.params["start"]), date.fromisoformat(ctx.rule.params["end"])

    def selected(first: str, last: str) -> dict[str, Any]:
        query = body(ctx, MESSAGES, limit=ctx.rule.params["limit"], fields=["guid", "created_time"])
        query["filters"] = [f for f in query["filters"] if not f.startswith("created_time.")]
        query["filters"].append(f"created_time.in({first}..{last})")
        return {r["guid"]: r.get("created_time") for rows, _, _ in read_messages(ctx, query, 20) for r in rows}

    bare = set(selected(start.isoformat(), end.isoformat()))
    wide = {guid: _moment(stamp) for guid, stamp in selected(
        f"{(start - timedelta(days=1)).isoformat()}T00:00:00Z", f"{(end + timedelta(days=1)).isoformat()}T00:00:00Z"
    ).items() if isinstance(stamp, str)}
    if not wide:
        ctx.skip(f"no messages around {start} to {end}: nothing to compare")
    low, high = (datetime.combine(d, datetime.min.time(), UTC) for d in (start, end))
    for quarter in range(-14 * 4, 12 * 4 + 1):  # UTC offsets +14:00 .. -12:00, in quarter hours
        shift = timedelta(minutes=15 * quarter)
        first, last = low + shift, high + shift
        want = {g for g, t in wide.items() if first <= t < last}
        at_end = {g for g, t in wide.items() if t == last}
        if bare - at_end == want:
            return
    expect(False, ctx.rule.id, f"bare dates {start}..{end} select {len(bare)} messages, which no midnight-to-midnight "
           "range of one UTC offset selects", exchange=ctx.session.exchanges[-1],
           expected="a bare date read as midnight (in some one time zone)")


def _moment(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@named("social/post-type-format", params={"limit": _INT}, required=("limit",))
def post_type_format(ctx: CheckContext) -> None:
    rows, _ = rows_of(ctx, MESSAGES, body(ctx, MESSAGES, fields=["guid", "post_type", "network"],
                                          limit=ctx.rule.params["limit"]), "messages with post_type and network")
    typed = [r for r in rows if isinstance(r.get("post_type"), str) and isinstance(r.get("network"), str)]
    if not typed:
        ctx.skip("no message carried post_type and network")
    for row in typed:
        value, network = row["post_type"], row["network"].upper()
        expect(value == value.upper() and value.startswith(network), ctx.rule.id,
               f"post_type {value!r} of a {row['network']} message", exchange=ctx.session.exchanges[-1],
               expected=f"upper case, prefixed by {network}")
