"""A documented response: each operation answered with its success status and a body valid
under the contract's schema for that status, with the credentials ``params.as`` names.

For rules such as "a free key may call api-info" or "the org record has this shape": the numbers
and field lists live in the contract's response schemas, the query and path values the call
needs in params (values may be templates over target settings, e.g. ``"{SHOP_ID}"``).
"""

from __future__ import annotations

from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, DEFAULT, auth_as
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect_json_schema, expect_status
from conformance.checks.registry import named
from conformance.errors import ContractFileError

__all__ = ["response_shape"]

_PARAMS: dict[str, Any] = {
    "as": AUTH_AS_SCHEMA,
    "operations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "base_query": {"type": "object"},
    "path_values": {"type": "object", "additionalProperties": {"type": "string"}},
    "status": {"type": "integer", "minimum": 200, "maximum": 299},
}


@named("response-shape", params=_PARAMS)
def response_shape(ctx: CheckContext) -> None:
    params = ctx.rule.params
    how = auth_as(params["as"]) if "as" in params else DEFAULT
    status = int(params.get("status", 200))
    values = ctx.settings_in(params.get("path_values"))
    for operation in params.get("operations") or [ctx.rule.operation]:
        schema = ctx.contract.response_schema(operation, status)
        if schema is None:
            raise ContractFileError(f"{ctx.rule.id}: {operation} documents no {status} body for response-shape")
        exchange = ctx.call(operation, auth=how, params=ctx.query_in(params.get("base_query")) or None,
                            path_values=values)
        expect_status(ctx.rule.id, exchange, status, f"{operation} with {how.describe()}")
        expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, operation)
