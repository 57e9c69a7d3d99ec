"""Paging and resource-value checks of the marketplace service (volume 3, part B).

Bounds, defaults and enums are read from openapi.yaml (query.limit, query.offset, ListingState,
ReceiptStatus, Money, Collection); the catalogue's params only name which of them a rule uses.
Imported by ``marketplace``, which is what registers it.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.boundary import bound_values
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses, validator
from conformance.checks.registry import for_rule
from conformance.services.marketplace.client import LISTINGS, RECEIPTS, Api, items, operations, schema_enum
from conformance.transport.model import Exchange

__all__: list[str] = []


def _limit_schema(ctx: CheckContext, operation: str = LISTINGS) -> dict[str, Any]:
    return ctx.contract.where_schema(operation, "query.limit")


def _offset_max(ctx: CheckContext, operation: str = LISTINGS) -> int:
    return int(ctx.contract.where_schema(operation, "query.offset")["maximum"])


@for_rule("marketplace.paging.limit-range", "marketplace.paging.offset-max")
def paging_bounds(ctx: CheckContext) -> None:
    api, rule = Api(ctx), ctx.rule
    assert rule.where
    name = rule.where.partition(".")[2]
    for operation in operations(ctx):
        ok = success_statuses(ctx.contract, operation)
        for label, value, accept in bound_values(ctx.contract.where_schema(operation, rule.where)):
            exchange = api.call(operation, params={name: value})
            if accept:
                expect_status(rule.id, exchange, ok, f"{operation}: {name} at {label} must be accepted")
            else:
                expect(400 <= exchange.response.status < 500, rule.id,
                       f"{operation}: {name} at {label} was answered {exchange.response.status}",
                       exchange=exchange, expected="a 4xx refusal")


@for_rule("marketplace.paging.limit-default", "marketplace.paging.offset-default")
def paging_defaults(ctx: CheckContext) -> None:
    api, rule = Api(ctx), ctx.rule
    default = ctx.contract.where_schema(LISTINGS, rule.where or "")["default"]
    exchange, body = api.page(LISTINGS)
    got = items(ctx, body)
    if rule.id == "marketplace.paging.limit-default":
        want = min(default, body["count"])
        expect(len(got) == want, rule.id, f"a page without limit holds {len(got)} records of {body['count']}",
               exchange=exchange, expected=f"{want} (the default limit {default})")
    explicit_exchange, explicit = api.page(LISTINGS, **{(rule.where or "").partition(".")[2]: default})
    expect(items(ctx, explicit) == got, rule.id, f"leaving the parameter out is not the same as sending "
           f"its default {default}", exchange=explicit_exchange, expected="the same records")


@for_rule("marketplace.paging.page-size")
def page_size(ctx: CheckContext) -> None:
    api, rule = Api(ctx), ctx.rule
    schema = _limit_schema(ctx)
    picks = {"minimum": schema["minimum"], "maximum": schema["maximum"],
             "between": (schema["minimum"] + schema["maximum"]) // 2}
    for limit in (picks[p] for p in rule.params["limits"]):
        _, first = api.page(LISTINGS, limit=limit, offset=0)
        count = first["count"]
        # The first page, a page holding the last few records, and the page just past the end.
        for offset in sorted({0, max(count - 3, 0), count}):
            if offset > _offset_max(ctx):
                continue
            exchange, body = api.page(LISTINGS, limit=limit, offset=offset)
            want = max(0, min(limit, count - offset))
            expect(len(items(ctx, body)) == want, rule.id,
                   f"limit={limit} offset={offset} of count {count} gave {len(items(ctx, body))} records",
                   exchange=exchange, expected=f"{want} records")


@for_rule("marketplace.paging.count-total")
def count_total(ctx: CheckContext) -> None:
    api, rule = Api(ctx), ctx.rule
    for operation in operations(ctx):
        schema = _limit_schema(ctx, operation)
        seen: dict[int, tuple[str, Exchange]] = {}
        for limit in (schema[p] for p in rule.params["limits"]):
            for offset in (0, schema["minimum"]):
                exchange, body = api.page(operation, limit=limit, offset=offset)
                seen.setdefault(body["count"], (f"limit={limit} offset={offset}", exchange))
        if len(seen) > 1:
            (a, (where_a, _)), (b, (where_b, exchange)) = list(seen.items())[:2]
            expect(False, rule.id, f"{operation}: count {a} at {where_a} but {b} at {where_b}",
                   exchange=exchange, expected="the same total count for every limit and offset")


@for_rule("marketplace.paging.walk")
def paging_walk(ctx: CheckContext) -> None:
    api, rule = Api(ctx), ctx.rule
    id_field = rule.params["id_field"]
    limit = _limit_schema(ctx)["default"] if rule.params["limit"] == "default" else int(rule.params["limit"])
    offset, count = 0, None
    seen: dict[Any, int] = {}
    exchange: Exchange | None = None
    while offset <= _offset_max(ctx) and (count is None or offset < count):
        exchange, body = api.page(LISTINGS, limit=limit, offset=offset)
        count = body["count"] if count is None else count
        for item in items(ctx, body):
            if id_field not in item:
                ctx.skip(f"listings carry no {id_field} (listing fields are not shown: gap resource-fields)")
            key = item[id_field]
            expect(key not in seen, rule.id, f"{id_field} {key} at offset {offset} was already at offset "
                   f"{seen.get(key)}", exchange=exchange, expected="disjoint pages")
            seen[key] = offset
        offset += limit
    if count is not None and count <= _offset_max(ctx) + limit:
        expect(len(seen) == count, rule.id, f"the walk met {len(seen)} distinct records; count says {count}",
               exchange=exchange, expected="pages whose union is count records")
    if offset > _offset_max(ctx):
        return
    # The page past the end that count announces must be empty: a count that is too small
    # (one page's worth, say) would otherwise end the walk early and agree with itself.
    exchange, body = api.page(LISTINGS, limit=limit, offset=offset)
    beyond = items(ctx, body)
    expect(not beyond, rule.id, f"count says {count}, but offset={offset} still holds {len(beyond)} records",
           exchange=exchange, expected="no records past count")
    if offset <= limit:
        ctx.skip(f"the walk saw one page (count {count}, limit {limit}): paging not exercised")


def _all_items(ctx: CheckContext, api: Api, operation: str, **params: Any) -> list[tuple[dict[str, Any], Exchange]]:
    """Every record of a filter, walked at the largest page size (bounded by the offset maximum)."""
    limit = _limit_schema(ctx, operation)["maximum"]
    out: list[tuple[dict[str, Any], Exchange]] = []
    offset = 0
    while offset <= _offset_max(ctx, operation):
        exchange, body = api.page(operation, limit=limit, offset=offset, **params)
        out += [(item, exchange) for item in items(ctx, body)]
        offset += limit
        if offset >= body["count"]:
            break
    return out


@for_rule("marketplace.listings.state-values", "marketplace.receipts.status-values")
def enum_field_values(ctx: CheckContext) -> None:
    rule = ctx.rule
    api, field = Api(ctx), rule.params["field"]
    if rule.id == "marketplace.listings.state-values":
        allowed = schema_enum(ctx, "ListingState")
        records = [pair for state in allowed for pair in _all_items(ctx, api, LISTINGS, state=state)]
        records += _all_items(ctx, api, LISTINGS)
    else:
        allowed = schema_enum(ctx, "ReceiptStatus")
        records = _all_items(ctx, api, RECEIPTS)
    valued = [(item, ex) for item, ex in records if field in item]
    if not valued:
        ctx.skip(f"no record carries a '{field}' field (its name is not shown: gap field-names)")
    for item, exchange in valued:
        expect(item[field] in allowed, rule.id, f"{field} {item[field]!r} is not a documented value",
               exchange=exchange, expected=f"one of {', '.join(allowed)}")


@for_rule("marketplace.listings.state-filter")
def state_filter(ctx: CheckContext) -> None:
    rule, api = ctx.rule, Api(ctx)
    field = rule.params["field"]
    groups = {name: set(group) for group in rule.params["aliases"] for name in group}
    total = 0
    for state in schema_enum(ctx, "ListingState"):
        for item, exchange in _all_items(ctx, api, LISTINGS, state=state):
            total += 1
            if field in item:
                expect(item[field] in groups.get(state, {state}), rule.id,
                       f"state={state} returned a listing in state {item[field]!r}", exchange=exchange,
                       expected=f"only listings in state {state}")
    if total == 0:
        ctx.skip("no listing in any state: nothing to filter (seed listings on the target)")


@for_rule("marketplace.listings.active-has-quantity")
def active_has_quantity(ctx: CheckContext) -> None:
    rule, api = ctx.rule, Api(ctx)
    listed = _all_items(ctx, api, LISTINGS, state=rule.params["state"])
    records = [(i, ex) for i, ex in listed if rule.params["field"] in i]
    if not records:
        ctx.skip("no active listing shows a quantity field (listing fields are not shown)")
    for item, exchange in records:
        quantity = item[rule.params["field"]]
        expect(isinstance(quantity, int) and quantity > 0, rule.id,
               f"an active listing has quantity {quantity!r}", exchange=exchange, expected="quantity above 0")


def _money_like(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            if {"amount", "divisor", "currency_code"} & set(current):
                found.append(current)
            stack += list(current.values())
        elif isinstance(current, list):
            stack += current
    return found


@for_rule("marketplace.money.shape", "marketplace.collections.shape")
def resource_shapes(ctx: CheckContext) -> None:
    rule, api = ctx.rule, Api(ctx)
    schemas = ctx.contract.openapi["components"]["schemas"]
    name = "Money" if rule.id == "marketplace.money.shape" else "Collection"
    check = validator(ctx.contract, schemas[name])
    checked = 0
    for operation in operations(ctx):
        exchange = api.call(operation)
        expect_status(rule.id, exchange, success_statuses(ctx.contract, operation), operation)
        body = exchange.response.json()
        if name == "Money":
            # The named fields (rule params) must hold a Money object wherever a record carries them;
            # a plain number there is no Money, and must not make the check skip.
            records = body.get("results") if isinstance(body, dict) else None
            for record in (r for r in (records if isinstance(records, list) else []) if isinstance(r, dict)):
                for key in (k for k in rule.params["fields"].get(operation, []) if k in record):
                    checked += 1
                    expect(isinstance(record[key], dict), rule.id,
                           f"{operation}: {key} is {record[key]!r}, not a Money object",
                           exchange=exchange, expected="an object with amount, divisor and currency_code")
        for node in (_money_like(body) if name == "Money" else [body]):
            checked += 1
            error = next(iter(check.iter_errors(node)), None)
            expect(error is None, rule.id, f"{operation}: {name} {error.message if error else ''}",
                   exchange=exchange, expected=f"a valid {name}")
    if checked == 0:
        ctx.skip(f"no record carries {', '.join(f for fs in rule.params['fields'].values() for f in fs)} or any "
                 "Money-like object (where Money appears is not shown: gap resource-fields)")
