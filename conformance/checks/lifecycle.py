"""Lifecycles: a request starts a job, a read polled at an interval reports its state until a final
one, and what each state must carry is the contract's (a building block; issue 30).

``lifecycle`` sends ``start`` (a step, ``checks/steps.py``; named ``start``, so ``poll`` reads the
job's id from ``{$start.answer.<member>}``), then ``poll`` until the member ``state`` holds one of
``final``. Every answer is held to the body the contract documents for its status (the
conditional members of a state, ``if status is completed then gammaUrl``, are the schema's). Then,
per ``cases`` (each sent with its ``edits`` on top of ``start``'s):

* ``ends``: the final state the case must reach (a failing input must fail);
* ``present``: members the final answer carries;
* ``then_polls``: further polls after the final state report the same state ("final is final");
* ``absent`` / ``shows`` (for every poll): members no poll answer carries; members equal to a
  template (``{generationId: "{$start.answer.generationId}"}``).

``each_value_of`` (a ``where`` of the start operation holding an enum) runs every case once per
listed value, the member set to it. ``observe_start: true`` reports the start's status to the
rule's ``observes`` (a create answering one of two documented statuses).

Waiting goes through ``ctx.sleep``: the simulators' clock in process, real (scaled) time over HTTP,
none on replay; no verdict depends on speed. ``poll_seconds`` and ``ceiling_seconds`` are the
document's client advice, which the harness follows as a client: a job still not final at the
ceiling is skipped, never failed (no deadline is documented). A start whose documented answer has
no body (nothing names the job) leaves nothing to poll: not exercised.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.registry import named
from conformance.checks.steps import STEP_SCHEMA, Done, Steps, Unresolved, dig

__all__: list[str] = []

_NAMES = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_SECONDS = {"type": "number", "exclusiveMinimum": 0}
_CASE = {"type": "object", "additionalProperties": False,
         "properties": {"edits": {"type": "object"}, "ends": {"type": "string"}, "present": _NAMES}}


def _statuses(ctx: CheckContext, operation: str) -> set[int]:
    return success_statuses(ctx.contract, operation) or set(range(200, 300))


def _valid(ctx: CheckContext, done: Done, label: str) -> Any:
    """The answer, held to the body its operation documents for its status (where one is)."""
    exchange = done.exchange
    schema = ctx.contract.response_schema(done.step["call"], exchange.response.status)
    if schema is None:
        return done.answer
    return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, label)


class _Job:
    """One started job of one case: its polls, judged as they come."""

    def __init__(self, ctx: CheckContext, steps: Steps, edits: dict[str, Any]) -> None:
        self.ctx, self.steps, self.p = ctx, steps, ctx.rule.params
        start = {**self.p["start"], "name": "start",
                 "edits": {**(self.p["start"].get("edits") or {}), **edits}}
        done = steps.send(start)
        expect_status(ctx.rule.id, done.exchange, _statuses(ctx, start["call"]), f"starting a job ({start['call']})")
        if self.p.get("observe_start"):
            ctx.observed(str(done.exchange.response.status))
        _valid(ctx, done, f"the answer to {start['call']}")
        self.label = start["call"]

    def poll(self) -> tuple[Done, Any]:
        ctx, poll = self.ctx, self.p["poll"]
        try:
            done = self.steps.send(poll)
        except Unresolved as missing:
            status = self.steps.done["start"].exchange.response.status
            ctx.skip(f"{self.label} answered {status} naming no job to poll ({missing})")
        expect_status(ctx.rule.id, done.exchange, _statuses(ctx, poll["call"]), f"polling the job ({poll['call']})")
        answer = _valid(ctx, done, f"a poll of the job ({poll['call']})")
        for member in self.p.get("absent") or []:
            expect(not (isinstance(answer, dict) and member in answer), ctx.rule.id,
                   f"a poll of the job carries {member}", exchange=done.exchange, expected=f"no {member} member")
        for member, template in (self.p.get("shows") or {}).items():
            wanted = self.steps.resolve(template)
            try:
                got: Any = dig(answer, member)
            except KeyError:
                got = "(absent)"
            expect(got == wanted, ctx.rule.id, f"a poll of the job shows {member} {got!r}", exchange=done.exchange,
                   expected=f"{member} = {wanted!r}")
        return done, answer

    def state(self, done: Done, answer: Any) -> Any:
        member = self.p["state"]
        expect(isinstance(answer, dict) and member in answer, self.ctx.rule.id, f"a poll of the job has no {member}",
               exchange=done.exchange, expected=f"the job's state in {member}")
        return answer[member]

    def until_final(self) -> tuple[Done, Any, Any]:
        interval, ceiling = self.p["poll_seconds"], self.p["ceiling_seconds"]
        waited = 0.0
        while True:
            done, answer = self.poll()
            state = self.state(done, answer)
            if state in self.p["final"]:
                return done, answer, state
            if waited >= ceiling:
                self.ctx.skip(f"the job is still {state!r} after the suggested {ceiling} s ceiling (client advice; "
                              "no deadline is documented)")
            self.ctx.sleep(interval)
            waited += interval


def _cases(ctx: CheckContext) -> list[dict[str, Any]]:
    p = ctx.rule.params
    cases: list[dict[str, Any]] = p.get("cases") or [{}]
    where = p.get("each_value_of")
    if not where:
        return cases
    member = where.split(".", 1)[1]
    values = ctx.contract.where_schema(p["start"]["call"], where)["enum"]
    return [{**case, "edits": {**(case.get("edits") or {}), member: value}} for value in values for case in cases]


@named("lifecycle",
       params={"start": STEP_SCHEMA, "poll": STEP_SCHEMA, "state": {"type": "string"}, "final": _NAMES,
               "poll_seconds": _SECONDS, "ceiling_seconds": _SECONDS,
               "cases": {"type": "array", "items": _CASE, "minItems": 1}, "each_value_of": {"type": "string"},
               "then_polls": {"type": "integer", "minimum": 1}, "absent": _NAMES, "shows": {"type": "object"},
               "observe_start": {"type": "boolean"}},
       required=("start", "poll", "state", "final", "poll_seconds", "ceiling_seconds"))
def lifecycle(ctx: CheckContext) -> None:
    p = ctx.rule.params
    steps = Steps(ctx)
    steps.guard([p["start"], p["poll"]])
    for case in _cases(ctx):
        job = _Job(ctx, steps, case.get("edits") or {})
        done, answer, state = job.until_final()
        what = f"the job started with {case['edits']}" if case.get("edits") else "the job"
        if "ends" in case:
            expect(state == case["ends"], ctx.rule.id, f"{what} ended {state!r}", exchange=done.exchange,
                   expected=f"{p['state']} {case['ends']!r}")
        for member in case.get("present") or []:
            expect(isinstance(answer, dict) and member in answer, ctx.rule.id,
                   f"{what} is {state!r} without {member}", exchange=done.exchange, expected=f"{member} set")
        for _ in range(p.get("then_polls") or 0):
            ctx.sleep(p["poll_seconds"])
            later, again = job.poll()
            expect(job.state(later, again) == state, ctx.rule.id, f"{what} left its final state {state!r}",
                   exchange=later.exchange, expected=f"{p['state']} {state!r} again")
