"""A PUT replaces the whole resource: an optional field it omits goes back to its default (issue 30).

``put-replaces``: the rule's operation is the PUT. A resource is created (``create``: its example,
``x-unique`` members new) without ``field``, whose answer shows the field's default, and another
with ``field`` set to ``value``; the second is PUT with every member of the PUT's request schema
the resource shows (accepted: the control), then PUT again without ``field``. That PUT is refused
(any 4xx: "all fields must be sent", reading 0 of the rule's ``observes``) or accepted, and then
``read`` shows the field at its default, never the value it had (reading 1). ``id`` names the
created answer's member holding the resource's id and the path parameter it fills.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.registry import named
from conformance.checks.steps import Steps
from conformance.transport.model import Exchange

__all__ = ["put_replaces"]

_NAME = {"type": "string"}


def _accepted(ctx: CheckContext, exchange: Exchange, operation: str, why: str) -> Any:
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation) or set(range(200, 300)), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why) if schema else exchange.response.json()


@named("put-replaces", params={"create": _NAME, "read": _NAME, "field": _NAME, "value": {},
                               "id": {"type": "object", "properties": {"member": _NAME, "param": _NAME},
                                      "required": ["member", "param"], "additionalProperties": False}},
       required=("create", "read", "field", "value", "id"))
def put_replaces(ctx: CheckContext) -> None:
    params, put = ctx.rule.params, str(ctx.rule.operation)
    field, value, create, read = params["field"], params["value"], params["create"], params["read"]
    steps = Steps(ctx)
    steps.guard([{"call": create}, {"call": put}])

    def made(with_value: bool, why: str) -> Any:
        body = {k: v for k, v in steps.body({"call": create, "body": "example"}).items() if k != field}
        return _accepted(ctx, steps.send({"call": create}, {**body, field: value} if with_value else body).exchange,
                         create, why)

    default = made(False, f"a resource without {field}").get(field)
    if default == value:
        ctx.skip(f"the target's default {field} is the probe value: the PUT would show nothing")
    resource = made(True, f"a resource with {field}")
    if resource.get(field) != value:
        ctx.skip(f"the created resource does not show {field} as sent (a create round trip's concern)")
    where = {params["id"]["param"]: str(resource[params["id"]["member"]])}
    writable = ctx.contract.deref(ctx.contract.request_schema(put)).get("properties", {})
    full = {k: v for k, v in resource.items() if k in writable}
    _accepted(ctx, ctx.call(put, json_body=full, path_values=where), put, f"a PUT with every field, {field} included")
    omitted = ctx.call(put, json_body={k: v for k, v in full.items() if k != field}, path_values=where)
    if 400 <= omitted.response.status < 500:  # "all fields must be sent"
        ctx.observed(0)
        return
    _accepted(ctx, omitted, put, f"a PUT omitting {field}")
    exchange = ctx.call(read, path_values=where)
    after = _accepted(ctx, exchange, read, "the resource after the PUT").get(field)
    expect(after == default, ctx.rule.id, f"after a PUT without {field}, {field} is {after!r}", exchange=exchange,
           expected=f"the default {default!r} (what a create without it gives), or a refusal")
    ctx.observed(1)
