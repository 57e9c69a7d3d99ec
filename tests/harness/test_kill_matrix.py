"""Every check can fail: each named fault is caught by the rule it breaks; and none fails a
conforming server: the clean simulator and every allowed variant pass (or honestly skip)."""

from __future__ import annotations

import pytest

from conformance.contract.loader import available_services
from conformance.selftest import FaultResult, kill_matrix
from conformance.services import faults_for, variants_for

SERVICES = [s for s in available_services() if faults_for(s)]
FAULTS = [(s, f.name) for s in SERVICES for f in faults_for(s)]
VARIANTS = [(s, v.name) for s in SERVICES for v in variants_for(s)]


@pytest.fixture(scope="module")
def matrix() -> dict[tuple[str, str | None], FaultResult]:
    return {(r.service, r.fault): r for r in kill_matrix(SERVICES, workers=2)}


@pytest.mark.parametrize("service", SERVICES)
def test_clean_simulator_passes_every_rule(matrix: dict[tuple[str, str | None], FaultResult],
                                           service: str) -> None:
    clean = matrix[(service, None)]
    assert clean.caught_by == [], f"clean {service} simulator fails {clean.caught_by}"
    assert clean.errors == []


@pytest.mark.parametrize(("service", "fault"), FAULTS, ids=[f"{s}:{f}" for s, f in FAULTS])
def test_fault_is_caught_by_the_rule_it_breaks(matrix: dict[tuple[str, str | None], FaultResult],
                                               service: str, fault: str) -> None:
    result = matrix[(service, fault)]
    assert result.breaks in result.caught_by, (
        f"fault {fault} (breaks {result.breaks}) was caught by {sorted(set(result.caught_by)) or 'nothing'}"
    )
    assert result.errors == []


@pytest.mark.parametrize(("service", "variant"), VARIANTS, ids=[f"{s}:{v}" for s, v in VARIANTS])
def test_allowed_variant_passes_every_rule(matrix: dict[tuple[str, str | None], FaultResult],
                                           service: str, variant: str) -> None:
    """The mirror image of a fault: a server choosing differently where the document is silent."""
    result = matrix[(service, variant)]
    assert result.caught_by == [], f"allowed variant {variant} fails {sorted(set(result.caught_by))}"
    assert result.errors == []


@pytest.mark.parametrize("service", SERVICES)
def test_service_has_enough_faults(service: str) -> None:
    names = [f.name for f in faults_for(service)]
    assert len(names) == len(set(names))
    assert len(names) >= 12


@pytest.mark.parametrize("service", SERVICES)
def test_every_check_function_is_killed_by_some_fault(
        matrix: dict[tuple[str, str | None], FaultResult], service: str) -> None:
    """A check no fault ever fails could be a check that cannot fail."""
    from conformance.contract import load_contract
    from conformance.runner import collect_cases

    contract = load_contract(service)
    caught = {rule for (s, f), r in matrix.items() if s == service and f for rule in r.caught_by}
    checks = {c.check.fn for c in collect_cases(contract) if c.check is not None}
    killed = {c.check.fn for c in collect_cases(contract) if c.check is not None and c.id in caught}
    unkilled = sorted(f"{c.__module__}.{c.__name__}" for c in checks - killed)
    assert not unkilled, f"{service}: no fault breaks a rule checked by {unkilled}"


def test_single_page_walk_is_skipped_not_passed() -> None:
    """A list that never pages shows nothing about the cursor: the walk must not pass."""
    from conformance.contract import load_contract
    from conformance.errors import SkipKind
    from conformance.faults.base import json_edit, on_response
    from conformance.runner import SKIPPED, collect_cases, run_case
    from conformance.services import target_for
    from conformance.settings import RunSettings
    from conformance.transport.model import Request, Response

    def one_page(request: Request, response: Response) -> Response:
        response.body = json_edit(response.body, lambda b: {**b, "hasMore": False} if isinstance(b, dict) else b)
        return response

    contract = load_contract("presentations")
    target = target_for(contract, RunSettings(target="sim"), decorate=on_response(one_page))
    case = next(c for c in collect_cases(contract) if c.id == "presentations.themes.paging-walk")
    outcome = run_case(case, target)
    assert outcome.status == SKIPPED and outcome.skip_kind == SkipKind.NOT_EXERCISED, outcome.message
