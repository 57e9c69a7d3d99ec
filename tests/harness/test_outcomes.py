"""How the runner decides an outcome from what stopped a rule: by the exception's type and the
bound it carries, never by the words of its message."""

from __future__ import annotations

import pytest

from conformance.checks.context import CheckContext
from conformance.checks.registry import CheckSpec
from conformance.contract import load_contract
from conformance.errors import OverBudget, SkipKind
from conformance.runner import ERROR, SKIPPED, Case, run_case
from conformance.services import target_for
from conformance.settings import RunSettings

# The message of a stopped wait names both budgets: only the bound it carries says which ran out.
BOTH = "a wait would pass the rule's or the run's budget (CONFORMANCE_RULE_SECONDS, CONFORMANCE_RUN_SECONDS)"


@pytest.mark.parametrize(("variable", "status", "kind"), [
    ("CONFORMANCE_RUN_SECONDS", SKIPPED, SkipKind.RUN_DEADLINE),  # the run is incomplete (exit 3)
    ("CONFORMANCE_RULE_SECONDS", ERROR, None),  # the rule's own budget: reported as what it is
])
def test_a_spent_budget_is_judged_by_the_bound_it_names(variable: str, status: str, kind: SkipKind | None) -> None:
    def stopped(ctx: CheckContext) -> None:
        raise OverBudget(BOTH, variable)

    contract = load_contract("tokenrisk")
    case = Case("tokenrisk", contract.rules[0], CheckSpec("test/stopped", stopped))
    outcome = run_case(case, target_for(contract, RunSettings(target="sim")))
    assert (outcome.status, outcome.skip_kind) == (status, kind), outcome.message
