"""A documented response: each operation answered with a documented success status and a body
valid under the contract's schema for that status, with the credentials ``params.as`` names.

For rules such as "a free key may call api-info" or "the org record has this shape": the numbers
and field lists live in the contract's response schemas, the query and path values the call
needs in params (values may be templates over target settings, e.g. ``"{SHOP_ID}"``; a path
parameter the params do not give takes its ``x-setting``).

* ``status``: the one status expected; without it, any success status the operation documents
  (a range ``2XX`` included), the body judged under the schema of the status answered.
* ``bodies``: the operation's example request body (``checks/examples.py``: settings, dates and
  ``x-unique`` members new per request), once per entry with that entry's members set on top
  (``[{}]``: the example as it is). Keys and values may be ``{NAME}`` settings.
* ``same_on``: a setting naming a second base URL ("the two host names are equivalent"): the
  same request sent there gets the same status and the same JSON body (skipped when not set).
* ``schema``: a component schema (its name) the answer is held to instead of the one the
  operation documents, for a rule resting on a gap whose setting says the target answers with
  that resource (a get answering the resource the document ties to another operation).
* ``bodiless_with``: headers that may stand for the body: an answer with no body that carries
  one of them (non-empty) is the documented answer too (a background job answered 202 with the
  job's address in ``Location``, RFC 9110 section 15.3.3, instead of a body describing it).
"""

from __future__ import annotations

import re
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, DEFAULT, AuthAs, auth_as, render
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, fill, unique
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.paths import path_values
from conformance.checks.registry import named
from conformance.errors import ContractFileError, SkipKind
from conformance.settings import env_name
from conformance.transport.model import Exchange

__all__ = ["fill_path", "response_shape", "shape_statuses"]

_PARAMS: dict[str, Any] = {
    "as": AUTH_AS_SCHEMA,
    "operations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "base_query": {"type": "object"},
    "path_values": {"type": "object", "additionalProperties": {"type": "string"}},
    "status": {"type": "integer", "minimum": 200, "maximum": 299},
    "bodies": {"type": "array", "items": {"type": "object"}, "minItems": 1},
    "same_on": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
    "schema": {"type": "string", "minLength": 1},
    "bodiless_with": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
}
_PARAM = re.compile(r"\{([^}/]+)\}")


def fill_path(ctx: CheckContext, operation: str, given: dict[str, str] | None) -> dict[str, str]:
    """The operation's path values: the ``given`` ones its path uses (settings rendered, so a
    setting another operation needs does not make the rule skip this one), the rest from each
    parameter's ``x-setting`` (``checks/routes.py``)."""
    template = operation.split(" ", 1)[1]
    names = _PARAM.findall(template)
    values = ctx.settings_in({k: v for k, v in (given or {}).items() if k in names})
    if any(name not in values for name in names):
        values = {**path_values(ctx, operation, values).values, **values}
    return values


def shape_statuses(ctx: CheckContext, operation: str) -> set[int]:
    """The statuses a response-shape rule takes for ``operation`` (module doc)."""
    status = ctx.rule.params.get("status")
    ok = {int(status)} if status is not None else success_statuses(ctx.contract, operation)
    if not any(ctx.contract.response_schema(operation, s) is not None for s in sorted(ok)):
        raise ContractFileError(f"{ctx.rule.id}: {operation} documents no success body for response-shape")
    return ok


def _component(ctx: CheckContext, name: str) -> dict[str, Any]:
    if name not in (ctx.contract.openapi.get("components", {}).get("schemas") or {}):
        raise ContractFileError(f"{ctx.rule.id}: params.schema names no components.schemas.{name} in openapi.yaml")
    return {"$ref": f"#/components/schemas/{name}"}


def _body(ctx: CheckContext, operation: str, members: dict[str, Any], n: int) -> Any:
    body = example_body(ctx, operation)
    body = dict(body) if isinstance(body, dict) else {}
    # A member whose name the document does not show is a setting (``{WARMUP_EMAILS_FIELD}``).
    body.update({render(k, ctx.credential): fill(ctx, v) for k, v in members.items()})
    return unique(ctx, operation, body, n)


def _same_on(ctx: CheckContext, operation: str, first: Exchange, how: AuthAs, values: dict[str, str],
             query: dict[str, Any] | None, sent: Any, base: str) -> None:
    """The request ``first`` answered, sent again to the base URL ``base``: the same answer."""
    method, template = operation.split(" ", 1)
    path = base.rstrip("/") + ctx.path(template, operation=operation, **values)
    request = ctx.contract.body_request(operation, method, path, sent, params=query)
    second = ctx.send(ctx.auth(request, operation, how), backoff=False)
    expect(second.response.status == first.response.status and second.response.json() == first.response.json(),
           ctx.rule.id, f"{base} answers {operation} differently", exchange=second,
           expected=f"{first.response.status} with the same body as the first host")


@named("response-shape", params=_PARAMS)
def response_shape(ctx: CheckContext) -> None:
    params = ctx.rule.params
    how = auth_as(params["as"]) if "as" in params else DEFAULT
    base = None
    if "same_on" in params:
        base = ctx.optional(params["same_on"])
        if not base:
            ctx.skip(f"needs {env_name(ctx.contract.service, params['same_on'])} (the second base URL)",
                     SkipKind.CREDENTIAL_MISSING)
    query = ctx.query_in(params.get("base_query")) or None
    n = 0
    for operation in params.get("operations") or [ctx.rule.operation]:
        statuses = shape_statuses(ctx, operation)
        values = fill_path(ctx, operation, params.get("path_values"))
        for members in params.get("bodies") or [None]:
            n += 1
            sent = None if members is None else _body(ctx, operation, members, n)
            extra = {} if sent is None else {"json_body": sent}
            exchange = ctx.call(operation, auth=how, params=query, path_values=values, **extra)
            what = f"{operation} with {how.describe()}" + ("" if members is None else f" and the example {members}")
            expect_status(ctx.rule.id, exchange, statuses, what)
            answered = exchange.response.status
            if not exchange.response.body.strip() and any(
                    (exchange.response.header(h) or "").strip() for h in params.get("bodiless_with") or ()):
                continue  # the answer points at what it returns (module doc), which is all it must do
            schema = ctx.contract.response_schema(operation, answered)
            if "schema" in params and schema is not None:
                schema = _component(ctx, str(params["schema"]))
            if schema is None:
                # Another documented success, one the document gives no body for: nothing to judge.
                ctx.skip(f"{operation} answered {answered}, documented without a body: the shape was not exercised")
            expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, operation)
            if base is not None:
                _same_on(ctx, operation, exchange, how, values, query, sent, base)
