"""The kill matrix: the suite against the clean simulator, each named fault and each allowed variant.

A fault is caught when at least one rule fails under it; the clean simulator and every allowed
variant must pass (or honestly skip) every rule. Runs without pytest, in worker processes, because it is the suite
run once per fault.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from conformance.contract import load_contract
from conformance.runner import ERROR, FAILED, collect_cases, run_case
from conformance.services import faults_for, target_for, variants_for
from conformance.settings import RunSettings

__all__ = ["FaultResult", "kill_matrix", "run_suite"]


@dataclass
class FaultResult:
    service: str
    fault: str | None  # None: the clean simulator
    breaks: str = ""
    variant: bool = False  # an allowed variant: must pass, like the clean simulator
    caught_by: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def caught(self) -> bool:
        return bool(self.caught_by)


def run_suite(service: str, fault: str | None, profile: str = "gate", breaks: str = "",
              everything: bool = False) -> FaultResult:
    """The suite against the simulator with ``fault`` (a fault or a variant; None: clean).

    For a fault (``breaks`` given) only the rule it breaks runs: the matrix asks whether that rule
    catches it, and cases are independent (a fresh simulator each), so the other rules' verdicts
    would change nothing but the time (``everything`` runs them all, to see what else notices).
    The clean simulator and every variant run every rule: a variant must pass them all."""
    contract = load_contract(service)
    target = target_for(contract, RunSettings(target="sim", profile=profile, fault=fault))
    result = FaultResult(service, fault)
    for case in collect_cases(contract):
        if breaks and not everything and case.id != breaks:
            continue
        outcome = run_case(case, target, profile)
        result.seconds += outcome.seconds
        if outcome.status == FAILED and outcome.failed_rule:
            result.caught_by.append(outcome.failed_rule)
        elif outcome.status == ERROR:
            result.errors.append(f"{case.id}: {outcome.message.strip().splitlines()[-1]}")
    return result


def _job(args: tuple[str, str | None, str, str, bool]) -> FaultResult:
    return run_suite(*args)


def kill_matrix(services: list[str], profile: str = "gate", workers: int = 2,
                everything: bool = False) -> list[FaultResult]:
    jobs: list[tuple[str, str | None, str, str, bool]] = []
    breaks: dict[tuple[str, str | None], str] = {}
    for service in services:
        jobs.append((service, None, profile, "", False))
        for item in faults_for(service):
            jobs.append((service, item.name, profile, item.breaks, everything))
            breaks[(service, item.name)] = item.breaks
        for allowed in variants_for(service):
            jobs.append((service, allowed.name, profile, "", False))
    # Whole-suite runs (clean, variants) first and single-rule fault runs after: the pool's last
    # jobs are then short, so no worker idles while another finishes a long suite.
    listed = {(job[0], job[1]): i for i, job in enumerate(jobs)}
    jobs.sort(key=lambda job: bool(job[3]))
    if workers <= 1:
        results = [_job(j) for j in jobs]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_job, jobs))
    results.sort(key=lambda r: listed[(r.service, r.fault)])  # reported in the listed order
    for result in results:
        result.breaks = breaks.get((result.service, result.fault), "")
        result.variant = result.fault is not None and (result.service, result.fault) not in breaks
    return results
