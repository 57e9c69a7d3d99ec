"""Counters a target reports: an operation costs N of a counter another operation reads, and
nothing of the others (a building block; issue 30).

``counter-delta`` reads the counters with ``counter`` (a step, ``checks/steps.py``; its answer is
held to the body documented for its status, which types the ``members``), then for each of
``measures``:

* ``charged``: the step whose cost is measured (a documented success is required);
* ``falls_by``: how much each member falls (a member left out falls by 0; an amount written as a
  list is their sum, so each documented cost is written once, under a YAML anchor);
  ``per_item_of``: the amounts are per item of that member of the charged step's body (an array,
  or comma-separated text: "1 scan credit per IP");
* ``less``: a step whose own cost is measured the same way and taken off (what a later page adds
  to the first, where the first page's cost is not shown);
* ``readings`` instead of ``falls_by``: the alternatives of a conflict, each a ``falls_by``; the
  one the target shows is reported to the rule's ``observes``, any other fails.

A measure of ``refused`` steps instead of ``charged`` holds each to a refusal (``checks/refusal.py``:
the documented status, else any 4xx after ``control``, the same request made valid, was accepted;
a step with another credential ``as`` is a credential variant; never a 5xx), each refusal's body
to ``error_schema`` where given. The control is sent before the counters are read: what the
refusals together cost is not shown anywhere, so it is reported to the rule's ``observes``, never
judged.

The document may not say that reading the counters is free: a steady cost per read (three reads
with nothing between them, equal gaps) is measured and taken off; counters that move unevenly on
their own (another client on a shared account) leave no way to attribute a cost, and the rule is
skipped, never passed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.refusal import expect_accepted, expect_refused
from conformance.checks.registry import named
from conformance.checks.steps import STEP_SCHEMA, Steps
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__ = ["charged_amounts"]

_AMOUNT: dict[str, Any] = {"anyOf": [{"type": "number", "minimum": 0},
                                     {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 1}]}
_FALLS = {"type": "object", "additionalProperties": _AMOUNT}
_MEASURE = {
    "type": "object", "additionalProperties": False,
    "oneOf": [{"required": ["charged", "falls_by"]}, {"required": ["charged", "readings"]},
              {"required": ["refused", "control"]}],
    "properties": {"charged": STEP_SCHEMA, "less": STEP_SCHEMA, "falls_by": _FALLS,
                   "readings": {"type": "array", "items": _FALLS, "minItems": 2}, "per_item_of": {"type": "string"},
                   "refused": {"type": "array", "items": STEP_SCHEMA, "minItems": 1}, "control": STEP_SCHEMA},
}

Counts = dict[str, float]


def charged_amounts(falls_by: dict[str, Any], items: int = 1) -> Counts:
    """How much each named member falls: its amount (a list is summed) times ``items``."""
    return {m: (sum(a) if isinstance(a, list) else a) * items for m, a in falls_by.items()}


def _items(sent: Any, member: str) -> int:
    value = sent.get(member) if isinstance(sent, dict) else None
    if isinstance(value, str):
        return len([part for part in value.split(",") if part.strip()])
    return len(value) if isinstance(value, (list, dict)) else 0


class _Meter:
    def __init__(self, ctx: CheckContext, steps: Steps) -> None:
        self.ctx, self.steps, self.p = ctx, steps, ctx.rule.params
        self.members: list[str] = self.p["members"]

    def read(self) -> Counts:
        step = self.p["counter"]
        exchange = self.steps.send(step).exchange
        why = f"reading the counters ({step['call']})"
        expect_status(self.ctx.rule.id, exchange, success_statuses(self.ctx.contract, step["call"]) or 200, why)
        schema = self.ctx.contract.response_schema(step["call"], exchange.response.status)
        body = expect_json_schema(self.ctx.rule.id, self.ctx.contract, exchange, schema or {}, why)
        counts: Counts = {}
        for member in self.members:
            value = body.get(member) if isinstance(body, dict) else None
            expect(isinstance(value, (int, float)) and not isinstance(value, bool), self.ctx.rule.id,
                   f"{why}: {member} is {value!r}", exchange=exchange, expected=f"{member}: a number")
            counts[member] = value if isinstance(value, (int, float)) else 0  # a number: held just above
        return counts

    def metered(self, send: Callable[[], Any]) -> tuple[Any, Counts]:
        """``send()``; what each counter fell by meanwhile, less what a counter read itself costs."""
        first, second, third = self.read(), self.read(), self.read()
        drift = {m: first[m] - second[m] for m in self.members}
        if any(second[m] - third[m] != drift[m] for m in self.members):
            self.ctx.skip(f"the counters {self.members} moved unevenly between three reads with nothing sent in "
                          f"between ({[first, second, third]}; a shared account?): a cost cannot be attributed")
        sent = send()
        after = self.read()
        return sent, {m: third[m] - after[m] - drift[m] for m in self.members}

    def spent(self, step: dict[str, Any]) -> tuple[Exchange, Any, Counts]:
        """Send ``step``, which must succeed; what each counter fell by."""
        done, spent = self.metered(partial(self.steps.send, step))
        expect_status(self.ctx.rule.id, done.exchange, success_statuses(self.ctx.contract, step["call"]) or 200,
                      f"the charged request ({step['call']})")
        return done.exchange, done.sent, spent


def _error_schema(ctx: CheckContext) -> dict[str, Any] | None:
    pointer = ctx.rule.params.get("error_schema")
    if not pointer:
        return None
    schemas = (ctx.contract.openapi.get("components") or {}).get("schemas", {})
    schema: dict[str, Any] | None = schemas.get(pointer.rsplit("/", 1)[-1])
    if schema is None:
        raise ContractFileError(f"{ctx.rule.id}: error_schema {pointer} is not in openapi.yaml")
    return schema  # the contract's own dict: validators are cached by its identity


def _refusals(ctx: CheckContext, steps: Steps, meter: _Meter, measure: dict[str, Any]) -> None:
    """Each refused step refused after the control was accepted; their cost observed (module doc)."""
    control = steps.send(measure["control"]).exchange
    expect_accepted(ctx, control, f"{measure['control']['call']} (the control)")
    schema = _error_schema(ctx)

    def refuse() -> list[Exchange]:
        answers = []
        for step in measure["refused"]:
            why = f"{step['call']} {step.get('body') or step.get('query') or ''}".rstrip()
            got = expect_refused(ctx, why, lambda step=step: steps.send(step).exchange,  # type: ignore[misc]
                                 control=lambda: control, credential_variant="as" in step)
            if schema is not None:
                expect_json_schema(ctx.rule.id, ctx.contract, got, schema, f"{why}: the refusal's body")
            answers.append(got)
        return answers

    _, spent = meter.metered(refuse)
    ctx.observed(f"{len(measure['refused'])} refused request(s) cost "
                 + ", ".join(f"{m} {spent[m]}" for m in meter.members))


def _matches(spent: Counts, want: Counts, members: list[str]) -> bool:
    return all(spent[m] == want.get(m, 0) for m in members)


@named("counter-delta",
       params={"counter": STEP_SCHEMA, "members": {"type": "array", "items": {"type": "string"}, "minItems": 1},
               "measures": {"type": "array", "items": _MEASURE, "minItems": 1},
               "error_schema": {"type": "string", "pattern": "^#/components/schemas/[A-Za-z0-9_.-]+$"}},
       required=("counter", "members", "measures"))
def counter_delta(ctx: CheckContext) -> None:
    p = ctx.rule.params
    steps = Steps(ctx)
    steps.guard([p["counter"], *(m[k] for m in p["measures"] for k in ("charged", "less", "control") if k in m),
                 *(step for m in p["measures"] for step in m.get("refused") or [])])
    meter = _Meter(ctx, steps)
    for measure in p["measures"]:
        if "refused" in measure:
            _refusals(ctx, steps, meter, measure)
            continue
        base: Counts = {}
        if "less" in measure:
            less, _, base = meter.spent(measure["less"])
        exchange, sent, spent = meter.spent(measure["charged"])
        what = exchange.request.summary()
        if "less" in measure:
            spent = {m: spent[m] - base[m] for m in meter.members}
            what += f" less {less.request.summary()}"
        items = _items(sent, measure["per_item_of"]) if "per_item_of" in measure else 1
        if "readings" in measure:
            wants = [charged_amounts(r, items) for r in measure["readings"]]
            shown = [i for i, want in enumerate(wants) if _matches(spent, want, meter.members)]
            expect(bool(shown), ctx.rule.id, f"{what}: the counters fell by {spent}", exchange=exchange,
                   expected=f"one of the documented readings: {wants}")
            ctx.observed(shown[0])
            continue
        want = charged_amounts(measure["falls_by"], items)
        for member in meter.members:
            expect(spent[member] == want.get(member, 0), ctx.rule.id, f"{what}: {member} fell by {spent[member]}",
                   exchange=exchange, expected=f"{member} to fall by exactly {want.get(member, 0)}")
