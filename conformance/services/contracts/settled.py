"""Example bodies whose members are target settings, and generated bodies a server may refuse.

* ``settled(ctx)``: the estimate calls' examples carry a source address and template parameters
  the document never names. The request media type says which members are target settings
  (``x-settings: {sourceAddress: SOURCE_ADDRESS}``); ``settled`` gives a context whose contract's
  examples hold the configured values (else ``settings.defaults``, our simulator's seed), and
  whose rule params that are exactly ``"{NAME}"`` are rendered the same way. A member whose
  schema is an object or array takes the setting as JSON text. The named check ``settled`` runs
  a generic check (``params.generic``) on that context, so those rules stay generic.
* ``valid-bodies-refusable``: the generic ``valid-bodies`` with statuses a generated body may
  also get (``refusable``), for members whose format the document does not show: the example
  must be accepted first, then every generated body is accepted (and its answer valid) or
  refused with one of those statuses, never anything else.

Both proposed as shared building blocks (see the report): x-settings on examples, and a
``refusable`` parameter of ``valid-bodies``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA
from conformance.checks.auth import auth_refused
from conformance.checks.bodies import body_cases
from conformance.checks.boundary import (
    ENUM_PARAMS,
    LIMIT_PARAMS,
    baseline,
    enum_values,
    limit_boundary,
    required_member,
)
from conformance.checks.context import CheckContext
from conformance.checks.properties import bodies_answered, documented_only, invalid_bodies_refused
from conformance.checks.registry import named
from conformance.checks.types import wrong_types_refused
from conformance.contract import Contract
from conformance.errors import ContractFileError

__all__ = ["setting", "settled", "settled_generic", "valid_bodies_refusable"]

_GENERIC = {"auth": auth_refused, "body-cases": body_cases, "enum": enum_values,
            "invalid-bodies": invalid_bodies_refused, "limit": limit_boundary, "required": required_member,
            "wrong-types": wrong_types_refused}
_SETTLED_PARAMS: dict[str, Any] = {
    **ENUM_PARAMS,
    **LIMIT_PARAMS,
    "generic": {"enum": sorted(_GENERIC)},
    "as": AUTH_AS_SCHEMA,
    "valid_value": {},
    "wrong_values": {"type": "array", "minItems": 1},
    "cases": {"type": "array", "minItems": 1},
}
_NAME = re.compile(r"^\{([A-Z][A-Z0-9_]*)\}$")
# Keyed by the source contract's identity and the values used; the source is kept so its id
# cannot be reused by another contract.
_CACHE: dict[tuple[int, str], tuple[Contract, Contract]] = {}


def setting(ctx: CheckContext, name: str) -> str:
    """A target setting: configured, else the catalogue's default (the simulator's seed)."""
    value = ctx.optional(name)
    if value:
        return value
    defaults = ctx.contract.settings.get("defaults") or {}
    if name not in defaults:
        raise ContractFileError(f"{ctx.rule.id}: setting {name} has no default in rules.yaml settings.defaults")
    return str(defaults[name])


def _value(ctx: CheckContext, name: str, schema: dict[str, Any]) -> Any:
    text = setting(ctx, name)
    if schema.get("type") not in ("object", "array"):
        return text
    try:
        return json.loads(text)
    except ValueError:
        ctx.skip(f"setting {name} must be JSON text (an {schema.get('type')}), got {text[:60]!r}")
    return None  # not reached: skip raises


def _settled_contract(ctx: CheckContext) -> Contract:
    source = ctx.contract
    values: dict[str, dict[str, Any]] = {}
    for operation in source.operations():
        names = source.json_media(operation).get("x-settings") or {}
        if names:
            props = source.deref(source.request_schema(operation)).get("properties") or {}
            values[operation] = {member: _value(ctx, str(name), source.deref(props.get(member, {})))
                                 for member, name in names.items()}
    key = (id(source), json.dumps(values, sort_keys=True))
    if key in _CACHE and _CACHE[key][0] is source:
        return _CACHE[key][1]
    examples = {operation: {**(source.json_media(operation).get("example") or {}), **members}
                for operation, members in values.items()}
    _CACHE[key] = (source, source.with_examples(examples))
    return _CACHE[key][1]


def settled(ctx: CheckContext) -> CheckContext:
    """``ctx`` whose examples and ``"{NAME}"`` params hold the target's setting values."""
    rule = ctx.rule
    params = dict(rule.params)
    for key, value in rule.params.items():
        match = _NAME.match(value) if isinstance(value, str) else None
        if match:
            # valid_value takes the type of the member it stands for (an object from JSON text).
            typed = key == "valid_value" and rule.operation and rule.where
            where = ctx.contract.where_schema(str(rule.operation), str(rule.where)) if typed else {}
            schema = ctx.contract.deref(where)
            params[key] = _value(ctx, match.group(1), schema)
    return dataclasses.replace(ctx, contract=_settled_contract(ctx), rule=dataclasses.replace(rule, params=params))


@named("settled", params=_SETTLED_PARAMS, required=("generic",))
def settled_generic(ctx: CheckContext) -> None:
    """The generic check ``params.generic`` names, on the settled examples."""
    _GENERIC[ctx.rule.params["generic"]](settled(ctx))


@named("valid-bodies-refusable", params={"refusable": {"type": "array", "items": {"type": "integer"}, "minItems": 1}},
       required=("refusable",))
def valid_bodies_refusable(ctx: CheckContext) -> None:
    rule = ctx.rule
    operation = rule.operation
    assert operation
    ctx = settled(ctx)
    contract = ctx.contract
    # The control: the settled example is accepted, so a target refusing everything fails.
    baseline(ctx)
    body_schema = contract.standalone(documented_only(contract.request_schema(operation), contract))
    bodies_answered(ctx, operation, body_schema, "a body valid under the documented schema must be accepted, or "
                    "refused with a documented status", frozenset(rule.params["refusable"]))
