"""Gate time per service: the whole rule catalogue against the in-process simulator.

Run: .venv/bin/pytest benchmarks --benchmark-only -p no:cacheprovider
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.contract import load_contract
from conformance.contract.loader import available_services
from conformance.runner import collect_cases, run_case
from conformance.services import target_for
from conformance.settings import RunSettings


@pytest.mark.parametrize("service", available_services())
def test_gate_per_service(benchmark: Any, service: str) -> None:
    contract = load_contract(service)
    target = target_for(contract, RunSettings(target="sim"))
    cases = collect_cases(contract)

    def gate() -> None:
        for case in cases:
            run_case(case, target)

    benchmark.pedantic(gate, rounds=3, iterations=1, warmup_rounds=1)
