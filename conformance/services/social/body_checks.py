"""Parameterised checks of POST-body operations (named, so rules choose them as data).

``refused-body`` and ``refused-path`` hold a changed request to a refusal after the control succeeded;
``body-shape`` and ``limit-reading`` read the numbers they test from the contract.
"""

from __future__ import annotations

from functools import partial

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema
from conformance.checks.refusal import expect_accepted, expect_refused
from conformance.checks.registry import named
from conformance.services.social.support import METADATA, accepted, body, post, values
from conformance.transport.model import Exchange

__all__ = ["customer_profiles", "refused_body"]

_SET = {"set": {"type": "object"}}
_OPS = {"operations": {"type": "array", "items": {"type": "string"}, "minItems": 1}}


@named("social/refused-body", params={**_SET, "control": {"type": "object"}}, required=("set",))
def refused_body(ctx: CheckContext) -> None:
    """The example with ``set`` members is refused, after the example (with ``control``) succeeded."""
    operation = ctx.rule.operation
    assert operation
    control = body(ctx, operation, **ctx.rule.params.get("control", {}))
    changed = body(ctx, operation, **ctx.rule.params["set"])
    expect_refused(ctx, f"{operation} with {ctx.rule.params['set']}", partial(post, ctx, operation, changed),
                   control=partial(post, ctx, operation, control))


def _send(ctx: CheckContext, operation: str, overrides: dict[str, str]) -> Exchange:
    method = operation.split(" ", 1)[0]
    json_body = body(ctx, operation) if method == "POST" else None
    return ctx.call(operation, json_body=json_body, path_values=values(ctx, operation, overrides))


@named("social/refused-path",
       params={**_OPS, "refused": {"type": "object", "additionalProperties": {"type": "string"}}},
       required=("refused",))
def refused_path(ctx: CheckContext) -> None:
    """Each operation with the ``refused`` path values is refused; with the defaults it succeeded."""
    for operation in ctx.rule.params.get("operations") or [ctx.rule.operation]:
        # The documented status needs no control, but one shows the route serves the customer
        # (when it does not, a refusal shows nothing: not exercised).
        expect_accepted(ctx, _send(ctx, operation, {}), f"{operation} for the configured customer")
        expect_refused(ctx, f"{operation} with {ctx.rule.params['refused']}",
                       partial(_send, ctx, operation, ctx.rule.params["refused"]),
                       control=partial(_send, ctx, operation, {}))


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
