"""Faults derived from what a ``lifecycle`` rule says a polled job shows (issue 30).

Each is a mechanical edit of the poll's answers (``params.poll``), one per point the rule's params
state, so every point is shown to be checked:

* ``final-state-left`` (a rule with ``then_polls``): a job once answered in a final state is
  answered, on its next poll, in the first state the poll's schema lists that is not final;
* ``final-member-dropped`` (a case with ``present``): answers in a final state lack the first
  member the first such case names;
* ``member-on-poll`` (``absent``): every poll answer carries the first member no poll may carry;
* ``shown-member-changed`` (``shows``): every poll answer holds another value in the first member
  it must show.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault
from conformance.faults.toolkit import Wrap, operations, response_body
from conformance.simulators.base import Simulator
from conformance.transport.model import Request

__all__ = ["lifecycle_faults"]

Edit = Callable[[Any], Any]


def _polls(rule: Rule, edit: Edit) -> Wrap:
    return response_body(operations([rule.params["poll"]["call"]]), edit)


def _final(rule: Rule, answer: Any) -> bool:
    return isinstance(answer, dict) and answer.get(rule.params["state"]) in rule.params["final"]


def _not_final(contract: Contract, rule: Rule) -> Any:
    """The first state the poll's documented answer lists that is not final."""
    schema = contract.response_schema(rule.params["poll"]["call"], 200) or {}
    member = contract.deref((contract.deref(schema).get("properties") or {}).get(rule.params["state"]) or {})
    return next((s for s in member.get("enum") or [] if s not in rule.params["final"]), "conformance-not-final")


def _leaves_final(rule: Rule, pending: Any) -> Wrap:
    def wrap(sim: Simulator) -> Simulator:
        ended: set[str] = set()  # the poll paths (one per job) already answered final

        def edit(request: Request, answer: Any) -> Any:
            if not _final(rule, answer):
                return answer
            if request.path in ended:
                return {**answer, rule.params["state"]: pending}
            ended.add(request.path)
            return answer

        return response_body(operations([rule.params["poll"]["call"]]), edit, with_request=True)(sim)

    return wrap


def _dropped_when_final(rule: Rule, member: str) -> Wrap:
    def edit(answer: Any) -> Any:
        if _final(rule, answer):
            answer.pop(member, None)
        return answer

    return _polls(rule, edit)


def _member_set(rule: Rule, member: str, value: Any) -> Wrap:
    def edit(answer: Any) -> Any:
        if isinstance(answer, dict):
            answer[member] = value
        return answer

    return _polls(rule, edit)


def lifecycle_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        if rule.params.get("check") != "lifecycle":
            continue
        p, short = rule.params, rule.id.split(".", 1)[1]
        poll = p["poll"]["call"]
        if p.get("then_polls"):
            pending = _not_final(contract, rule)
            faults.append(derived_fault(f"final-state-left:{short}", rule.id,
                                        f"{poll} answers a job once final as {pending!r} on its next poll")(
                _leaves_final(rule, pending)))
        present = next((c["present"][0] for c in p.get("cases") or [] if c.get("present")), None)
        if present:
            faults.append(derived_fault(f"final-member-dropped:{short}", rule.id,
                                        f"{poll} answers a final job without {present}")(
                _dropped_when_final(rule, present)))
        if p.get("absent"):
            member = p["absent"][0]
            faults.append(derived_fault(f"member-on-poll:{short}", rule.id, f"{poll} answers carry {member}")(
                _member_set(rule, member, "conformance")))
        if p.get("shows"):
            member = next(iter(p["shows"]))
            faults.append(derived_fault(f"shown-member-changed:{short}", rule.id,
                                        f"{poll} answers another {member} than the job's")(
                _member_set(rule, member, "conformance-other")))
    return faults
