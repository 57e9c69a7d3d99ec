"""The circuit breaker opens after CONFORMANCE_BREAKER_FAILURES transport failures in a row, and
only an answer from the target closes it again: rules that send nothing in between (a check of
the contract alone, a skip) do not reset the count (issue 34, item 9)."""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.registry import CheckSpec
from conformance.contract import load_contract
from conformance.errors import TargetUnreachable
from conformance.runner import ERROR, PASSED, Case, run_case
from conformance.services import target_for
from conformance.settings import RunSettings

SERVICE = "tokenrisk"


def _unanswered(ctx: CheckContext) -> None:
    raise TargetUnreachable("GET /ping: no complete response within 1 s (CONFORMANCE_REQUEST_SECONDS)")


def _silent(ctx: CheckContext) -> None:
    """A check that sends nothing and passes."""


def _answered(ctx: CheckContext) -> None:
    ctx.call("GET /ping")


def _case(fn: object, index: int) -> Case:
    rule = load_contract(SERVICE).rules[index]
    return Case(SERVICE, rule, CheckSpec(f"test/{getattr(fn, '__name__', 'check')}", fn))  # type: ignore[arg-type]


def test_rules_that_send_nothing_do_not_close_the_breaker() -> None:
    target = target_for(load_contract(SERVICE), RunSettings(target="sim"))
    outcomes = [run_case(_case(fn, i), target) for i, fn in
                enumerate([_unanswered, _silent, _unanswered, _silent, _unanswered, _silent])]
    assert [o.status for o in outcomes[:5]] == [ERROR, PASSED, ERROR, PASSED, ERROR]
    assert target.unavailable and "3 consecutive transport failures" in target.unavailable
    assert outcomes[5].status == ERROR and "target unavailable, rule not run" in outcomes[5].message


def test_an_answer_closes_the_breaker() -> None:
    target = target_for(load_contract(SERVICE), RunSettings(target="sim"))
    for i, fn in enumerate([_unanswered, _unanswered, _answered, _unanswered, _unanswered]):
        run_case(_case(fn, i), target)
    assert target.unavailable is None  # two in a row, an answer, two in a row: never three
