"""Paging and resource-value checks of the marketplace service (volume 3, part B).

Bounds, defaults and enums are read from openapi.yaml (query.limit, query.offset, ListingState,
ReceiptStatus, Money, Collection); the catalogue's params only name which of them a rule uses.
The limit and offset ranges are generic ``limit`` rules and the walk is the generic
``paging-walk``; record walks here go through ``checks.paging.walk`` (``client.records``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses, validator
from conformance.checks.paging import PAGING_PARAMS, paging_walk
from conformance.checks.registry import named
from conformance.services.marketplace.client import (
    LISTINGS,
    RECEIPTS,
    call,
    items,
    items_field,
    member,
    operations,
    page,
    records,
    schema_enum,
)
from conformance.transport.model import Exchange

__all__: list[str] = []

_STRINGS = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_LIMIT_PICKS = {"type": "array", "items": {"enum": ["minimum", "between", "maximum"]}, "minItems": 1}


def _limit_schema(ctx: CheckContext, operation: str = LISTINGS) -> dict[str, Any]:
    return ctx.contract.where_schema(operation, "query.limit")


def _offset_max(ctx: CheckContext, operation: str = LISTINGS) -> int:
    return int(ctx.contract.where_schema(operation, "query.offset")["maximum"])


def _default_is_explicit(ctx: CheckContext) -> tuple[Exchange, dict[str, Any], int]:
    """A page without the rule's parameter is the page with the parameter at its default."""
    name = (ctx.rule.where or "").partition(".")[2]
    default = ctx.contract.where_schema(LISTINGS, ctx.rule.where or "")["default"]
    exchange, body = page(ctx, LISTINGS)
    explicit_exchange, explicit = page(ctx, LISTINGS, **{name: default})
    expect(items(ctx, explicit) == items(ctx, body), ctx.rule.id, f"leaving {name} out is not the same as "
           f"sending its default {default}", exchange=explicit_exchange, expected="the same records")
    return exchange, body, default


@named("marketplace/limit-default")
def limit_default(ctx: CheckContext) -> None:
    exchange, body = page(ctx, LISTINGS)
    default = _limit_schema(ctx)["default"]
    want = min(default, body["count"])
    got = items(ctx, body)
    expect(len(got) == want, ctx.rule.id, f"a page without limit holds {len(got)} records of {body['count']}",
           exchange=exchange, expected=f"{want} (the default limit {default})")
    _default_is_explicit(ctx)


@named("marketplace/offset-default")
def offset_default(ctx: CheckContext) -> None:
    _default_is_explicit(ctx)


