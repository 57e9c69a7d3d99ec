"""Generic checks of documented limits, enums and required fields, driven by the contract.

Each starts from the contract's example request (which must be accepted), changes one member,
and expects the documented success statuses at a bound and the rule's violation status just
past it. No number appears here: bounds come from the schema the rule points at.

The example is rendered for the target (``checks/examples.py``: setting templates, x-settings,
x-relative-dates), and its ``x-unique`` members are new on every request of the case (numbered
from 1 per case), so a create is never refused as a duplicate of the control.
"""

from __future__ import annotations

import copy
import itertools
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, setting, unique
from conformance.checks.expect import expect_status, success_statuses
from conformance.checks.refusal import refusal_answer, refused_statuses
from conformance.checks.registry import for_kind
from conformance.contract.foreign import foreign_values
from conformance.errors import ContractFailure, ContractFileError, SkipKind
from conformance.transport.model import Exchange

__all__ = ["BASE_PARAMS", "ENUM_PARAMS", "LIMIT_PARAMS", "MISSING", "baseline", "bound_values", "enum_of",
           "operations_of", "outside_values", "send_variant", "with_member"]

MISSING = object()  # as a value: leave the member out
# Near misses are made from the first few listed values: enough to see a case-insensitive or
# prefix-matching server, without a request storm on a long list.
NEAR_MISS_SOURCES = 3

# Query and path values the operation needs besides the member under test.
BASE_PARAMS: dict[str, Any] = {
    "base_query": {"type": "object"},
    "path_values": {"type": "object", "additionalProperties": {"type": "string"}},
    "operations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
}


