"""Generated bodies a server may refuse.

* ``valid-bodies-refusable``: the generic ``valid-bodies`` with statuses a generated body may
  also get (``refusable``: a list, or ``any-4xx`` where the document names no status), for
  members whose format the document does not show: the example must be accepted first, then
  every generated body is accepted (and its answer valid) or refused with one of those
  statuses, never anything else. The example is rendered for the target (``checks/examples.py``:
  its address is a setting), as every generic check renders it.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.boundary import baseline
from conformance.checks.context import CheckContext
from conformance.checks.properties import bodies_answered, documented_only
from conformance.checks.registry import named

__all__ = ["valid_bodies_refusable"]


_REFUSABLE = {"oneOf": [{"type": "array", "items": {"type": "integer"}, "minItems": 1}, {"const": "any-4xx"}]}


@named("contracts/valid-bodies-refusable", params={"refusable": _REFUSABLE}, required=("refusable",))
def valid_bodies_refusable(ctx: CheckContext) -> None:
    rule = ctx.rule
    operation = rule.operation
    assert operation
    contract = ctx.contract
    # The control: the settled example is accepted, so a target refusing everything fails.
    baseline(ctx)
    body_schema = contract.standalone(documented_only(contract.request_schema(operation), contract))
    bodies_answered(ctx, operation, body_schema, "a body valid under the documented schema must be accepted, or "
                    "refused (a client error, never a 5xx)", _refusable(rule.params["refusable"]))


def _refusable(given: Any) -> frozenset[int]:
    # "any-4xx": the document names no status for what a generated value may be refused for (a
    # wallet the account does not hold: gap wallet-and-address), so any client error counts.
    return frozenset(range(400, 500)) if given == "any-4xx" else frozenset(given)
