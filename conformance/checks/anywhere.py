"""Values judged wherever they appear in a response body, for rules a document states about a
kind of value rather than about a member (where such values appear may not be shown).

* ``numbers-as-strings``: no JSON number in the body has a fraction or an exponent (a document
  returning numbers of type number as strings; integers stay JSON numbers).
* ``objects-like``: every object carrying at least ``marks`` of the properties of the component
  schema ``schema`` (``Money``: amount, divisor, currency_code) is held to the whole schema; a
  lone member does not make one. Or, with ``members`` (names, comma-separated, usually a
  ``"{SETTING}"``: where the objects sit is the target's to say), every value of a member of one
  of those names, at any depth, is held to the schema, whatever it carries: an object merely
  like the schema elsewhere is left alone. Skipped where no answer carries such an object.

Both read the success answers of ``operations`` (path values as ``path_values``), each query
parameter named in ``at_maximum`` set to its schema's maximum (the largest page: more to read).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import setting_param
from conformance.checks.expect import expect, expect_status, success_statuses, validator
from conformance.checks.registry import named
from conformance.checks.shape import fill_path
from conformance.errors import ContractFileError
from conformance.transport.jsonbody import loads
from conformance.transport.model import Exchange

__all__ = ["member_names", "numbers_as_strings", "objects_like"]

_STRINGS = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_READS: dict[str, Any] = {"operations": _STRINGS, "at_maximum": _STRINGS,
                          "path_values": {"type": "object", "additionalProperties": {"type": "string"}}}


class _Fraction(float):
    """A JSON number with a fraction or exponent, as the text had it."""


def _answers(ctx: CheckContext) -> Iterator[tuple[str, Exchange, Any]]:
    """Each operation's success answer, parsed (fractions and exponents kept apart as ``_Fraction``)."""
    params = ctx.rule.params
    for operation in params["operations"]:
        query = {}
        for name in params.get("at_maximum") or []:
            maximum = ctx.contract.where_schema(operation, f"query.{name}").get("maximum")
            if maximum is None:
                raise ContractFileError(f"{ctx.rule.id}: at_maximum names query.{name}, which has no maximum")
            query[name] = maximum
        exchange = ctx.call(operation, params=query or None,
                            path_values=fill_path(ctx, operation, params.get("path_values")))
        expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation), f"{operation} (the body "
                      "to inspect)")
        try:
            body = loads(exchange.response.body, parse_float=_Fraction)
        except ValueError:
            expect(False, ctx.rule.id, f"{operation}: the body is not JSON", exchange=exchange)
        yield operation, exchange, body


def _nodes(body: Any) -> Iterator[tuple[str, Any]]:
    stack: list[tuple[str, Any]] = [("", body)]
    while stack:
        place, node = stack.pop()
        yield place, node
        if isinstance(node, dict):
            stack += [(f"{place}.{k}", v) for k, v in node.items()]
        elif isinstance(node, list):
            stack += [(f"{place}[{i}]", v) for i, v in enumerate(node)]


@named("numbers-as-strings", params=_READS, required=("operations",))
def numbers_as_strings(ctx: CheckContext) -> None:
    for operation, exchange, body in _answers(ctx):
        for place, node in _nodes(body):
            expect(not isinstance(node, _Fraction), ctx.rule.id, f"{operation}: {place or '(body)'} is the JSON "
                   f"number {node}", exchange=exchange, expected="numbers of type number returned as strings")


def member_names(text: str) -> list[str]:
    """The member names of a comma-separated ``members`` param."""
    return [name.strip() for name in text.split(",") if name.strip()]


@named("objects-like", params={**_READS, "schema": {"type": "string"}, "marks": {"type": "integer", "minimum": 2},
                               "members": {"type": "string", "minLength": 1}},
       required=("operations", "schema"))
def objects_like(ctx: CheckContext) -> None:
    params = ctx.rule.params
    if ("marks" in params) == ("members" in params):
        raise ContractFileError(f"{ctx.rule.id}: objects-like takes one of marks (objects like the schema) and "
                                "members (the names holding it)")
    schema = (ctx.contract.openapi.get("components", {}).get("schemas") or {}).get(params["schema"])
    if not isinstance(schema, dict):
        raise ContractFileError(f"{ctx.rule.id}: no components.schemas.{params['schema']} in openapi.yaml")
    members = set(ctx.contract.deref(schema).get("properties") or {})
    named_at = set(member_names(str(setting_param(ctx, params["members"], {"type": "string"})))) \
        if "members" in params else set()
    check = validator(ctx.contract, schema)
    found = 0
    for operation, exchange, body in _answers(ctx):
        for place, node in _nodes(body):
            if named_at:
                hit = place.rsplit(".", 1)[-1] in named_at if "." in place else False
            else:
                hit = isinstance(node, dict) and len(members & set(node)) >= params["marks"]
            if hit:
                found += 1
                error = next(iter(check.iter_errors(node)), None)
                expect(error is None, ctx.rule.id, f"{operation}: {place or '(body)'} is no {params['schema']}: "
                       f"{error.message if error else ''}", exchange=exchange, expected=f"a valid {params['schema']}")
    if not found and named_at:
        ctx.skip(f"no answer carries a member named {', '.join(sorted(named_at))}")
    if not found:
        ctx.skip(f"no answer carries an object with {params['marks']} of the members of {params['schema']} "
                 f"({', '.join(sorted(members))})")
