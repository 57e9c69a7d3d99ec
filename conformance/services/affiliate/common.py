"""What the affiliate checks share: operation names, dated bodies and a schema-checked success."""

from __future__ import annotations

from datetime import date
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, today
from conformance.checks.expect import expect_json_schema, expect_status, success_statuses
from conformance.transport.model import Exchange

__all__ = ["CLICKS", "REPORT", "dated_body", "ok", "stamp_text", "today"]

REPORT = "POST /v1/networks/reporting/conversions"
CLICKS = "POST /v1/affiliates/reporting/clicks/stream"


def dated_body(ctx: CheckContext, operation: str, **members: Any) -> dict[str, Any]:
    """The operation's example re-dated from the target's today (``checks/examples.py``), with
    ``members`` set on top."""
    return {**example_body(ctx, operation), **members}


def stamp_text(day: date, clock: str = "00:00:00") -> str:
    return f"{day.isoformat()} {clock}"


def ok(ctx: CheckContext, exchange: Exchange, operation: str, why: str) -> Any:
    """A success with a body valid under the operation's schema for that status."""
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    if schema is not None and schema != {}:
        return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why)
    return exchange.response.json()
