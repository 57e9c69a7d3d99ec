"""Per-request cost of each in-process path to a simulator (DESIGN: measure before settling).

Run: .venv/bin/pytest benchmarks --benchmark-only -p no:cacheprovider
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from conformance.services.presentations.simulator import PresentationsSimulator
from conformance.simulators.asgi import SimulatorApp
from conformance.targets.sim import mock_transport as _mock_transport

KEY = {"X-API-KEY": PresentationsSimulator.credentials["API_KEY"]}
ROUNDS = 200


def _fresh() -> PresentationsSimulator:
    sim = PresentationsSimulator()
    sim._windows_for = lambda key: []  # type: ignore[method-assign]  # no rate limit in a benchmark
    return sim


def test_mock_transport_sync(benchmark: Any) -> None:
    client = httpx.Client(base_url="http://sim", transport=_mock_transport(_fresh()))
    benchmark.pedantic(lambda: client.get("/v1.0/themes", headers=KEY), rounds=ROUNDS, iterations=5)


def test_core_without_httpx(benchmark: Any) -> None:
    from conformance.transport.model import Request

    sim = _fresh()
    request = Request.build("GET", "/v1.0/themes", headers=KEY)
    benchmark.pedantic(lambda: sim.handle(request), rounds=ROUNDS, iterations=5)


def test_asgi_transport_async(benchmark: Any) -> None:
    app = SimulatorApp(_fresh())
    loop = asyncio.new_event_loop()
    client = httpx.AsyncClient(base_url="http://sim", transport=httpx.ASGITransport(app=app))
    benchmark.pedantic(lambda: loop.run_until_complete(client.get("/v1.0/themes", headers=KEY)),
                       rounds=ROUNDS, iterations=5)
    loop.run_until_complete(client.aclose())
    loop.close()


@pytest.mark.filterwarnings("ignore")  # TestClient's own deprecation notices; we only time it
def test_starlette_testclient(benchmark: Any) -> None:
    from starlette.testclient import TestClient

    with TestClient(SimulatorApp(_fresh()), base_url="http://sim") as client:
        benchmark.pedantic(lambda: client.get("/v1.0/themes", headers=KEY), rounds=ROUNDS, iterations=5)
