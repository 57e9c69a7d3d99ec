"""The served presentations app over real HTTP (verdict equality is in tests/services/)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from conformance.simulators.base import MAX_BODY_BYTES

SERVICE = "presentations"


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


@pytest.mark.slow
def test_documented_client_rate_is_kept_on_a_live_target(served: Callable[..., object],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses
    import time

    from conformance.contract import load_contract
    from conformance.settings import RunSettings
    from conformance.targets import make_target
    from conformance.transport.model import Request

    base = load_contract(SERVICE)
    contract = dataclasses.replace(base, openapi={**base.openapi,
                                                  "x-client-rate-limits": [{"requests": 5, "per_seconds": 1}]})
    with served(SERVICE) as (url, sim):  # type: ignore[attr-defined]
        monkeypatch.setenv("CONFORMANCE_PRESENTATIONS_BASE_URL", url)
        target = make_target(contract, RunSettings(target="http"))
        started = time.monotonic()
        with target.session("rate") as session:
            statuses = [session.send(Request.build("GET", "/v1.0/themes")).response.status for _ in range(11)]
        took = time.monotonic() - started
    assert statuses == [401] * 11  # answered (no key): the point is when they were sent
    assert took >= 1.9, f"11 requests at 5 per second took {took:.2f} s"
