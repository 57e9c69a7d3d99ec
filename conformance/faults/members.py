"""Faults derived from a rule over one request member: a server that takes a wrong value as a
right one. One family per rule kind whose core check probes a member:

``bound-accepted``  (limit)     a value past the schema's bound is taken;
``off-list-accepted`` (enum)    a value the enum does not list is taken (with ``array_items``, an
                                array holding one);
``required-defaulted`` (required) a request without the member is taken;
``wrong-type-accepted`` (a ``wrong-types`` rule) a value of the wrong type is read as a right one.

Each is the deviation its kind's check exists to catch, built from the contract alone, for every
such rule: no service writes them by hand. The server "takes" a wrong value by answering as it
answered the last request it accepted: the fault remembers the member's value from a request the
simulator answered 2xx (every check sends the contract's example first, its control) and puts it
in place of the wrong one, so the simulator itself accepts the request. Before any accepted
request, a value past a bound is clamped to it (what a lenient server does); otherwise the
request passes unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.checks.boundary import enum_of
from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, FaultySimulator, derived_fault
from conformance.faults.toolkit import operations as to_any_of
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["member_faults"]

_ABSENT = object()
Wrong = Callable[[Any], bool]


def _read(request: Request, area: str, dotted: str) -> Any:
    if area == "query":
        values = [v for k, v in request.query if k == dotted]
        return values[0] if values else _ABSENT
    try:
        node: Any = json.loads(request.body)
    except ValueError:
        return _ABSENT
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return _ABSENT
        node = node[part]
    return node


def _write(request: Request, area: str, dotted: str, value: Any) -> None:
    if area == "query":
        kept = [(k, v) for k, v in request.query if k != dotted]
        request.query = [*kept, (dotted, value)]
        return
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return
    node = body
    parts = dotted.split(".")
    for part in parts[:-1]:
        if not isinstance(node, dict):
            return
        node = node.setdefault(part, {})
    if isinstance(node, dict):
        node[parts[-1]] = value
        request.body = json.dumps(body).encode()


def _taking(rule: Rule, operations: list[str], wrong: Wrong,
            repair: Callable[[Any], Any] | None = None) -> Callable[[Simulator], Simulator]:
    area, _, dotted = (rule.where or "").partition(".")
    on_operation = to_any_of(operations)

    def wrap(sim: Simulator) -> Simulator:
        accepted: list[Any] = []  # the member's value in the last request the simulator took
        sent: list[Any] = [_ABSENT]

        def before(request: Request) -> Request:
            sent[0] = _ABSENT
            if not on_operation(request):
                return request
            value = _read(request, area, dotted)
            if wrong(value) and (accepted or repair):
                _write(request, area, dotted, accepted[-1] if accepted else repair(value))  # type: ignore[misc]
            elif not wrong(value):
                sent[0] = value
            return request

        def after(request: Request, response: Response) -> Response:
            if sent[0] is not _ABSENT and 200 <= response.status < 300:
                accepted.append(sent[0])
            return response

        return FaultySimulator(sim, before=before, after=after)  # type: ignore[return-value]

    return wrap


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    try:
        return float(value)  # a query value is text
    except (TypeError, ValueError):
        return None


def _past_bound(schema: dict[str, Any]) -> Wrong:
    kind = schema.get("type")
    low, high = ("minItems", "maxItems") if kind == "array" else ("minLength", "maxLength")

    def wrong(value: Any) -> bool:
        if value is _ABSENT:
            return False
        if kind in ("integer", "number"):
            number = _number(value)
            if number is None:
                return False
            return number > schema.get("maximum", number) or number < schema.get("minimum", number)
        if isinstance(value, (str, list)):
            return len(value) > schema.get(high, len(value)) or len(value) < schema.get(low, 0)
        return False

    return wrong


def _clamp(schema: dict[str, Any]) -> Callable[[Any], Any]:
    """A value past the bound brought within it, as a server that clamps instead of refusing."""

    def repair(value: Any) -> Any:
        if isinstance(value, list):
            return value[: schema.get("maxItems", len(value))]
        if isinstance(value, str) and schema.get("type") not in ("integer", "number"):
            cut = value[: schema.get("maxLength", len(value))]
            return cut + (cut[-1:] or "a") * max(0, schema.get("minLength", 0) - len(cut))
        number = _number(value)
        if number is None:
            return value
        clamped = min(max(number, schema.get("minimum", number)), schema.get("maximum", number))
        return str(clamped) if isinstance(value, str) else clamped

    return repair


def _off_list(allowed: list[Any]) -> Wrong:
    texts = {str(v) for v in allowed} | {str(v).casefold() for v in allowed if isinstance(v, str)}

    def wrong(value: Any) -> bool:
        if value is _ABSENT or isinstance(value, (dict, list)):
            return False
        return value not in allowed and str(value) not in texts and str(value).casefold() not in texts

    return wrong


def _absent(value: Any) -> bool:
    return value is _ABSENT


def _member_rule(rule: Rule) -> bool:
    """A rule over a body or query member whose kind (or check) says what a wrong value is."""
    return ((rule.kind in ("limit", "enum", "required") or rule.params.get("check") == "wrong-types")
            and bool(rule.operation) and (rule.where or "").startswith(("body.", "query.")))


def _one_of(values: list[Any]) -> Wrong:
    texts = {json.dumps(v, sort_keys=True) for v in values} | {str(v) for v in values if not isinstance(v, str)}

    def wrong(value: Any) -> bool:
        return value is not _ABSENT and (json.dumps(value, sort_keys=True) in texts)

    return wrong


def member_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in filter(_member_rule, contract.rules):
        assert rule.operation and rule.where
        operations = [str(op) for op in rule.params.get("operations") or [rule.operation]]
        short = rule.id.split(".", 1)[1]
        try:
            schema = contract.where_schema(operations[0], rule.where)
        except KeyError:
            continue
        if rule.params.get("check") == "wrong-types" and rule.params.get("wrong_values"):
            valid = rule.params.get("valid_value")
            faults.append(derived_fault(f"wrong-type-accepted:{short}", rule.id,
                                        f"{rule.operation} reads a wrong-typed {rule.where} as a right one")(
                _taking(rule, operations, _one_of(list(rule.params["wrong_values"])), lambda _value: valid)))
        elif rule.kind == "limit":
            faults.append(derived_fault(f"bound-accepted:{short}", rule.id,
                                        f"{rule.operation} takes {rule.where} past its documented bound")(
                _taking(rule, operations, _past_bound(schema), _clamp(schema))))
        elif rule.kind == "enum" and (allowed := enum_of(schema, bool(rule.params.get("array_items")))):
            off = _off_list(allowed)
            wrong = (lambda v: isinstance(v, list) and any(map(off, v))) if rule.params.get("array_items") else off
            faults.append(derived_fault(f"off-list-accepted:{short}", rule.id,
                                        f"{rule.operation} takes a {rule.where} the list does not hold")(
                _taking(rule, operations, wrong)))
        elif rule.kind == "required":
            faults.append(derived_fault(f"required-defaulted:{short}", rule.id,
                                        f"{rule.operation} takes a request without {rule.where}")(
                _taking(rule, operations, _absent)))
    return faults
