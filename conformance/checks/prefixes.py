"""A member written from another member of its row: "upper-case, prefixed by the network" (issue 30).

``member-prefixed``: the rule's operation is read once (members placed as ``checks/paging.py``
places them: ``in: body``, ``set``...); every row at ``items_field`` carrying both ``member`` and
``prefix_member`` as text has ``member`` in upper case and starting with ``prefix_member`` in upper
case. No row carrying both: not exercised.
"""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.paging import PLACEMENT_PARAMS, dig, sender
from conformance.checks.registry import named

__all__ = ["member_prefixed"]

_NAME = {"type": "string"}


@named("member-prefixed", params={**PLACEMENT_PARAMS, "items_field": _NAME, "member": _NAME, "prefix_member": _NAME},
       required=("items_field", "member", "prefix_member"))
def member_prefixed(ctx: CheckContext) -> None:
    params, operation = ctx.rule.params, str(ctx.rule.operation)
    member, prefix = params["member"], params["prefix_member"]
    exchange = sender(ctx, params)({})
    why = f"{operation} with {member} and {prefix}"
    expect_status(ctx.rule.id, exchange, set(range(200, 300)), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    body = expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why) if schema else exchange.response.json()
    rows = [r for r in dig(body, params["items_field"]) or []
            if isinstance(r, dict) and isinstance(r.get(member), str) and isinstance(r.get(prefix), str)]
    if not rows:
        ctx.skip(f"no row carried {member} and {prefix}")
    for row in rows:
        value, head = row[member], row[prefix].upper()
        expect(value == value.upper() and value.startswith(head), ctx.rule.id,
               f"{member} {value!r} of a row whose {prefix} is {row[prefix]!r}", exchange=exchange,
               expected=f"upper case, prefixed by {head}")
