"""Scenario checks of the smart-contract platform service (volume 1, part C).

Only what no generic check or building block expresses: a header carried on every
call, a documented default compared with its explicit value (both on the examples rendered for
the target: checks/examples.py) and a JSON string that must parse. Values come from the rule's params and the contract.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.registry import named
from conformance.transport.jsonbody import loads
from conformance.transport.model import Exchange

__all__: list[str] = []

_PATH_VALUES = {"type": "object", "additionalProperties": {"type": "string"}}
_CALL = {"type": "object", "required": ["operation"], "additionalProperties": False,
         "properties": {"operation": {"type": "string"}, "path_values": _PATH_VALUES}}


def _send(ctx: CheckContext, operation: str, path_values: dict[str, str], headers: dict[str, str]) -> Exchange:
    body = example_body(ctx, operation) if operation.startswith(("POST", "PUT", "PATCH")) else None
    return ctx.call(operation, path_values=path_values, headers=headers or None, json_body=body or None)


@named("contracts/request-id-accepted", params={"value": {"type": "string", "minLength": 1},
                  "calls": {"type": "array", "items": _CALL, "minItems": 1}}, required=("value", "calls"))
def request_id_accepted(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.where
    header = rule.where.partition(".")[2]
    value = rule.params["value"]
    echoes: list[str] = []
    for call in rule.params["calls"]:
        operation = call["operation"]
        values = ctx.settings_in(call.get("path_values"))
        # The control: the same call without the header; the header may change nothing.
        plain = _send(ctx, operation, values, {})
        expect_status(rule.id, plain, success_statuses(ctx.contract, operation), f"{operation} without {header}")
        traced = _send(ctx, operation, values, {header: value})
        expect_status(rule.id, traced, plain.response.status,
                      f"{operation} with {header}: {value!r} (optional, caller-chosen) must be answered as without it")
        echoed = traced.response.header(header)
        echoes.append("echoed" if echoed == value else "another value" if echoed else "not echoed")
    ctx.observed(", ".join(sorted(set(echoes))))


def _gas_limits(ctx: CheckContext, exchange: Exchange) -> dict[str, Any]:
    data = (exchange.response.json() or {}).get("data") or {}
    return {level: (data.get(level) or {}).get("gasLimit") for level in ("high", "low", "medium")}


@named("contracts/constructor-defaults")
def constructor_defaults(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.operation
    schema = ctx.contract.deref(ctx.contract.request_schema(rule.operation))["properties"]
    defaults = {name: spec["default"] for name, spec in schema.items() if "default" in spec}
    ok = success_statuses(ctx.contract, rule.operation)
    # The example rendered for the target: its address is a target setting.
    base = {k: v for k, v in example_body(ctx, rule.operation).items() if k not in defaults}
    omitted = ctx.call(rule.operation, json_body=base)
    expect_status(rule.id, omitted, ok, f"{', '.join(defaults)} omitted (they have defaults)")
    explicit = ctx.call(rule.operation, json_body={**base, **defaults})
    expect_status(rule.id, explicit, ok, f"the defaults {defaults} sent explicitly")
    a, b = _gas_limits(ctx, omitted), _gas_limits(ctx, explicit)
    expect(a == b and None not in a.values(), rule.id,
           f"gasLimit with the members omitted {a} differs from gasLimit with their defaults sent {b}",
           exchange=explicit, expected="the same deployment estimated either way")


@named("contracts/abi-json-parses", params={"path_values": _PATH_VALUES}, required=("path_values",))
def abi_json_parses(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.operation
    exchange = ctx.call(rule.operation, path_values=ctx.settings_in(rule.params["path_values"]))
    expect_status(rule.id, exchange, success_statuses(ctx.contract, rule.operation), "get contract")
    record = ((exchange.response.json() or {}).get("data") or {}).get("contract") or {}
    text = record.get("abiJson")
    try:
        parsed = loads(text) if isinstance(text, str) else None
    except ValueError:
        parsed = None
    expect(isinstance(parsed, list), rule.id, f"abiJson {str(text)[:80]!r} is not a JSON-stringified ABI",
           exchange=exchange, expected="a string that parses as a JSON array of ABI entries")
