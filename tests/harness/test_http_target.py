"""The same suite over real HTTP against `conformance serve`'s app: same verdicts as in process."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from conformance.contract import load_contract
from conformance.runner import collect_cases, run_case
from conformance.settings import RunSettings
from conformance.simulators.base import MAX_BODY_BYTES
from conformance.targets import make_target

SERVICE = "presentations"
CLOCK_RATE = 200.0


def _verdicts(settings: RunSettings) -> dict[str, str]:
    contract = load_contract(SERVICE)
    target = make_target(contract, settings)
    return {c.id: run_case(c, target).status for c in collect_cases(contract)}


@pytest.mark.slow
def test_http_verdicts_equal_in_process(served: Callable[..., object],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    in_process = _verdicts(RunSettings(target="sim"))
    with served(SERVICE, clock_rate=CLOCK_RATE) as (url, sim):  # type: ignore[attr-defined]
        monkeypatch.setenv("CONFORMANCE_PRESENTATIONS_BASE_URL", url)
        for name, value in sim.credentials.items():
            monkeypatch.setenv(f"CONFORMANCE_PRESENTATIONS_{name}", value)
        over_http = _verdicts(RunSettings(target="http", time_scale=CLOCK_RATE))
    assert over_http == in_process
    assert set(in_process.values()) == {"passed"}


@pytest.mark.slow
def test_served_simulator_survives_hostile_input(served: Callable[..., object]) -> None:
    with served(SERVICE) as (url, sim):  # type: ignore[attr-defined]
        key = {"X-API-KEY": sim.credentials["API_KEY"], "content-type": "application/json"}
        with httpx.Client(base_url=url, timeout=30) as client:
            huge = client.post("/v1.0/generations", headers=key, content=b"x" * (10 * 1024 * 1024))
            assert huge.status_code == 413
            assert client.post("/v1.0/generations", headers=key, content=b"{oops").status_code == 400
            assert client.post("/v1.0/generations", headers=key, json={"inputText": []}).status_code == 400
            assert client.get("/v1.0/%ff%fe", headers=key).status_code == 404
            assert client.get("/v1.0/themes").status_code == 401
            assert MAX_BODY_BYTES < 10 * 1024 * 1024
