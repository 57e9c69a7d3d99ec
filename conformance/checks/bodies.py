"""Request bodies edited per case, and named members of a response held to their own schema.

* ``body-cases``: the operation's example body (rendered for the target: ``checks/examples.py``)
  edited per case (members set, members dropped),
  each case accepted (2xx and a body valid under the documented schema) or refused. Accepted
  cases run first: they are the controls that make each refusal about the edit. For rules such
  as "either form A or form B, never both": cross-member constraints no single-member boundary
  check expresses. A string value that is exactly ``{NAME}`` is a target setting.
* ``response-members``: the members a rule names (``data.contract.createDate``) are present in
  the documented success response and valid under their own sub-schema, so a rule about
  timestamps fails on the timestamp, not on whichever member a whole-body check meets first; a
  string member declared to hold JSON (``contentMediaType``) must parse and fit its ``contentSchema``.
* ``defaults-equivalent``: members with a documented default omitted, and sent at it, get the
  same answer (the members the rule compares).
"""

from __future__ import annotations

import re
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, DEFAULT, auth_as, render
from conformance.checks.boundary import MISSING, with_member
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses, validator
from conformance.checks.refusal import refused_statuses
from conformance.checks.registry import named
from conformance.errors import ContractFailure, ContractFileError
from conformance.transport.jsonbody import loads
from conformance.transport.model import Exchange

__all__ = ["body_cases", "defaults_equivalent", "response_members", "setting_value"]

_SETTING = re.compile(r"^\{[A-Z][A-Z0-9_]*\}$")
_PATH_VALUES = {"type": "object", "additionalProperties": {"type": "string"}}


def setting_value(ctx: CheckContext, value: Any) -> Any:
    """``"{NAME}"`` is the target setting NAME (skipped when not configured); anything else as is."""
    if isinstance(value, str) and _SETTING.match(value):
        return render(value, ctx.credential)
    return value


def _path_values(ctx: CheckContext, operation: str | None = None) -> dict[str, str]:
    """The rule's path values the operation's path uses, settings resolved (only those: a
    setting one operation needs does not make the rule skip another)."""
    template = (operation or ctx.rule.operation or " ").split(" ", 1)[1]
    used = {k: v for k, v in (ctx.rule.params.get("path_values") or {}).items() if "{" + k + "}" in template}
    return ctx.settings_in(used)


# -- body-cases --------------------------------------------------------------------------
_CASE = {
    "type": "object",
    "required": ["why", "accepted"],
    "additionalProperties": False,
    "properties": {
        "why": {"type": "string"},
        "accepted": {"type": "boolean"},
        "set": {"type": "object"},
        "drop": {"type": "array", "items": {"type": "string"}},
    },
}


def _case_body(ctx: CheckContext, operation: str, case: dict[str, Any]) -> dict[str, Any]:
    body = example_body(ctx, operation)
    for member in case.get("drop") or []:
        body = with_member(body, member, MISSING)
    for member, value in (case.get("set") or {}).items():
        body = with_member(body, member, setting_value(ctx, value))
    return body


@named("body-cases", params={"operations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                             "path_values": _PATH_VALUES,
                             "cases": {"type": "array", "items": _CASE, "minItems": 1}},
       required=("cases",))
def body_cases(ctx: CheckContext) -> None:
    rule = ctx.rule
    cases = rule.params["cases"]
    ordered = [c for c in cases if c["accepted"]] + [c for c in cases if not c["accepted"]]
    for operation in rule.params.get("operations") or [rule.operation]:
        values = _path_values(ctx, operation)
        ok = success_statuses(ctx.contract, operation)
        accepted_once = False
        for case in ordered:
            exchange = ctx.call(operation, json_body=_case_body(ctx, operation, case), path_values=values)
            if case["accepted"]:
                expect_status(rule.id, exchange, ok, f"{operation}: {case['why']} must be accepted")
                schema = ctx.contract.response_schema(operation, exchange.response.status)
                if schema is not None:
                    expect_json_schema(rule.id, ctx.contract, exchange, schema, f"{operation}: {case['why']}")
                accepted_once = True
            else:
                if not accepted_once and rule.violation is None:
                    ctx.skip(f"{operation}: no accepted case ran first, so a refusal would show nothing")
                expect_status(rule.id, exchange, refused_statuses(ctx), f"{operation}: {case['why']} must be refused")


# -- response-members --------------------------------------------------------------------
def _member_schema(ctx: CheckContext, schema: dict[str, Any], dotted: str) -> dict[str, Any]:
    node = ctx.contract.deref(schema)
    for part in dotted.split("."):
        props = node.get("properties") or {}
        if part not in props:
            raise ContractFileError(f"{ctx.rule.id}: member {dotted} is not in the documented response")
        node = ctx.contract.deref(props[part])
    return node


