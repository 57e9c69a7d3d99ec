"""The scanning simulator over real HTTP: a deployment named otherwise is checked by setting
product, within a time bound, and the served simulator keeps its documented error bodies.
(Same verdicts over HTTP as in process: tests/services/test_every_service.py.)"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import httpx
import pytest

from conformance.contract import load_contract
from conformance.runner import PASSED, collect_cases, run_case
from conformance.services import target_for
from conformance.services.scanning.simulator import ScanningSimulator
from conformance.settings import ALLOWANCES, Limits, RunSettings, env_name
from conformance.simulators.base import WallClock
from tests.conftest import serve

SERVICE = "scanning"
# Our own served simulator: spending and writing are allowed (a vendor's live target needs --allow).
ALLOW_ALL = frozenset(ALLOWANCES)
UNBUDGETED = Limits(spend_budget=1_000_000)
# The whole suite takes a few seconds in process and about fifteen over loopback; the bound
# catches a hang (a check looping, a server that stopped answering) without being flaky.
BUDGET_SECONDS = 120.0


def _verdicts(settings: RunSettings, deadline: float | None = None,
              product: str | None = None) -> dict[str, str]:
    contract = load_contract(SERVICE)
    if product is not None:  # a copy: loaded contracts are cached and shared
        contract = dataclasses.replace(contract, settings={**contract.settings, "product": product})
    target = target_for(contract, settings)
    out: dict[str, str] = {}
    for case in collect_cases(contract):
        outcome = run_case(case, target)
        out[case.id] = outcome.status if outcome.status == PASSED else f"{outcome.status}: {outcome.message}"
        if deadline is not None:
            assert time.monotonic() < deadline, f"over {BUDGET_SECONDS} s, at {case.id}"
    return out


@pytest.mark.slow
def test_served_scanning_simulator_refuses_with_error_bodies(served: Callable[..., object]) -> None:
    with served(SERVICE) as (url, sim):  # type: ignore[attr-defined]
        key = {"key": sim.credentials["API_KEY"]}
        with httpx.Client(base_url=url, timeout=30) as client:
            answers = [
                client.get("/api-info"),
                client.get("/api-info", headers=key),  # the key belongs in the query string
                client.get("/svc/host/not-an-ip", params=key),
                client.post("/svc/scan", params=key, content=b"{oops",
                            headers={"content-type": "application/json"}),
                client.get("/svc/host/%ff%fe", params=key),
            ]
    assert answers[2].status_code == 404
    for answer in answers:
        assert 400 <= answer.status_code < 500, answer.text
        assert isinstance(answer.json().get("error"), str)


@pytest.mark.slow
def test_deployment_named_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service's own name is not documented: a deployment that uses another one (as the
    common client library expects) is checked by setting the contract's settings.product to
    the name the simulator (or vendor) serves, with the same verdicts."""
    deadline = time.monotonic() + BUDGET_SECONDS
    sim = ScanningSimulator(WallClock(), product="acme")
    with serve(sim) as url:
        monkeypatch.setenv(env_name(SERVICE, "BASE_URL"), url)
        for name, value in sim.credentials.items():
            monkeypatch.setenv(env_name(SERVICE, name), value)
        verdicts = _verdicts(RunSettings(target="http", allow=ALLOW_ALL, limits=UNBUDGETED), deadline, product="acme")
    # A gap probe ends as a skip whose reason is what it observed (never judged).
    probes = {"scanning.dns.resolve-reverse-round-trip"}
    assert {v for k, v in verdicts.items() if k not in probes} == {PASSED}, {
        k: v for k, v in verdicts.items() if v != PASSED and k not in probes}
    assert all(verdicts[k].startswith("skipped: gap") for k in probes), {k: verdicts[k] for k in probes}
