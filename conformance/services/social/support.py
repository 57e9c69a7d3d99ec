"""What the social checks share: operation names and body requests.

The contract's request examples name target settings inside filter strings
(``customer_profile_id.eq({PROFILE_ID})``): ids the document does not give, filled in by
``checks/examples.py`` (the generic checks render examples the same way). Path values come from
each path parameter's ``x-setting`` (``CUSTOMER_ID``, ``TOPIC_ID``), defaulting to the catalogue's.
"""

from __future__ import annotations

import copy
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, fill
from conformance.checks.expect import expect_json_schema, expect_status
from conformance.checks.routes import path_values
from conformance.transport.model import Exchange

__all__ = ["TOPIC_MESSAGES", "accepted", "body", "post"]

TOPIC_MESSAGES = "POST /{customer_id}/listening/topics/{topic_id}/messages"


def body(ctx: CheckContext, operation: str, **members: Any) -> dict[str, Any]:
    """The operation's example with settings filled in and ``members`` (also filled) set on top."""
    out = example_body(ctx, operation)
    out.update(fill(ctx, copy.deepcopy(members)))
    return out


def post(ctx: CheckContext, operation: str, json_body: Any, **kwargs: Any) -> Exchange:
    return ctx.call(operation, json_body=json_body, path_values=path_values(ctx, operation).values, **kwargs)


def accepted(ctx: CheckContext, exchange: Exchange, operation: str, why: str) -> Any:
    """A 200 whose body is valid under the operation's schema; its JSON."""
    expect_status(ctx.rule.id, exchange, 200, why)
    schema = ctx.contract.response_schema(operation, 200)
    if schema:
        return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why)
    return exchange.response.json()
