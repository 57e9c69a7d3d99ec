"""Scenario checks of inbox messages: message ids and post_type (the default order is the core
``rows-ordered``, bare dates the core ``zoned-days``)."""

from __future__ import annotations

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
