"""Parameterised checks of POST-body operations (named, so rules choose them as data).

``limit-reading`` reads the numbers it tests from the contract.
"""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema
from conformance.checks.registry import named
from conformance.services.social.support import METADATA, accepted, body, post, values

__all__ = ["customer_profiles"]


def customer_profiles(ctx: CheckContext, count: int) -> list[str]:
    """Up to ``count`` profile ids of the customer, from the metadata listing."""
    listing = ctx.call(METADATA, path_values=values(ctx, METADATA))
    data = accepted(ctx, listing, METADATA, "the customer's profiles")["data"]
    return [str(p["customer_profile_id"]).removesuffix(".0") for p in data][:count]




@named("social/limit-reading", params={"conflict": {"type": "string"}, "over": {"type": "integer", "minimum": 2}},
       required=("conflict", "over"))
def limit_reading(ctx: CheckContext) -> None:
    """A limit above the stated number: honoured (a default) or cut to it (a cap), observed which."""
    operation, where = ctx.rule.operation, ctx.rule.where
    assert operation and where
    stated = ctx.contract.where_schema(operation, where)["default"]
    over = ctx.rule.params["over"]
    exchange = post(ctx, operation, body(ctx, operation, limit=over))
    if exchange.response.status != 200:
        ctx.observe(ctx.rule.params["conflict"], f"a limit of {over} answered {exchange.response.status}")
        ctx.skip(f"limit {over} was not accepted ({exchange.response.status}): neither reading shown")
    answer = expect_json_schema(ctx.rule.id, ctx.contract, exchange, ctx.contract.response_schema(operation, 200) or {},
                                f"limit {over}")
    rows, pages = len(answer["data"]), answer["paging"]["total_pages"]
    if pages <= 1 and rows < over:
        ctx.skip(f"{rows} rows in all: too few to tell a default from a cap")
    expect(rows in (stated, over), ctx.rule.id, f"limit {over} gave {rows} rows on a page followed by more",
           exchange=exchange, expected=f"{over} ({stated} a default) or {stated} ({stated} a cap)")
    ctx.observe(ctx.rule.params["conflict"], 0 if rows == over else 1)
