"""Every listed value of a query parameter accepted (issue 30).

``values-accepted``: on each of ``operations`` (the rule's operation where none are given), the
query parameter ``param`` with each value its schema lists (``enum``, or its items' ``enum`` for an
array), one at a time and, for an array, all of them together (the parameter repeated), is
answered a documented success valid under its schema. Path values come from the operations'
``x-setting`` parameters (``path_values`` gives others). Whether an unlisted value is refused is
another rule's concern.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect_json_schema, expect_status, success_statuses
from conformance.checks.paths import path_values
from conformance.checks.registry import named
from conformance.errors import ContractFileError

__all__ = ["listed_query_values", "values_accepted"]


def listed_query_values(ctx: CheckContext, operation: str, param: str) -> tuple[list[Any], bool]:
    """The values the query parameter lists, and whether it is an array (repeatable)."""
    try:
        schema = ctx.contract.deref(ctx.contract.where_schema(operation, f"query.{param}"))
    except KeyError:
        raise ContractFileError(f"{ctx.rule.id}: {operation} has no query parameter {param}") from None
    repeated = schema.get("type") == "array"
    listed = ctx.contract.deref(schema.get("items") or {}).get("enum") if repeated else schema.get("enum")
    if not listed:
        raise ContractFileError(f"{ctx.rule.id}: query.{param} of {operation} lists no values")
    return list(listed), repeated


@named("values-accepted", params={"param": {"type": "string"},
                                  "operations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                                  "path_values": {"type": "object", "additionalProperties": {"type": "string"}}},
       required=("param",))
def values_accepted(ctx: CheckContext) -> None:
    param = ctx.rule.params["param"]
    for operation in ctx.rule.params.get("operations") or [str(ctx.rule.operation)]:
        listed, repeated = listed_query_values(ctx, operation, param)
        path = path_values(ctx, operation, ctx.settings_in(ctx.rule.params.get("path_values"))).values
        queries = [[(param, str(v))] for v in listed] + ([[(param, str(v)) for v in listed]] if repeated else [])
        for query in queries:
            why = f"{operation} with {param} {', '.join(v for _, v in query)}"
            exchange = ctx.call(operation, params=query, path_values=path)
            expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation) or set(range(200, 300)),
                          why)
            schema = ctx.contract.response_schema(operation, exchange.response.status)
            if schema:
                expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why)
