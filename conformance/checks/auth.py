"""Generic authentication check: a request with a credential variant is refused.

``params.as`` is the variant in its catalogue form (see ``conformance.auth.variants``):
``{none: true}`` (no credential), ``{invalid: true}`` (every scheme filled with a value no account
has), ``{none: true, also: {Authorization: "Bearer {API_KEY}"}}`` (the valid key presented in
another way), ``{swap: {API_KEY: FREE_API_KEY}}`` (another plan), ``{values: {...}}``, ``{omit: [...]}``.
``params.operations`` widens the check from the rule's operation to a list; ``params.path_values``
gives path parameters (otherwise a placeholder: authentication comes before the resource lookup).
A body is the operation's example rendered for the target (``checks/examples.py``), as it is when
a setting it names is not configured (authentication comes before the body is read).

``credential-accepted`` is the other side: the credential in its documented form is accepted.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, DEFAULT, AuthAs, auth_as, scheme_location
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body
from conformance.checks.expect import expect_json_schema, expect_status, success_statuses
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import for_kind, named
from conformance.errors import ContractFileError, RuleSkipped
from conformance.transport.model import Exchange, Request

__all__ = ["PLACEHOLDER", "auth_refused", "credential_accepted", "request_for"]

PLACEHOLDER = "conformance-placeholder"

_PARAMS: dict[str, Any] = {
    "as": AUTH_AS_SCHEMA,
    "operations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "path_values": {"type": "object", "additionalProperties": {"type": "string"}},
}


def request_for(ctx: CheckContext, operation: str, path_values: dict[str, str] | None = None) -> Request:
    """The operation's example request, unauthenticated; unknown path parameters get a placeholder."""
    method, template = operation.split(" ", 1)
    path = ctx.path(template, operation=operation, **(path_values or {}))
    for part in template.split("/"):
        if part.startswith("{") and part in path:
            path = path.replace(part, PLACEHOLDER)
    if method not in ("POST", "PUT", "PATCH"):
        return Request.build(method, path)
    try:
        body = example_body(ctx, operation)
    except RuleSkipped:  # a setting the example names is not configured: the example as written
        body = ctx.contract.request_example(operation)
    return ctx.contract.body_request(operation, method, path, body)


def send_as(ctx: CheckContext, operation: str, how: AuthAs, path_values: dict[str, str] | None = None) -> Exchange:
    return ctx.send(ctx.auth(request_for(ctx, operation, path_values), operation, how))


# By kind, and by name for a rule of another kind refused for its credential (a plan, a denied account).
@named("auth", params=_PARAMS, required=("as",))
@for_kind("auth", params=_PARAMS, required=("as",))
def auth_refused(ctx: CheckContext) -> None:
    rule = ctx.rule
    how = auth_as(rule.params["as"])
    # Path values may name target settings ({shop_id: "{SHOP_ID}"}): skipped when not configured.
    values = ctx.settings_in(rule.params.get("path_values"))
    for operation in rule.params.get("operations") or [rule.operation]:
        expect_refused(ctx, f"{operation} {how.describe()} must be refused",
                       partial(send_as, ctx, operation, how, values),
                       control=partial(send_as, ctx, operation, DEFAULT, values),
                       credential_variant=True)


@named("credential-accepted", params={"scheme": {"type": "string"}, "pattern": {"type": "string"},
                                      "path_values": _PARAMS["path_values"]}, required=("scheme", "pattern"))
def credential_accepted(ctx: CheckContext) -> None:
    """The rule's operation, with the credential of ``scheme`` in the documented form (its
    ``x-credential``), is accepted: a documented 2xx, valid under the documented body. Where the
    value formed from the configured settings does not match ``pattern`` (the documented form:
    a setting of another shape), no such credential can be sent and the rule is skipped. Where
    credentials are placeholders (replay) the recorded acceptance is what is rechecked."""
    rule = ctx.rule
    if not rule.operation:
        raise ContractFileError(f"{rule.id}: credential-accepted needs the rule's operation")
    schemes = ctx.contract.openapi.get("components", {}).get("securitySchemes") or {}
    if rule.params["scheme"] not in schemes:
        raise ContractFileError(f"{rule.id}: no security scheme {rule.params['scheme']!r} in openapi.yaml")
    if ctx.can.real_credentials:
        where, name = scheme_location(schemes[rule.params["scheme"]])
        sent = ctx.auth(Request.build("GET", "/"), rule.operation)
        value = sent.header(name) if where == "header" else sent.params.get(name)
        if not re.match(rule.params["pattern"], value or ""):
            ctx.skip(f"the {rule.params['scheme']} credential formed from the configured settings is not of the "
                     f"documented form ({rule.params['pattern']}), so none can be sent")
    exchange = ctx.call(rule.operation, path_values=ctx.settings_in(rule.params.get("path_values")))
    expect_status(rule.id, exchange, success_statuses(ctx.contract, rule.operation),
                  f"{rule.operation} with the {rule.params['scheme']} credential in its documented form")
    schema = ctx.contract.response_schema(rule.operation, exchange.response.status)
    if schema is not None:
        expect_json_schema(rule.id, ctx.contract, exchange, schema, rule.operation)
