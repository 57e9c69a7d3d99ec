"""Requests a documented conflict offers as alternatives: at least one is accepted, and the report
says which (a building block; issue 30).

``either-accepted`` sends each of ``alternatives`` (steps, ``checks/steps.py``, in the order of the
conflict's alternatives the rule ``observes``): none may crash (a 5xx is never "not served"), at
least one must be a 2xx, and the indices of those accepted are reported to the conflict. Which
alternative a conforming target serves is its choice: any refusal of the others is fine.
"""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.checks.steps import STEP_SCHEMA, Steps

__all__: list[str] = []


@named("either-accepted", params={"alternatives": {"type": "array", "items": STEP_SCHEMA, "minItems": 2}},
       required=("alternatives",))
def either_accepted(ctx: CheckContext) -> None:
    alternatives = ctx.rule.params["alternatives"]
    steps = Steps(ctx)
    steps.guard(alternatives)
    answers = [steps.send(step).exchange for step in alternatives]
    for step, exchange in zip(alternatives, answers, strict=True):
        expect(exchange.response.status < 500, ctx.rule.id, f"{step['call']} crashed", exchange=exchange,
               expected="a 2xx where served, a 4xx where not")
    served = [i for i, exchange in enumerate(answers) if 200 <= exchange.response.status < 300]
    got = ", ".join(f"{step['call'].split(' ', 1)[0]} {e.response.status}" for step, e in zip(alternatives, answers,
                                                                                               strict=True))
    expect(bool(served), ctx.rule.id, f"none of the alternatives was accepted ({got})", exchange=answers[0],
           expected="a 2xx to one of the documented alternatives")
    ctx.observed(*served)
