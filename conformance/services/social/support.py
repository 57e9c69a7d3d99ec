"""What the social checks share: examples rendered from target settings, and body requests.

The contract's request examples name target settings inside filter strings
(``customer_profile_id.eq({PROFILE_ID})``): ids the document does not give. ``rendered(ctx)``
gives a context whose contract holds the examples with those settings filled in, so the generic
checks (required, enum, limit, wrong-types) run unchanged on them. Path values come from each
path parameter's ``x-setting`` (``CUSTOMER_ID``, ``TOPIC_ID``), defaulting to the catalogue's.

Proposed as a shared building block (with affiliate's ``dated``): examples with setting
templates, and POST bodies for ``paging-walk`` and ``response-shape``.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from conformance.auth.variants import render
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect_json_schema, expect_status
from conformance.checks.routes import path_values
from conformance.contract import Contract
from conformance.transport.model import Exchange

__all__ = ["POSTS", "PROFILES", "MESSAGES", "METADATA", "TOPIC_MESSAGES", "TOPIC_METRICS", "accepted", "body",
           "fill", "post", "rendered", "rows_of", "values"]

PROFILES = "POST /{customer_id}/analytics/profiles"
POSTS = "POST /{customer_id}/analytics/posts"
MESSAGES = "POST /{customer_id}/messages"
TOPIC_MESSAGES = "POST /{customer_id}/listening/topics/{topic_id}/messages"
TOPIC_METRICS = "POST /{customer_id}/listening/topics/{topic_id}/metrics"
METADATA = "GET /{customer_id}/metadata/customer"

_CACHE: dict[tuple[int, str], tuple[Contract, Contract]] = {}


def fill(ctx: CheckContext, node: Any) -> Any:
    """``node`` with every ``{NAME}`` in its strings replaced by that target setting (skip when unset)."""
    if isinstance(node, str):
        return render(node, ctx.credential) if "{" in node else node
    if isinstance(node, list):
        return [fill(ctx, item) for item in node]
    if isinstance(node, dict):
        return {key: fill(ctx, value) for key, value in node.items()}
    return node


def values(ctx: CheckContext, operation: str, overrides: dict[str, str] | None = None) -> dict[str, str]:
    """The operation's path values: overrides (setting templates), else each parameter's x-setting."""
    own = {k: render(v, ctx.credential) for k, v in (overrides or {}).items()}
    return path_values(ctx, operation, own).values


def rendered(ctx: CheckContext) -> CheckContext:
    """``ctx`` with a contract whose request examples have their setting templates filled in.

    Only example objects are replaced; schema objects stay the same (validators are cached by
    schema identity)."""
    examples = {op: fill(ctx, ctx.contract.request_example(op)) for op in ctx.contract.operations()
                if ctx.contract.json_media(op).get("example")}
    key = (id(ctx.contract), repr(sorted(examples.items())))
    if key not in _CACHE or _CACHE[key][0] is not ctx.contract:
        _CACHE[key] = (ctx.contract, ctx.contract.with_examples(examples))
    return dataclasses.replace(ctx, contract=_CACHE[key][1])


def body(ctx: CheckContext, operation: str, **members: Any) -> dict[str, Any]:
    """The operation's example with settings filled in and ``members`` (also filled) set on top."""
    out = fill(ctx, ctx.contract.request_example(operation))
    out.update(fill(ctx, copy.deepcopy(members)))
    return out


def post(ctx: CheckContext, operation: str, json_body: Any, **kwargs: Any) -> Exchange:
    return ctx.call(operation, json_body=json_body, path_values=values(ctx, operation), **kwargs)


def accepted(ctx: CheckContext, exchange: Exchange, operation: str, why: str) -> Any:
    """A 200 whose body is valid under the operation's schema; its JSON."""
    expect_status(ctx.rule.id, exchange, 200, why)
    schema = ctx.contract.response_schema(operation, 200)
    if schema:
        return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why)
    return exchange.response.json()


def rows_of(ctx: CheckContext, operation: str, json_body: dict[str, Any], why: str) -> tuple[list[Any], Any]:
    """One page: its rows and its paging object (None when absent)."""
    answer = accepted(ctx, post(ctx, operation, json_body), operation, why)
    return list(answer["data"]), answer.get("paging")
