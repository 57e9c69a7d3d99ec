"""Generic cursor-paging walk: follows the cursor to the end, bounded, and checks the walk."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status
from conformance.checks.registry import named
from conformance.transport.model import Exchange

__all__ = ["items_of", "cursor_walk"]


def items_of(body: Any) -> list[Any] | None:
    """The page's items: the one array of objects with an id (its name is not documented)."""
    if not isinstance(body, dict):
        return None
    arrays = [v for v in body.values() if isinstance(v, list) and all(isinstance(i, dict) and "id" in i for i in v)]
    return arrays[0] if len(arrays) == 1 else None


@named("cursor-walk")
def cursor_walk(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.operation
    params = rule.params
    cursor_param = params["cursor_param"]
    more_field = params.get("more_field", "hasMore")
    next_field = params.get("next_field", "nextCursor")
    seen: dict[str, int] = {}
    cursor: str | None = None
    last: Exchange | None = None
    for page in range(params["max_pages"]):
        exchange = ctx.call(rule.operation, params={cursor_param: cursor} if cursor else None)
        last = exchange
        expect_status(rule.id, exchange, 200, f"page {page + 1} of the walk")
        body = exchange.response.json()
        items = items_of(body)
        expect(items is not None, rule.id, "page has no single array of items with ids", exchange=exchange)
        assert items is not None and isinstance(body, dict)
        for item in items:
            expect(item["id"] not in seen, rule.id,
                   f"item {item['id']!r} on page {page + 1} was already on page {seen.get(item['id'])}",
                   exchange=exchange, expected="no item twice in one walk")
            seen[item["id"]] = page + 1
        if not body.get(more_field):
            if page == 0:
                # One page proves nothing about the cursor: never report the walk as checked.
                ctx.skip(f"the first page already says {more_field} false: the cursor was not exercised")
            return
        cursor = body.get(next_field)
        expect(isinstance(cursor, str) and cursor != "", rule.id,
               f"{more_field} is true but {next_field} is missing", exchange=exchange)
    expect(False, rule.id, f"walk did not end within {params['max_pages']} pages", exchange=last)
