"""Units the document states, checked by magnitude on the answers that carry them (issue 35, item 6).

``member-magnitude``: each of the rule's operations (``members`` maps an operation to the answer
members the unit governs there: dotted paths from the answer's root, ``*`` for every item of an
array) is called (path values from ``path_values`` or the operation's ``x-setting`` parameters; an
operation taking a JSON body sends its rendered example) and answered a documented success; every
value found at those members is a number within the ``unit``'s magnitude. No value found anywhere
is a skip (not exercised), never a pass. Null, and the values ``unset`` lists (a gap's "not set",
e.g. 0), are not judged.

The magnitudes, and why (a unit has no range of its own; these are the values a real clock can
write, so a value of the neighbouring unit falls outside):

* ``epoch-seconds``: 10^9 <= v < 10^10, i.e. 2001-09-09 to 2286-11-20. The same instants in
  milliseconds are 10^12 and more, in minutes or hours below 10^9.
* ``epoch-milliseconds``: 10^12 <= v < 10^13 (the same span, in milliseconds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, unique
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.paths import path_values
from conformance.checks.registry import named
from conformance.errors import ContractFileError, SkipKind

__all__ = ["MAGNITUDES", "edit_at", "member_magnitude", "values_at"]

# unit -> (lowest, first too high, what the range means): see the module doc.
MAGNITUDES: dict[str, tuple[float, float, str]] = {
    "epoch-seconds": (1e9, 1e10, "epoch seconds: 10^9 <= v < 10^10 (2001-09-09 to 2286-11-20)"),
    "epoch-milliseconds": (1e12, 1e13, "epoch milliseconds: 10^12 <= v < 10^13 (2001-09-09 to 2286-11-20)"),
}


def values_at(body: Any, dotted: str) -> Iterator[tuple[str, Any]]:
    """(where, value) of every value at ``dotted`` (``*``: each item of an array) in ``body``."""

    def walk(node: Any, parts: list[str], at: str) -> Iterator[tuple[str, Any]]:
        if not parts:
            yield at, node
            return
        head, rest = parts[0], parts[1:]
        if head == "*" and isinstance(node, list):
            for i, item in enumerate(node):
                yield from walk(item, rest, f"{at}.{i}" if at else str(i))
        elif isinstance(node, dict) and head in node:
            yield from walk(node[head], rest, f"{at}.{head}" if at else head)

    yield from walk(body, dotted.split("."), "")


def edit_at(body: Any, dotted: str, edit: Callable[[Any], Any]) -> None:
    """Replace, in place, every value at ``dotted`` (as ``values_at`` finds them) by ``edit(value)``."""
    *parents, last = dotted.split(".")

    def walk(node: Any, parts: list[str]) -> None:
        if not parts:
            if isinstance(node, dict) and last in node:
                node[last] = edit(node[last])
            elif last == "*" and isinstance(node, list):
                node[:] = [edit(v) for v in node]
            return
        head, rest = parts[0], parts[1:]
        if head == "*" and isinstance(node, list):
            for item in node:
                walk(item, rest)
        elif isinstance(node, dict) and head in node:
            walk(node[head], rest)

    walk(body, parents)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_MEMBERS = {"type": "object", "minProperties": 1,
            "additionalProperties": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}}


@named("member-magnitude", params={"members": _MEMBERS, "unit": {"enum": sorted(MAGNITUDES)},
                                   "path_values": {"type": "object", "additionalProperties": {"type": "string"}},
                                   "unset": {"type": "array", "items": {"type": "number"}}},
       required=("members", "unit"))
def member_magnitude(ctx: CheckContext) -> None:
    rule = ctx.rule
    low, high, basis = MAGNITUDES[rule.params["unit"]]
    overrides = ctx.settings_in(rule.params.get("path_values"))
    # Values a gap leaves open as "not set" (affiliate's time_saved of 0 for a link never saved):
    # like null, they say nothing about the unit.
    unset = list(rule.params.get("unset") or ())
    seen = 0
    for serial, (operation, members) in enumerate(rule.params["members"].items(), start=1):
        if operation not in ctx.contract.operations():
            raise ContractFileError(f"{rule.id}: {operation} is not an operation of the contract")
        values = path_values(ctx, operation, overrides).values
        if ctx.contract.json_media(operation):  # a write: its example, x-unique members new
            exchange = ctx.call(operation, json_body=unique(ctx, operation, example_body(ctx, operation), serial),
                                path_values=values)
        else:
            exchange = ctx.call(operation, path_values=values)
        expect_status(rule.id, exchange, success_statuses(ctx.contract, operation) or set(range(200, 300)),
                      f"{operation} (the answer carrying {', '.join(members)})")
        answer = exchange.response.json()
        for member in members:
            for where, value in values_at(answer, member):
                if value is None or (_number(value) and value in unset):
                    continue  # a nullable member, or a value the gap leaves open, says nothing about its unit
                seen += 1
                expect(_number(value) and low <= value < high, rule.id,
                       f"{operation}: {where} is {value!r}", exchange=exchange, expected=basis)
    if not seen:
        ctx.skip(f"no answer carried {', '.join(m for ms in rule.params['members'].values() for m in ms)}",
                 SkipKind.NOT_EXERCISED)
