"""Rows in the order a request asks for, or the documented default order (issue 30).

``rows-ordered``: for each of ``orders`` (request members ``set`` or ``drop``-ped, and the
``direction`` the rows must then run: ``asc`` or ``desc``) the rule's operation is read, its
members placed as ``checks/paging.py`` places them (``in: body``, ``set``, ``path_values``...);
with a paging ``style`` the pages are walked (to the end or ``max_pages``: the check's reading
budget, so the order of what was read is judged), else one page is read. The rows' ``member``
must never run against the direction. Values compare as instants where every one is an ISO 8601
timestamp (``Z`` and ``+00:00`` are one instant), as numbers where every one is a number, else as
text; equal values may come in any order (no tie-break is documented). A row without the member
is left out (whether it comes back is the fields rules' concern); fewer than two values to
compare: not exercised.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import fill
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.paging import PAGING_PARAMS, dig, member_names, sender, walk
from conformance.checks.registry import named
from conformance.transport.model import Exchange

__all__ = ["ORDER_SCHEMA", "order_keys", "rows_ordered"]

ORDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"direction": {"enum": ["asc", "desc"]}, "set": {"type": "object"},
                   "drop": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
    "required": ["direction"],
    "additionalProperties": False,
}


def _instant(value: Any) -> datetime | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    # A stamp without an offset is read as UTC, so it compares with the others at all.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def order_keys(values: list[Any]) -> list[Any]:
    """What ``values`` are compared by (module doc): instants, numbers, else text."""
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return list(values)
    moments = [_instant(v) for v in values]
    if all(m is not None for m in moments):
        return moments
    return [str(v) for v in values]


def _rows(ctx: CheckContext, params: dict[str, Any], fetch: Any, why: str) -> list[tuple[Any, Exchange]]:
    """The rows read for one order, each with the exchange that brought it."""
    if "style" in params:
        return [(row, page.exchange) for page in walk(ctx, fetch, params).pages for row in page.items]
    exchange = fetch({})
    operation = str(ctx.rule.operation)
    expect_status(ctx.rule.id, exchange, set(range(200, 300)), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    body = (expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why) if schema
            else exchange.response.json())
    rows = dig(body, params["items_field"])
    expect(isinstance(rows, list), ctx.rule.id, f"{why}: no rows at {params['items_field']}", exchange=exchange,
           expected=f"an array of rows at {params['items_field']}")
    return [(row, exchange) for row in rows]


@named("rows-ordered", params={**PAGING_PARAMS, "member": {"type": "string"},
                               "orders": {"type": "array", "items": ORDER_SCHEMA, "minItems": 1}},
       required=("member", "orders", "items_field"))
def rows_ordered(ctx: CheckContext) -> None:
    params = member_names(ctx, ctx.rule.params)
    member = params["member"]
    send = sender(ctx, params)
    for order in params["orders"]:
        members = fill(ctx, order.get("set") or {})
        drop = tuple(order.get("drop") or ())
        asc = order["direction"] == "asc"
        label = (f"{member} {'ascending' if asc else 'descending'} ("
                 + (", ".join(f"{k}={v}" for k, v in members.items()) or f"without {', '.join(drop)}") + ")")

        def fetch(query: dict[str, Any], members: dict[str, Any] = members, drop: tuple[str, ...] = drop) -> Exchange:
            return send({**members, **query}, drop=drop)

        read = [(dig(row, member), exchange) for row, exchange in _rows(ctx, params, fetch, label)
                if isinstance(row, dict) and dig(row, member) is not None]
        if len(read) < 2:
            ctx.skip(f"{label}: {len(read)} rows carry {member}: not enough to order")
        keys = order_keys([value for value, _ in read])
        for number, (before, after) in enumerate(zip(keys, keys[1:]), start=1):
            expect(before <= after if asc else before >= after, ctx.rule.id,
                   f"{label}: row {number} has {read[number - 1][0]!r}, row {number + 1} {read[number][0]!r}",
                   exchange=read[number][1], expected=f"{member} {'ascending' if asc else 'descending'}")
