"""Resource-value checks of the marketplace service (volume 3, part B).

Enums are read from openapi.yaml (ListingState, ReceiptStatus, Money, Collection). Paging is
carried by core checks (``paging-walk``, ``page-size``, ``param-default``: the limit and offset
bounds and defaults are read from openapi.yaml there); record walks here go through
``checks.paging.walk`` (``client.records``).
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.marketplace.client import (
    LISTINGS,
    call,
    member,
    records,
    schema_enum,
)
from conformance.transport.model import Exchange

__all__: list[str] = []

_STRINGS = {"type": "array", "items": {"type": "string"}, "minItems": 1}


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