@named("response-members", params={"members": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                                   "path_values": _PATH_VALUES, "as": AUTH_AS_SCHEMA},
       required=("members",))
def response_members(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.operation
    how = auth_as(rule.params["as"]) if "as" in rule.params else DEFAULT
    exchange = ctx.call(rule.operation, auth=how, path_values=_path_values(ctx))
    expect_status(rule.id, exchange, success_statuses(ctx.contract, rule.operation), f"{rule.operation}")
    status = exchange.response.status
    schema = ctx.contract.response_schema(rule.operation, status)
    if schema is None:
        raise ContractFileError(f"{rule.id}: {rule.operation} documents no {status} body")
    body = exchange.response.json()
    for dotted in rule.params["members"]:
        sub = _member_schema(ctx, schema, dotted)
        node: Any = body
        for part in dotted.split("."):
            expect(isinstance(node, dict) and part in node, rule.id, f"response has no {dotted}",
                   exchange=exchange, expected=f"{dotted} present")
            node = node[part]
        errors = sorted(validator(ctx.contract, sub).iter_errors(node), key=lambda e: list(e.absolute_path))
        if errors:
            place = "/".join(str(p) for p in errors[0].absolute_path)
            raise ContractFailure(rule.id, f"{dotted}{'/' + place if place else ''}: {errors[0].message}",
                                  expected=f"{dotted} valid under the contract's schema", exchange=exchange)
        _held_to_content(ctx, sub, node, dotted, exchange)


def _held_to_content(ctx: CheckContext, schema: dict[str, Any], value: Any, dotted: str, exchange: Exchange) -> None:
    """A string member whose schema says it holds JSON (``contentMediaType: application/json``,
    JSON Schema 2020-12 section 8.4) must parse, and the parsed value fit ``contentSchema``: the
    keywords are annotations to a plain validator, and asserted here, where a rule names the member."""
    media = str(schema.get("contentMediaType") or "")
    if not isinstance(value, str) or not (media == "application/json" or media.endswith("+json")):
        return
    try:
        parsed = loads(value)
    except ValueError:
        raise ContractFailure(ctx.rule.id, f"{dotted} {value[:80]!r} does not parse as JSON", exchange=exchange,
                              expected=f"{dotted}: a string holding {media}") from None
    error = next(iter(validator(ctx.contract, schema.get("contentSchema") or {}).iter_errors(parsed)), None)
    expect(error is None, ctx.rule.id, f"{dotted} parsed: {error.message if error else ''}", exchange=exchange,
           expected=f"{dotted}: JSON valid under its contentSchema")




# -- defaults-equivalent -----------------------------------------------------------------
def _at(body: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        body = body.get(part) if isinstance(body, dict) else None
    return body


@named("defaults-equivalent", params={"compare": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                                      "path_values": _PATH_VALUES}, required=("compare",))
def defaults_equivalent(ctx: CheckContext) -> None:
    """The request members the operation's body schema gives a ``default`` (top-level members)
    omitted from the example body, and sent at their defaults: both are accepted, and the answers'
    ``compare`` members (dotted) are present and the same: the default is what is applied."""
    rule = ctx.rule
    assert rule.operation
    props = ctx.contract.deref(ctx.contract.request_schema(rule.operation) or {}).get("properties") or {}
    defaults = {name: spec["default"] for name, spec in ((n, ctx.contract.deref(s)) for n, s in props.items())
                if "default" in spec}
    if not defaults:
        raise ContractFileError(f"{rule.id}: the request body of {rule.operation} gives no member a default")
    ok, values = success_statuses(ctx.contract, rule.operation), _path_values(ctx)
    base = {k: v for k, v in example_body(ctx, rule.operation).items() if k not in defaults}
    omitted = ctx.call(rule.operation, json_body=base, path_values=values)
    expect_status(rule.id, omitted, ok, f"{', '.join(defaults)} omitted (they have defaults)")
    explicit = ctx.call(rule.operation, json_body={**base, **defaults}, path_values=values)
    expect_status(rule.id, explicit, ok, f"the defaults {defaults} sent explicitly")
    compare = rule.params["compare"]
    a, b = ({m: _at(e.response.json(), m) for m in compare} for e in (omitted, explicit))
    expect(a == b and None not in a.values(), rule.id,
           f"with the defaults omitted {a} differs from with them sent {b}", exchange=explicit,
           expected="the same answer either way (the default applied)")
