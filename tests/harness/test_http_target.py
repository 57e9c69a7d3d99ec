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
