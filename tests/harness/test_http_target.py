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


def test_a_sandbox_rate_setting_scales_the_documented_rate_and_not_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """CONFORMANCE_SOCIAL_RATE_SCALE=3: three times the documented 60 a minute, the interval (and
    so every Retry-After wait, which CONFORMANCE_TIME_SCALE divides) unchanged."""
    from conformance.contract import load_contract
    from conformance.errors import UsageError
    from conformance.settings import RunSettings
    from conformance.targets.http import HttpTarget

    contract = load_contract("social")
    monkeypatch.delenv("CONFORMANCE_TIME_SCALE", raising=False)
    monkeypatch.delenv("CONFORMANCE_SOCIAL_RATE_SCALE", raising=False)
    assert HttpTarget(contract, RunSettings(target="http")).client_rates() == [(60, 60_000)]
    monkeypatch.setenv("CONFORMANCE_SOCIAL_RATE_SCALE", "3")
    target = HttpTarget(contract, RunSettings(target="http"))
    assert target.client_rates() == [(180, 60_000)] and target.settings.time_scale == 1
    for bad in ("0", "-2", "fast", "inf"):
        monkeypatch.setenv("CONFORMANCE_SOCIAL_RATE_SCALE", bad)
        with pytest.raises(UsageError, match="CONFORMANCE_SOCIAL_RATE_SCALE must be a number above 0"):
            HttpTarget(contract, RunSettings(target="http"))