def with_member(body: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """A copy of ``body`` with the member at ``dotted`` (e.g. ``imageOptions.source``) set."""
    out = copy.deepcopy(body)
    node = out
    parts = dotted.split(".")
    for part in parts[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    if value is MISSING:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value
    return out


def _fill(schema: dict[str, Any], n: int) -> Any:
    """A value of size n for a string (characters) or array (items) schema."""
    if schema.get("type") == "array":
        item_type = (schema.get("items") or {}).get("type", "string")
        filler = {"string": lambda i: f"item-{i}", "integer": lambda i: i, "number": lambda i: i}
        return [filler.get(item_type, filler["string"])(i) for i in range(n)]
    return "a" * n


def bound_values(schema: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """(label, value, should_be_accepted) at and just past each bound the schema gives."""
    out: list[tuple[str, Any, bool]] = []
    kind = schema.get("type")
    if kind in ("string", "array"):
        lo_key, hi_key = ("minLength", "maxLength") if kind == "string" else ("minItems", "maxItems")
        if hi_key in schema:
            hi = schema[hi_key]
            out += [(f"{hi_key} {hi}", _fill(schema, hi), True),
                    (f"{hi_key} {hi} + 1", _fill(schema, hi + 1), False)]
        if schema.get(lo_key, 0) > 0:
            lo = schema[lo_key]
            out += [(f"{lo_key} {lo}", _fill(schema, lo), True),
                    (f"{lo_key} {lo} - 1", _fill(schema, lo - 1), False)]
    elif kind in ("integer", "number"):
        if "maximum" in schema:
            hi = schema["maximum"]
            out += [(f"maximum {hi}", hi, True), (f"maximum {hi} + 1", hi + 1, False)]
        if "minimum" in schema:
            lo = schema["minimum"]
            out += [(f"minimum {lo}", lo, True), (f"minimum {lo} - 1", lo - 1, False)]
    return out


def _path_values(ctx: CheckContext) -> dict[str, str]:
    # Values may name target settings: {shop_id: "{SHOP_ID}"} (skipped when not configured).
    return ctx.settings_in(ctx.rule.params.get("path_values"))


# Requests sent so far in each case (a case has its own session): numbers the x-unique members.
_SENT: weakref.WeakKeyDictionary[Any, itertools.count[int]] = weakref.WeakKeyDictionary()


def _unique(ctx: CheckContext, operation: str, body: Any, keep: str = "") -> Any:
    serial = _SENT.setdefault(ctx.session, itertools.count(1))
    return unique(ctx, operation, body, next(serial), keep=keep)


def operations_of(ctx: CheckContext) -> list[str]:
    """The rule's operation, or the list its params widen it to."""
    return list(ctx.rule.params.get("operations") or [ctx.rule.operation])


def send_variant(ctx: CheckContext, value: Any, operation: str | None = None) -> Exchange:
    """The contract's example request with the rule's member set to ``value`` (or removed)."""
    rule = ctx.rule
    operation = operation or rule.operation
    assert operation and rule.where
    area, _, name = rule.where.partition(".")
    body = example_body(ctx, operation)
    # A rule may give the query and path values its operation needs besides the member tested.
    params = ctx.query_in(rule.params.get("base_query"))
    path_values = _path_values(ctx)
    if area == "body":
        body = _unique(ctx, operation, with_member(body, name, value), keep=name.partition(".")[0])
        return ctx.call(operation, json_body=body, params=params or None, path_values=path_values)
    if area == "path":
        path_values[name] = str(value) if value is not MISSING else ""
    elif value is MISSING:
        params.pop(name, None)
    else:
        params[name] = value
    return ctx.call(operation, params=params or None, json_body=_unique(ctx, operation, body) or None,
                    path_values=path_values)


def example_exchange(ctx: CheckContext, operation: str | None = None) -> Exchange:
    """The contract's example request, sent: the control of the refusals below."""
    operation = operation or ctx.rule.operation
    assert operation
    body = _unique(ctx, operation, example_body(ctx, operation))
    return ctx.call(operation, json_body=body or None, params=ctx.query_in(ctx.rule.params.get("base_query")) or None,
                    path_values=_path_values(ctx))


def baseline(ctx: CheckContext, operation: str | None = None) -> None:
    """The control: the contract's example request must be accepted before any refusal counts."""
    operation = operation or ctx.rule.operation
    assert operation
    expect_status(ctx.rule.id, example_exchange(ctx, operation), success_statuses(ctx.contract, operation),
                  f"{operation}: the contract's example request (the starting point) was refused")


def outside_values(allowed: list[Any], extra: list[Any] | None = None) -> list[Any]:
    """Values of the enum's own type that it does not list.

    A number enum gets the numbers just past and between its members (a type error would show
    nothing). A string enum gets a plainly foreign value and near misses of the listed ones (a
    letter dropped, a plural), since a server that accepts a plausible wrong value is the
    deviation that matters; the rule may add real-world values the list leaves out
    (``params.outside``: a synonym, a value of a sibling API). Never another case of a listed
    value: no sentence of the documents says matching is case-sensitive, so a server folding case
    conforms (allowed variant ``case-folding-enums``).
    """
    if allowed and all(isinstance(v, int) and not isinstance(v, bool) for v in allowed):
        candidates: list[Any] = [max(allowed) + 1, min(allowed) - 1] + [
            v for v in range(min(allowed), max(allowed)) if v not in allowed][:1]
    else:
        candidates = ["zz-not-listed"]
        for value in [v for v in allowed if isinstance(v, str) and len(v) > 1][:NEAR_MISS_SOURCES]:
            candidates += [value[:-1], value + "s"]
    candidates += list(extra or ())
    folded = {v.casefold() for v in allowed if isinstance(v, str)}
    seen: list[Any] = []
    for value in candidates:
        if value in allowed or value in seen:
            continue
        if isinstance(value, str) and value.casefold() in folded:
            continue  # another case of a listed value: allowed (see above)
        seen.append(value)
    return seen


def _pointed(ctx: CheckContext) -> Any:
    """The rule, if it points at a member; otherwise the generic check cannot run."""
    if not (ctx.rule.operation and ctx.rule.where):
        ctx.skip(f"a {ctx.rule.kind} rule without operation and where needs a service-specific check")
    return ctx.rule


LIMIT_PARAMS: dict[str, Any] = {
    **BASE_PARAMS,
    # "any": a value at the bound may be refused for another reason the document allows (our
    # filler is not a valid bytecode or signature), so only the side past the bound is checked,
    # after the example request (the control) was accepted.
    "at_bound": {"enum": ["accepted", "any"]},
    # An array of ids only the target knows: "{SETTING}" names them, comma-separated; they are the
    # items at the bound (fewer than it: not exercised), made-up ones only past it.
    "items_from": {"type": "string", "pattern": r"^\{[A-Z][A-Z0-9_]*\}$"},
}


def _known_items(ctx: CheckContext, values: list[tuple[str, Any, bool]]) -> list[tuple[str, Any, bool]]:
    """``values`` with the array items the rule's ``items_from`` setting names in front."""
    name = str(ctx.rule.params["items_from"])[1:-1]
    known = [item.strip() for item in setting(ctx, name).split(",") if item.strip()]
    out = []
    for label, value, accepted in values:
        if isinstance(value, list):
            if accepted and len(value) > len(known):
                ctx.skip(f"{name} names {len(known)} items; {ctx.rule.where} at {label} needs {len(value)}",
                         SkipKind.NOT_EXERCISED)
            value = known[:len(value)] + value[len(known):]
        out.append((label, value, accepted))
    return out


@for_kind("limit", params=LIMIT_PARAMS)
def limit_boundary(ctx: CheckContext) -> None:
    rule = _pointed(ctx)
    for operation in operations_of(ctx):
        schema = ctx.contract.where_schema(operation, rule.where)
        values = bound_values(schema)
        if not values:
            ctx.skip(f"{rule.where} has no bound in the contract's schema")
        if "items_from" in rule.params:
            values = _known_items(ctx, values)
        baseline(ctx, operation)
        ok = success_statuses(ctx.contract, operation)
        for label, value, accepted in values:
            if accepted and rule.params.get("at_bound") == "any":
                continue
            if accepted:
                expect_status(rule.id, send_variant(ctx, value, operation), ok,
                              f"{operation}: {rule.where} at {label} must be accepted")
            else:
                why = f"{operation}: {rule.where} at {label} must be refused"
                expect_status(rule.id, refusal_answer(ctx, partial(send_variant, ctx, value, operation),
                                                      partial(example_exchange, ctx, operation), why),
                              refused_statuses(ctx), why)


ENUM_PARAMS: dict[str, Any] = {
    **BASE_PARAMS,
    "outside": {"type": "array", "minItems": 1},
    # "one": the listed values are the allowed set, but the document lets a target refuse some
    # of them for other reasons (a test key limited to test networks); one accepted listed value
    # is then the control, and the others may be refused (never with a 5xx).
    "listed": {"enum": ["all", "one"]},
    # true: the member is an array whose items the enum lists (``items.enum``); each value is
    # sent as an array of that one value.
    "array_items": {"type": "boolean"},
    # Listed values the request may still be refused for (a gap: creating a record already in a
    # final state); each is sent and may be accepted or refused, never answered 5xx.
    "may_refuse": {"type": "array", "minItems": 1},
}


def enum_of(schema: dict[str, Any], array_items: bool) -> list[Any]:
    """The listed values of a member's schema: its enum, or its items' with ``array_items``."""
    return list(((schema.get("items") or {}) if array_items else schema).get("enum") or [])


@for_kind("enum", params=ENUM_PARAMS)
def enum_values(ctx: CheckContext) -> None:
    rule = _pointed(ctx)
    for operation in operations_of(ctx):
        in_array = bool(rule.params.get("array_items"))
        allowed = enum_of(ctx.contract.where_schema(operation, rule.where), in_array)
        if not allowed:
            ctx.skip(f"{rule.where} has no enum in the contract's schema")
        stray = [v for v in rule.params.get("may_refuse") or [] if v not in allowed]
        if stray:
            raise ContractFileError(f"{rule.id}: may_refuse names {stray}, which {rule.where} does not list")

        def send(value: Any, operation: str = operation, in_array: bool = in_array) -> Exchange:
            # Bound now: this operation's member, not the last one the loop reaches.
            return send_variant(ctx, [value] if in_array else value, operation)

        ok = success_statuses(ctx.contract, operation)
        # The listed values are the control: each accepted first, then values outside the list
        # refused. Every value is tried before the verdict, so one disputed value does not hide
        # another (a server refusing "zz-not-listed" but taking "PENDING" for "pending").
        # Besides near misses, the values a real server would wrongly take (contract/foreign.py).
        extra = [*(rule.params.get("outside") or ()), *foreign_values(ctx.contract, allowed)]
        outside = [(v, refused_statuses(ctx), "is not listed and must be refused")
                   for v in outside_values(allowed, extra)]
        accepted: list[Any] = []  # listed values accepted: the control of the off-list refusals
        if rule.params.get("listed") == "one":
            accepted = _one_listed_accepted(ctx, operation, send, allowed, ok)
            batches = [outside]
        else:
            batches = [[_listed(ctx, v, ok) for v in allowed], outside]
        for batch in batches:
            disputes: list[ContractFailure] = []
            for value, statuses, why in batch:
                said = f"{operation}: {rule.where}={value!r} {why}"
                try:
                    if batch is outside and accepted:
                        got = refusal_answer(ctx, partial(send, value), partial(send, accepted[0]), said)
                    else:
                        got = send(value)
                        if got.response.status in ok and batch is not outside:
                            accepted.append(value)
                    expect_status(rule.id, got, statuses, said)
                except ContractFailure as failure:
                    disputes.append(failure)
            if disputes:
                raise _joined(rule.id, disputes)


def _listed(ctx: CheckContext, value: Any, ok: set[int]) -> tuple[Any, set[int], str]:
    """A listed value, the statuses it may get and why: accepted, or either with ``may_refuse``."""
    may_refuse = ctx.rule.params.get("may_refuse") or []
    if value in may_refuse:
        return value, ok | refused_statuses(ctx), "is listed and must be accepted or refused (never a 5xx)"
    return value, ok, "is listed and must be accepted"


def _one_listed_accepted(ctx: CheckContext, operation: str, send: Callable[[Any], Exchange], allowed: list[Any],
                         ok: set[int]) -> list[Any]:
    """The listed values accepted (at least one, or the rule is skipped)."""
    answers = [(value, send(value)) for value in allowed]
    crashed = [f"{v!r}: {e.response.status}" for v, e in answers if e.response.status >= 500]
    if crashed:
        raise ContractFailure(ctx.rule.id, f"{operation}: listed {ctx.rule.where} values answered 5xx: "
                              f"{', '.join(crashed)}", expected="2xx or a 4xx refusal",
                              exchange=next(e for _v, e in answers if e.response.status >= 500))
    accepted = [v for v, e in answers if e.response.status in ok]
    if not accepted:
        ctx.skip(f"no listed {ctx.rule.where} value was accepted (the control): nothing to compare the "
                 "off-list refusals with; check the target's settings", SkipKind.NOT_EXERCISED)
    return accepted


def _joined(rule_id: str, disputes: list[ContractFailure]) -> ContractFailure:
    """One failure naming every disputed value, carrying the first exchange for the report."""
    if len(disputes) == 1:
        return disputes[0]
    message = f"{len(disputes)} values disputed:\n" + "\n".join(f"  - {d.message}" for d in disputes)
    return ContractFailure(rule_id, message, expected=disputes[0].expected, exchange=disputes[0].exchange)


@for_kind("required", params=BASE_PARAMS)
def required_member(ctx: CheckContext) -> None:
    rule = _pointed(ctx)
    for operation in operations_of(ctx):
        baseline(ctx, operation)
        why = f"{operation}: {rule.where} is required; a request without it must be refused"
        expect_status(rule.id, refusal_answer(ctx, partial(send_variant, ctx, MISSING, operation),
                                              partial(example_exchange, ctx, operation), why),
                      refused_statuses(ctx), why)
