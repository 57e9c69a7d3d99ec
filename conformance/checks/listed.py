"""Values a request needs that only the target's own lists hold.

``values_from`` (a param of every paged check, ``PLACEMENT_PARAMS``): ``member`` of each item of
``operation``'s ``items_field``, the first ``count`` of them, joined by ", " into every
``"{values}"`` of the rule's ``set`` members (a filter naming 100 of the customer's profiles).
An operation taking a request body (a list read by POST) is sent its example body.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body
from conformance.checks.expect import expect, expect_status
from conformance.checks.paths import path_values

__all__ = ["PLACEHOLDER", "VALUES_FROM", "listed_values", "with_values"]

PLACEHOLDER = "{values}"
VALUES_FROM: dict[str, Any] = {
    "type": "object", "required": ["operation", "member"], "additionalProperties": False,
    "properties": {"operation": {"type": "string"}, "items_field": {"type": "string"}, "member": {"type": "string"},
                   "count": {"type": "integer", "minimum": 1}}}


def _text(value: Any) -> str:
    # An id listed as a whole float (501.0) is the id 501.
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def listed_values(ctx: CheckContext, spec: dict[str, Any], count: int) -> list[str]:
    """Up to ``count`` values of ``spec['member']`` from the items ``spec['operation']`` lists."""
    operation = spec["operation"]
    values = path_values(ctx, operation).values
    if ctx.contract.operation(operation).get("requestBody"):
        exchange = ctx.call(operation, json_body=example_body(ctx, operation), path_values=values)
    else:
        exchange = ctx.call(operation, path_values=values)
    expect_status(ctx.rule.id, exchange, set(range(200, 300)), f"{operation} (the values the request names)")
    body = exchange.response.json()
    items = body.get(spec["items_field"]) if spec.get("items_field") and isinstance(body, dict) else body
    expect(isinstance(items, list), ctx.rule.id, f"{operation} lists no items", exchange=exchange,
           expected=f"an item array ({spec.get('items_field') or 'the answer'})")
    assert isinstance(items, list)  # for the type checker: expect raised otherwise
    return [_text(i[spec["member"]]) for i in items if isinstance(i, dict) and spec["member"] in i][:count]


def with_values(node: Any, values: list[str]) -> Any:
    """``node`` with every ``"{values}"`` in its strings replaced by the values, joined by ", "."""
    if isinstance(node, str):
        return node.replace(PLACEHOLDER, ", ".join(values))
    if isinstance(node, list):
        return [with_values(item, values) for item in node]
    if isinstance(node, dict):
        return {key: with_values(value, values) for key, value in node.items()}
    return node
