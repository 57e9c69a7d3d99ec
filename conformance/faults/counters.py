"""Faults derived from what a ``counter-delta`` rule says an operation costs (issue 30).

``charge-off-by-one`` for every counter-delta rule that charges: each request its first charged
measure sends (the ``charged`` step's operation, with the step's literal query values; a
templated value matches any) costs one more of the member that measure charges (the first it
names with a cost, else the first counter member, so a call documented free is charged one): the
counter read answers that much less from then on. A check that did not attribute the cost
exactly would pass it. Measures of refusals observe their cost and get no such fault.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.counters import charged_amounts
from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault, on_response
from conformance.faults.toolkit import Match, operations
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["counter_faults"]


def _charged(step: dict[str, Any]) -> Match:
    on_operation = operations([step["call"]])
    literal = {k: str(v).lower() if isinstance(v, bool) else str(v)
               for k, v in (step.get("query") or {}).items() if not (isinstance(v, str) and "{" in v)}

    def match(request: Request) -> bool:
        sent = request.params
        return on_operation(request) and all(sent.get(k) == v for k, v in literal.items())

    return match


def _charged_member(rule: Rule, measure: dict[str, Any]) -> str:
    amounts = charged_amounts(measure["falls_by"] if "falls_by" in measure else measure["readings"][0])
    return next((m for m, amount in amounts.items() if amount), rule.params["members"][0])


def _one_more(rule: Rule, measure: dict[str, Any], member: str) -> Any:
    charged, counter = _charged(measure["charged"]), operations([rule.params["counter"]["call"]])

    def wrap(sim: Simulator) -> Simulator:
        extra = [0]  # what the fault has charged so far, on top of the simulator's own charges

        def after(request: Request, response: Response) -> Response:
            if 200 <= response.status < 300 and charged(request):
                extra[0] += 1
            if response.status == 200 and counter(request) and extra[0]:
                body = response.json()
                if isinstance(body, dict) and isinstance(body.get(member), (int, float)):
                    body[member] -= extra[0]
                    edited = Response.json_response(response.status, body)
                    response.body = edited.body
            return response

        return on_response(after)(sim)

    return wrap


def counter_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        if rule.params.get("check") != "counter-delta":
            continue
        # Refusals' costs are observed, never judged: only a charged measure has a cost to put off.
        measure = next((m for m in rule.params["measures"] if "charged" in m), None)
        if measure is None:
            continue
        member = _charged_member(rule, measure)
        faults.append(derived_fault(f"charge-off-by-one:{rule.id.split('.', 1)[1]}", rule.id,
                                    f"{measure['charged']['call']} costs one {member} more than the rule says")(
            _one_more(rule, measure, member)))
    return faults
