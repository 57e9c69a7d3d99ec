"""Faults derived from an ``either-accepted`` rule (issue 30).

``none-accepted``: every alternative the rule lists is answered 405, as by a target serving none
of the documented readings; the check must fail it (a refusal of all is not a choice between them).
"""

from __future__ import annotations

from conformance.contract import Contract
from conformance.faults.base import Fault, derived_fault
from conformance.faults.toolkit import operations, status

__all__ = ["alternative_faults"]


def alternative_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        if rule.params.get("check") != "either-accepted":
            continue
        calls = [step["call"] for step in rule.params["alternatives"]]
        faults.append(derived_fault(f"none-accepted:{rule.id.split('.', 1)[1]}", rule.id,
                                    f"{' and '.join(calls)} are all answered 405")(
            status(operations(calls), 405, body={"error": "method not allowed"})))
    return faults
