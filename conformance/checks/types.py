"""A valid value is accepted first, then values of the wrong type are refused.

Without the accepted control, a server that refuses the parameter whatever its value would
pass: the refusals must be about the type. ``where`` names the parameter (``query.page``,
``body.numCards``, ``path.id``); ``valid_value`` is the control, ``wrong_values`` the probes.
``params.operations`` widens the check to several operations with the same parameter. A
``valid_value`` of exactly ``"{NAME}"`` is target setting NAME, typed as the member's schema says
(``checks/examples.py``). Requests start from the rendered example (``boundary.send_variant``).
"""

from __future__ import annotations

from typing import Any

from conformance.checks.boundary import BASE_PARAMS, operations_of, send_variant
from conformance.checks.context import CheckContext
from conformance.checks.examples import setting_param
from conformance.checks.expect import expect_status
from conformance.checks.refusal import refused_statuses
from conformance.checks.registry import named

__all__ = ["wrong_types_refused"]

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
            expect_status(rule.id, send_variant(ctx, value, operation), refused_statuses(ctx),
                          f"{operation}: {rule.where}={value!r} has the wrong type and must be refused")
