"""Derived faults ``enum-sibling-accepted``: a server whose list is one sibling too wide.

For every enum of a request member that some rule probes off its list, a server that takes the
plausible foreign values of ``contract/foreign.py`` (``xlsx`` beside pdf/pptx/png, ``archived``
beside active/paused/deleted, the gloss ``summarize`` of ``condense``, provider code 6 beside 1, 2,
3, 4, 8) as if they were listed, while still refusing the other off-list values (a made-up word and
the near misses, a letter short or a plural; numbers past the list). Probes of those alone pass
such a server; the off-list probes that try the foreign values fail it.

The fault breaks the rule that probes the member: the member's ``enum`` rule (core enum check),
else the operation's derived ``request-fields`` rule. It "takes" a foreign value as the
``off-list-accepted`` family does (``faults/members.py``): the value of the member in the last
request the simulator accepted goes in its place (before any, the first listed value), so the
simulator itself accepts the request.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from conformance.checks.boundary import enum_of
from conformance.contract import Contract, Rule
from conformance.contract.derive import field_probes
from conformance.contract.foreign import foreign_values
from conformance.faults.base import Fault, derived_fault
from conformance.faults.members import _taking

__all__ = ["sibling_faults"]


def _core_enum(rule: Rule) -> bool:
    """An enum rule the core enum check judges (a rule naming another check sends its own values)."""
    return (rule.kind == "enum" and "check" not in rule.params and bool(rule.operation)
            and (rule.where or "").startswith(("body.", "query.")))


def _wrong(foreign: list[Any], in_array: bool) -> Any:
    # A query value is text: a foreign number is matched by its digits too.
    folded = {str(v).casefold() for v in foreign}

    def one(value: Any) -> bool:
        return isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).casefold() in folded

    if in_array:
        return lambda value: isinstance(value, list) and any(map(one, value))
    return one


def _first(allowed: list[Any], in_array: bool) -> Any:
    """Before any accepted request (a member the example leaves out), the first listed value."""
    return lambda _value: [allowed[0]] if in_array else allowed[0]


def sibling_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    covered: set[tuple[str, str]] = set()
    for rule in filter(_core_enum, contract.rules):
        assert rule.operation and rule.where
        operations = [str(op) for op in rule.params.get("operations") or [rule.operation]]
        in_array = bool(rule.params.get("array_items"))
        try:
            allowed = enum_of(contract.where_schema(operations[0], rule.where), in_array)
        except KeyError:
            continue
        foreign = foreign_values(contract, allowed)
        if not foreign:
            continue
        if (operations[0], rule.where) in covered:
            continue  # one fault per member: another enum rule over it has it
        covered.update((op, rule.where) for op in operations)
        faults.append(derived_fault(
            f"enum-sibling-accepted:{rule.id.split('.', 1)[1]}", rule.id,
            f"{rule.operation} also takes {', '.join(map(str, foreign))} for {rule.where} (not listed), while "
            "refusing the other off-list values")(
            _taking(rule, operations, _wrong(foreign, in_array), _first(allowed, in_array))))
    for rule in contract.rules:
        if rule.kind != "fields" or not rule.operation:
            continue
        points: dict[str, list[Any]] = {}
        allowed_at: dict[str, list[Any]] = {}
        for probe in field_probes(contract, rule.operation):
            if (rule.operation, probe.where) in covered or any(p.isdigit() for p in probe.where.split(".")):
                continue  # the enum rule's fault; a member inside array items the fault cannot reach
            if not probe.where.startswith(("body.", "query.")) or not isinstance(probe.value, (str, int)):
                continue
            try:
                allowed = enum_of(contract.where_schema(rule.operation, probe.where), False)
            except KeyError:
                continue
            foreign = foreign_values(contract, allowed)
            if not isinstance(probe.value, bool) and str(probe.value) in map(str, foreign):
                points.setdefault(probe.where, foreign)
                allowed_at[probe.where] = allowed
        # One member per derived rule: the same probes reach the others.
        for where, foreign in list(points.items())[:1]:
            short = f"{rule.id.split('.', 1)[1]}:{where}"
            faults.append(derived_fault(
                f"enum-sibling-accepted:{short}", rule.id,
                f"{rule.operation} also takes {', '.join(map(str, foreign))} for {where} (not listed), while "
                "refusing the other off-list values")(
                _taking(dataclasses.replace(rule, where=where), [rule.operation], _wrong(foreign, False),
                        _first(allowed_at[where], False))))
    return faults
