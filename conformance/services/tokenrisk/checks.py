"""Scenario checks of the token-risk service: only what no generic check expresses."""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.registry import named
from conformance.checks.routes import MISSING_PARAM, call_listed, missing, path_values, with_credential
from conformance.transport.model import Request

__all__ = ["unversioned"]


@named("tokenrisk/unversioned",
       params={"unversioned": {"type": "array", "items": {"type": "string"}, "minItems": 1},
               "versioned_prefix": {"type": "string", "pattern": "^/"}, "missing_statuses": MISSING_PARAM,
               "conflict": {"type": "string"}},
       required=("unversioned", "versioned_prefix", "missing_statuses", "conflict"))
def unversioned(ctx: CheckContext) -> None:
    """The unversioned twins are served; whether the rule's own operation (ping) is also served
    under the version prefix is the documented conflict: either answer is accepted and observed."""
    params = ctx.rule.params
    statuses = list(params["missing_statuses"])
    for operation in params["unversioned"]:
        values = path_values(ctx, operation)
        missing(ctx, operation, call_listed(ctx, operation, values), values, statuses)
    method, template = str(ctx.rule.operation).split(" ", 1)
    request = Request.build(method, params["versioned_prefix"] + template)
    exchange = ctx.send(ctx.auth(request, ctx.rule.operation, with_credential(ctx)))
    ctx.observe(params["conflict"], 1 if exchange.response.status in statuses else 0)