@named("marketplace/page-size", params={"limits": _LIMIT_PICKS}, required=("limits",))
def page_size(ctx: CheckContext) -> None:
    rule = ctx.rule
    schema = _limit_schema(ctx)
    picks = {"minimum": schema["minimum"], "maximum": schema["maximum"],
             "between": (schema["minimum"] + schema["maximum"]) // 2}
    for limit in (picks[p] for p in rule.params["limits"]):
        _, first = page(ctx, LISTINGS, limit=limit, offset=0)
        count = first["count"]
        # The first page, a page holding the last few records, and the page just past the end.
        for offset in sorted({0, max(count - 3, 0), count}):
            if offset > _offset_max(ctx):
                continue
            exchange, body = page(ctx, LISTINGS, limit=limit, offset=offset)
            want = max(0, min(limit, count - offset))
            expect(len(items(ctx, body)) == want, rule.id,
                   f"limit={limit} offset={offset} of count {count} gave {len(items(ctx, body))} records",
                   exchange=exchange, expected=f"{want} records")


@named("marketplace/count-total", params={
    "limits": {"type": "array", "items": {"enum": ["minimum", "maximum"]}, "minItems": 1},
    "operations": _STRINGS}, required=("limits", "operations"))
def count_total(ctx: CheckContext) -> None:
    rule = ctx.rule
    for operation in operations(ctx):
        schema = _limit_schema(ctx, operation)
        seen: dict[int, tuple[str, Exchange]] = {}
        for limit in (schema[p] for p in rule.params["limits"]):
            for offset in (0, schema["minimum"]):
                exchange, body = page(ctx, operation, limit=limit, offset=offset)
                seen.setdefault(body["count"], (f"limit={limit} offset={offset}", exchange))
        if len(seen) > 1:
            (a, (where_a, _)), (b, (where_b, exchange)) = list(seen.items())[:2]
            expect(False, rule.id, f"{operation}: count {a} at {where_a} but {b} at {where_b}",
                   exchange=exchange, expected="the same total count for every limit and offset")


@named("marketplace/offset-walk", params=PAGING_PARAMS, required=("style", "max_pages"))
def offset_walk(ctx: CheckContext) -> None:
    """The generic offset walk, told the item array and the member naming a listing by the
    target's settings (ITEMS_FIELD, LISTING_ID_FIELD): neither name is shown (gap field-names)."""
    params = {**ctx.rule.params, "items_field": items_field(ctx),
              "id_field": member(ctx, str(ctx.rule.params.get("id_field", "{LISTING_ID_FIELD}")))}
    paging_walk(dataclasses.replace(ctx, rule=dataclasses.replace(ctx.rule, params=params)))


# -- resource values -------------------------------------------------------------------------
def _values_in(ctx: CheckContext, found: list[tuple[dict[str, Any], Exchange]], allowed: list[str]) -> None:
    field = member(ctx, ctx.rule.params["field"])
    valued = [(item, ex) for item, ex in found if field in item]
    if not valued:
        ctx.skip(f"no record carries a '{field}' field (its name is not shown: gap field-names)")
    for item, exchange in valued:
        expect(item[field] in allowed, ctx.rule.id, f"{field} {item[field]!r} is not a documented value",
               exchange=exchange, expected=f"one of {', '.join(allowed)}")


_FIELD = {"field": {"type": "string"}}


_ALIASES = {"aliases": {"type": "array", "items": _STRINGS}}


def filter_states(ctx: CheckContext) -> list[str]:
    """The listing states the state filter takes. A name in one of the rule's ``aliases`` groups
    (two names of one state) may be refused, as long as another name of its group is taken:
    which name is an input is not shown (gap inactive-edit); what the target does is observed."""
    groups = [list(g) for g in ctx.rule.params.get("aliases", [])]
    taken: list[str] = []
    refused: list[str] = []
    for state in schema_enum(ctx, "ListingState"):
        if not any(state in g for g in groups):
            taken.append(state)
            continue
        exchange = call(ctx, LISTINGS, params={"state": state})
        expect(exchange.response.status < 500, ctx.rule.id, f"state={state} crashed", exchange=exchange,
               expected="an answer below 500")
        (taken if 200 <= exchange.response.status < 300 else refused).append(state)
    for group in groups:
        expect(any(name in taken for name in group), ctx.rule.id, f"no name of the state {' or '.join(group)} is "
               "taken by the state filter", exchange=ctx.session.exchanges[-1], expected="at least one of them")
    if groups:
        ctx.observed("filter takes " + ", ".join(n for g in groups for n in g
                                                                                 if n in taken))
    return taken


@named("marketplace/listing-state-values", params={**_FIELD, **_ALIASES}, required=("field",))
def listing_state_values(ctx: CheckContext) -> None:
    allowed = schema_enum(ctx, "ListingState")
    found = [pair for state in filter_states(ctx) for pair in records(ctx, LISTINGS, state=state)]
    _values_in(ctx, found + records(ctx, LISTINGS), allowed)


@named("marketplace/receipt-status-values", params=_FIELD, required=("field",))
def receipt_status_values(ctx: CheckContext) -> None:
    _values_in(ctx, records(ctx, RECEIPTS), schema_enum(ctx, "ReceiptStatus"))


@named("marketplace/state-filter", params={**_FIELD, **_ALIASES}, required=("field", "aliases"))
def state_filter(ctx: CheckContext) -> None:
    rule = ctx.rule
    field = member(ctx, rule.params["field"])
    groups = {name: set(group) for group in rule.params["aliases"] for name in group}
    total = 0
    for state in filter_states(ctx):
        for item, exchange in records(ctx, LISTINGS, state=state):
            total += 1
            if field in item:
                expect(item[field] in groups.get(state, {state}), rule.id,
                       f"state={state} returned a listing in state {item[field]!r}", exchange=exchange,
                       expected=f"only listings in state {state}")
    if total == 0:
        ctx.skip("no listing in any state: nothing to filter (seed listings on the target)")


@named("marketplace/active-has-quantity", params={**_FIELD, "state": {"type": "string"}}, required=("field", "state"))
def active_has_quantity(ctx: CheckContext) -> None:
    rule = ctx.rule
    found = [(i, ex) for i, ex in records(ctx, LISTINGS, state=rule.params["state"]) if rule.params["field"] in i]
    if not found:
        ctx.skip("no active listing shows a quantity field (listing fields are not shown)")
    for item, exchange in found:
        quantity = item[rule.params["field"]]
        expect(isinstance(quantity, int) and quantity > 0, rule.id,
               f"an active listing has quantity {quantity!r}", exchange=exchange, expected="quantity above 0")


def _money_like(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            # Two of the three members make a Money object; no field name is assumed (where
            # Money appears is not shown), and a lone currency_code is no Money.
            if len({"amount", "divisor", "currency_code"} & set(current)) >= 2:
                found.append(current)
            stack += list(current.values())
        elif isinstance(current, list):
            stack += current
    return found


def _bodies(ctx: CheckContext) -> list[tuple[str, Exchange, Any]]:
    out = []
    for operation in operations(ctx):
        exchange = call(ctx, operation)
        expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation), operation)
        out.append((operation, exchange, exchange.response.json()))
    return out


def _valid(ctx: CheckContext, name: str, operation: str, exchange: Exchange, node: Any) -> None:
    error = next(iter(validator(ctx.contract, ctx.contract.openapi["components"]["schemas"][name]).iter_errors(node)),
                 None)
    expect(error is None, ctx.rule.id, f"{operation}: {name} {error.message if error else ''}",
           exchange=exchange, expected=f"a valid {name}")


@named("marketplace/money-shape", params={"operations": _STRINGS}, required=("operations",))
def money_shape(ctx: CheckContext) -> None:
    checked = 0
    for operation, exchange, body in _bodies(ctx):
        for node in _money_like(body):
            checked += 1
            _valid(ctx, "Money", operation, exchange, node)
    if checked == 0:
        ctx.skip("no answer carries a Money-like object (where Money appears is not shown: gap resource-fields)")
