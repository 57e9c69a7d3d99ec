"""Derived faults ``enum-sibling-accepted``: a server whose list is one sibling too wide.

For every string enum of a request member that some rule probes off its list, a server that takes
the plausible foreign values of ``contract/foreign.py`` (``xlsx`` beside pdf/pptx/png, ``archived``
beside active/paused/deleted, the gloss ``summarize`` of ``condense``) as if they were listed, while
still refusing a made-up word and the near misses (a letter short, a plural). Probes of those alone
pass such a server; the off-list probes that try the foreign values fail it.

The fault breaks the rule that probes the member: the member's ``enum`` rule (core enum check),
else the operation's derived ``request-fields`` rule. It "takes" a foreign value as the
``off-list-accepted`` family does (``faults/members.py``): the value of the member in the last
request the simulator accepted goes in its place, so the simulator itself accepts the request.
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


def _wrong(foreign: list[str], in_array: bool) -> Any:
    folded = {v.casefold() for v in foreign}

    def one(value: Any) -> bool:
        return isinstance(value, str) and value.casefold() in folded

    if in_array:
        return lambda value: isinstance(value, list) and any(map(one, value))
    return one


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
            f"{rule.operation} also takes {', '.join(foreign)} for {rule.where} (not listed), while refusing a "
            "made-up word and near misses")(_taking(rule, operations, _wrong(foreign, in_array))))
    for rule in contract.rules:
        if rule.kind != "fields" or not rule.operation:
            continue
        points: dict[str, list[str]] = {}
        for probe in field_probes(contract, rule.operation):
            if (rule.operation, probe.where) in covered or any(p.isdigit() for p in probe.where.split(".")):
                continue  # the enum rule's fault; a member inside array items the fault cannot reach
            if not probe.where.startswith(("body.", "query.")) or not isinstance(probe.value, str):
                continue
            try:
                allowed = enum_of(contract.where_schema(rule.operation, probe.where), False)
            except KeyError:
                continue
            foreign = foreign_values(contract, allowed)
            if probe.value in foreign:
                points.setdefault(probe.where, foreign)
        # One member per derived rule: the same probes reach the others.
        for where, foreign in list(points.items())[:1]:
            short = f"{rule.id.split('.', 1)[1]}:{where}"
            faults.append(derived_fault(
                f"enum-sibling-accepted:{short}", rule.id,
                f"{rule.operation} also takes {', '.join(foreign)} for {where} (not listed), while refusing a "
                "made-up word and near misses")(
                _taking(dataclasses.replace(rule, where=where), [rule.operation], _wrong(foreign, False))))
    return faults
