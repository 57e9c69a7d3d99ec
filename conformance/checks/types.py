"""A valid value is accepted first, then values of the wrong type are refused.

``typed-parameters`` (below) holds a document's convention for a standard parameter type to
every parameter the contract declares of that type.

Without the accepted control, a server that refuses the parameter whatever its value would
pass: the refusals must be about the type. ``where`` names the parameter (``query.page``,
``body.numCards``, ``path.id``); ``valid_value`` is the control, ``wrong_values`` the probes.
``params.operations`` widens the check to several operations with the same parameter. A
``valid_value`` of exactly ``"{NAME}"`` is target setting NAME, typed as the member's schema says
(``checks/examples.py``). Requests start from the rendered example (``boundary.send_variant``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from conformance.checks.boundary import BASE_PARAMS, operations_of, send_variant
from conformance.checks.context import CheckContext
from conformance.checks.examples import setting_param
from conformance.checks.expect import expect_status, success_statuses
from conformance.checks.refusal import expect_refused, refusal_answer, refused_statuses
from conformance.checks.registry import named
from conformance.checks.shape import fill_path

__all__ = ["typed_parameters", "wrong_types_refused"]

_PARAMS: dict[str, Any] = {
    **BASE_PARAMS,
    "valid_value": {},
    "wrong_values": {"type": "array", "minItems": 1},
}


@named("wrong-types", params=_PARAMS, required=("valid_value", "wrong_values"))
def wrong_types_refused(ctx: CheckContext) -> None:
    rule = ctx.rule
    if not (rule.operation and rule.where):
        ctx.skip("a wrong-types rule needs operation and where")
    ok = set(range(200, 300))
    for operation in operations_of(ctx):
        valid = setting_param(ctx, rule.params["valid_value"], ctx.contract.where_schema(operation, rule.where))
        control = send_variant(ctx, valid, operation)
        expect_status(rule.id, control, ok,
                      f"{operation}: {rule.where}={rule.params['valid_value']!r}, a valid value (the control)")
        for value in rule.params["wrong_values"]:
            why = f"{operation}: {rule.where}={value!r} has the wrong type and must be refused"
            expect_status(rule.id, refusal_answer(ctx, partial(send_variant, ctx, value, operation),
                                                  partial(send_variant, ctx, valid, operation), why),
                          refused_statuses(ctx), why)


# -- typed-parameters ----------------------------------------------------------------------
def _declared(ctx: CheckContext, kind: str, listed: list[str] | None) -> list[tuple[str, dict[str, Any]]]:
    """(operation, parameter) of every parameter whose schema type is (or includes) ``kind``."""
    out = []
    for operation in listed or ctx.contract.operations():
        for param in ctx.contract.parameters(operation):
            declared = ctx.contract.deref(param.get("schema") or {}).get("type")
            if kind in (declared if isinstance(declared, list) else [declared]):
                out.append((operation, param))
    return out


def _nullable(node: Any, place: str = "") -> list[str]:
    if isinstance(node, dict):
        kind = node.get("type")
        own = [place] if (isinstance(kind, list) and "null" in kind) or node.get("nullable") is True else []
        return own + [f for k, v in node.items() for f in _nullable(v, f"{place}/{k}")]
    if isinstance(node, list):
        return [f for i, v in enumerate(node) for f in _nullable(v, f"{place}/{i}")]
    return []


@named("typed-parameters", params={
    "type": {"enum": ["integer", "boolean", "array", "null"]},
    "expect": {"enum": ["accepted", "refused"]},
    "values": {"type": "array", "minItems": 1},
    "operations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "path_values": {"type": "object", "additionalProperties": {"type": "string"}}}, required=("type",))
def typed_parameters(ctx: CheckContext) -> None:
    """The standard parameter type ``type`` on every parameter the contract declares of that type
    (of ``operations`` when given): ``values`` are accepted, or refused after a valid value of the
    type (its default, else its minimum, else 0) was accepted (the control, so refusing the
    parameter outright fails). An array's default value is its items' listed values, comma-separated.
    ``null`` concerns response fields, which every schema check already reads: nothing is sent,
    and the rule is skipped saying where the contract allows null."""
    params = ctx.rule.params
    kind = params["type"]
    if kind == "null":
        fields = _nullable(ctx.contract.openapi)
        ctx.skip("no documented field is nullable" if not fields else
                 f"nullable fields {', '.join(fields)}: a null there is judged by the schema checks of the responses")
    found = _declared(ctx, kind, params.get("operations"))
    if not found:
        ctx.skip(f"no documented parameter is of type {kind}, so the convention applies to nothing yet")
    for operation, param in found:
        name, schema = param["name"], ctx.contract.deref(param.get("schema") or {})
        ok = success_statuses(ctx.contract, operation)
        send = partial(ctx.call, operation, path_values=fill_path(ctx, operation, params.get("path_values")))
        values = params.get("values") or [",".join(ctx.contract.deref(schema.get("items") or {}).get("enum") or [])]
        if params.get("expect", "accepted") == "accepted":
            for value in values:
                expect_status(ctx.rule.id, send(params={name: value}), ok, f"{operation}: {name}={value!r}")
            continue
        valid = schema.get("default", schema.get("minimum", 0))
        control = send(params={name: valid})
        expect_status(ctx.rule.id, control, ok, f"{operation}: {name}={valid!r} (a valid {kind}, the control)")
        for value in values:
            expect_refused(ctx, f"{operation}: {name}={value!r} (not of type {kind})",
                           partial(send, params={name: value}), control=lambda: control)
