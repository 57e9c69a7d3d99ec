"""Hypothesis property checks from the contract's JSON Schemas.

* valid bodies: anything the request schema allows is accepted, and the answer matches the
  documented response schema;
* invalid bodies: each documented member given each value of another JSON type is refused
  (enumerated, not sampled).

Generated bodies use documented members only (unknown members are a gap, not a rule).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from hypothesis.strategies import SearchStrategy
from hypothesis_jsonschema import from_schema

from conformance.checks.boundary import baseline, example_exchange, with_member
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body
from conformance.checks.expect import expect_json_schema, expect_status, success_statuses
from conformance.checks.lookups import LOOKUP_PARAMS, narrowed
from conformance.checks.refusal import refusal_answer, refused_statuses
from conformance.checks.registry import named

__all__ = ["bodies_answered", "documented_only", "invalid_bodies_refused", "valid_bodies_accepted"]

# Values of another JSON type for each documented type. Every (member, value) pair is sent:
# sampling them let a fixed gate seed miss a third of the members, so a server coercing "7" to 7
# for one of them could pass.
_WRONG: dict[str, list[Any]] = {
    "string": [12345, True, ["text"], {"k": "v"}],
    "number": ["7", True, [7], {"n": 7}],
    "integer": ["7", True, 7.5, [7]],
    "boolean": ["true", 1, [True]],
    "array": ["item", 3, {"0": "item"}],
    "object": ["object", 3, ["object"]],
}


# hypothesis-jsonschema strategies by the schema's repr. Building one (canonicalising and merging the
# schema) cost ~0.1 s a call on presentations' and contracts' bodies, once per suite, and the kill
# matrix runs each suite once per variant. The repr keeps key order and value types, which
# generation follows, so only a schema drawn from identically shares a strategy; strategies hold no
# state between runs, so the derandomized gate draws the same bodies.
_BODIES: dict[str, SearchStrategy[Any]] = {}


def _bodies(schema: dict[str, Any]) -> SearchStrategy[Any]:
    key = repr(schema)
    if key not in _BODIES:
        _BODIES[key] = from_schema(schema)
    return _BODIES[key]


def documented_only(schema: Any, contract: Any) -> Any:
    """A copy where objects allow no undocumented members (a generation choice, not a rule)."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return documented_only(contract.deref(schema), contract)
        out = {k: documented_only(v, contract) for k, v in schema.items()}
        if out.get("type") == "object" and "properties" in out:
            out.setdefault("additionalProperties", False)
        return out
    if isinstance(schema, list):
        return [documented_only(v, contract) for v in schema]
    return schema


def _typed_paths(schema: dict[str, Any], contract: Any, prefix: str = "") -> list[tuple[str, str]]:
    """(dotted path, JSON type) of each typed member, one level into nested objects."""
    out: list[tuple[str, str]] = []
    for name, sub in (schema.get("properties") or {}).items():
        sub = contract.deref(sub)
        kind = sub.get("type") or ("string" if "enum" in sub else None)
        if not isinstance(kind, str):
            continue
        out.append((prefix + name, kind))
        if kind == "object" and not prefix:
            out += _typed_paths(sub, contract, prefix=name + ".")
    return out


def bodies_answered(ctx: CheckContext, operation: str, body_schema: dict[str, Any], why: str,
                    refusable: frozenset[int] = frozenset()) -> None:
    """Every body drawn from ``body_schema`` gets a documented success, or one of ``refusable``
    (statuses the document lets a generated value get). Any success with a body is held to a
    schema: its own status's, else the main one's (a 201 "listed without body" that does carry
    one may not carry just anything)."""
    contract = ctx.contract
    allowed = success_statuses(contract, operation) | refusable
    fallback = contract.response_schema(operation, 200)

    # Half the profile's examples (10 bodies in the gate): the three faults only these rules catch are
    # caught with 10 as with 20, and the rules were a sixth of the gate's rule time. The strategy is
    # built only where it draws (replay takes the recorded bodies), and named by the schema it is
    # built from, as ``_bodies`` caches it.
    @ctx.given(operation, strategy=lambda: _bodies(body_schema), drawn_from=f"from_schema({body_schema!r})", scale=0.5)
    def answered(body: dict[str, Any]) -> None:
        exchange = ctx.call(operation, json_body=body)
        expect_status(ctx.rule.id, exchange, allowed, why)
        if exchange.response.status in refusable:
            return
        schema = contract.response_schema(operation, exchange.response.status) or fallback
        if exchange.response.body and schema is not None:
            expect_json_schema(ctx.rule.id, contract, exchange, schema, "response body")

    answered()


# Statuses a generated body may also get (``refusable``), for members whose format the document
# does not show: a list, or ``any-4xx`` where the document names no status.
_REFUSABLE: dict[str, Any] = {
    "oneOf": [{"type": "array", "items": {"type": "integer"}, "minItems": 1}, {"const": "any-4xx"}]}


@named("valid-bodies", params={**LOOKUP_PARAMS, "refusable": _REFUSABLE})
def valid_bodies_accepted(ctx: CheckContext) -> None:
    """Every generated body is accepted; with ``params.refusable`` it may instead be refused with
    one of those statuses, and then the example must be accepted first (the control: a target
    refusing everything would otherwise pass)."""
    operation = ctx.rule.operation
    assert operation
    contract = ctx.contract
    given_refusable = ctx.rule.params.get("refusable")
    listed = ", with listed ids," if ctx.rule.params.get("ids_from") else ""
    if given_refusable is None:
        refusable: frozenset[int] = frozenset()
        why = f"a body valid under the documented schema{listed} must be accepted"
    else:
        baseline(ctx)
        refusable = frozenset(range(400, 500)) if given_refusable == "any-4xx" else frozenset(given_refusable)
        why = (f"a body valid under the documented schema{listed} must be accepted, or refused (a client error, "
               "never a 5xx)")
    # documented_only builds a new schema, so narrowing it (checks/lookups.py) edits no contract.
    body_schema = contract.standalone(narrowed(ctx, documented_only(contract.request_schema(operation), contract)))
    bodies_answered(ctx, operation, body_schema, why, refusable)


@named("invalid-bodies")
def invalid_bodies_refused(ctx: CheckContext) -> None:
    rule = ctx.rule
    operation = rule.operation
    assert operation
    contract = ctx.contract
    paths = _typed_paths(contract.deref(contract.request_schema(operation)), contract)
    if not paths:
        ctx.skip(f"{operation} documents no typed body member")
    base = example_body(ctx, operation)  # rendered for the target, as the control sends it
    refused = refused_statuses(ctx)
    # The control: the example itself is accepted, so the refusals below are about the types.
    baseline(ctx)
    for path, kind in paths:
        for value in _WRONG[kind]:
            why = f"{path}={value!r} has the wrong type and must be refused"
            exchange = refusal_answer(ctx, partial(ctx.call, operation, json_body=with_member(base, path, value)),
                                      partial(example_exchange, ctx, operation), why)
            expect_status(rule.id, exchange, refused, why)
