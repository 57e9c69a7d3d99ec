"""Faults derived from a unit a rule says an answer's members are in (issue 35, item 6).

``unit-scaled`` (``member-magnitude``): every number at the rule's members, in the successful
answers of its operations, is written in the neighbouring unit: epoch seconds as milliseconds
(times 1000), milliseconds as seconds (divided by 1000, rounded), the mistake a server makes when
it hands out its clock's native unit. The check's magnitude bound must catch it.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.units import edit_at
from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault
from conformance.faults.toolkit import Wrap, operation, response_body

__all__ = ["unit_faults"]

# unit -> the value written in the neighbouring unit.
_SCALED = {"epoch-seconds": lambda v: v * 1000, "epoch-milliseconds": lambda v: round(v / 1000)}


def _scaled(rule: Rule, target: str, members: list[str]) -> Wrap:
    scale = _SCALED[rule.params["unit"]]

    def edit(value: Any) -> Any:
        return scale(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value

    def rewrite(body: Any) -> Any:
        for member in members:
            edit_at(body, member, edit)
        return body

    method, template = target.split(" ", 1)
    return response_body(operation(method, template), rewrite, statuses=range(200, 300))


def unit_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        if rule.params.get("check") != "member-magnitude":
            continue
        wraps = [_scaled(rule, op, list(members)) for op, members in rule.params["members"].items()]

        def apply(sim: Any, wraps: list[Wrap] = wraps) -> Any:
            for wrap in wraps:
                sim = wrap(sim)
            return sim

        faults.append(derived_fault(
            f"unit-scaled:{rule.id.split('.', 1)[1]}", rule.id,
            f"{', '.join(rule.params['members'])} answer {rule.params['unit']} in the neighbouring unit "
            "(seconds as milliseconds, or milliseconds as seconds)")(apply))
    return faults
