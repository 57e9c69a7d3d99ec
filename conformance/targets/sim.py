"""The sim target: a fresh simulator per case, called in process.

Each case gets its own simulator (deterministic ids, no shared state between cases), reached through
``httpx.MockTransport``: synchronous, no event loop, no socket. Waiting advances the simulator's
clock. The target knows no service package: it is handed its simulator factory, the seeded
credentials and any fault or variant wrapper (``conformance.services.target_for`` does that).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

import httpx

from conformance.contract import Contract
from conformance.interrupts import checkpoint
from conformance.settings import RunSettings, env_name
from conformance.simulators import Simulator
from conformance.targets.base import Capabilities, Target
from conformance.transport.session import from_httpx_request

__all__ = ["SIM_BASE_URL", "SimTarget", "SimulatorFactory", "mock_transport"]

# A fresh simulator: (clock, **options) -> Simulator; None means a fresh simulated clock.
SimulatorFactory = Callable[..., Simulator]

SIM_BASE_URL = "http://{service}.sim.invalid"


def mock_transport(sim: Simulator) -> httpx.MockTransport:
    """``sim`` behind an httpx transport (the benchmarks time it alone)."""

    def handler(request: httpx.Request) -> httpx.Response:
        checkpoint("sim-request")  # a test may interrupt the run here, mid-rule (inert otherwise)
        response = sim.handle(from_httpx_request(request))
        return httpx.Response(response.status, headers=response.headers, content=response.body)

    return httpx.MockTransport(handler)


class SimTarget(Target):
    name = "sim"
    capabilities = Capabilities(steerable=True)

    def __init__(self, contract: Contract, settings: RunSettings, simulator: SimulatorFactory,
                 credentials: Mapping[str, str], decorate: Callable[[Simulator], Simulator] | None = None) -> None:
        super().__init__(contract, settings)
        self._new_simulator = simulator
        self._credentials = dict(credentials)
        self._decorate = decorate
        self._seeded: dict[str, str] | None = None

    def base_url(self) -> str:
        return SIM_BASE_URL.format(service=self.service)

    def credential(self, name: str) -> str | None:
        # The seeded values of the simulator as decorated: an allowed variant may choose another
        # value for a setting (another name for an unnamed value) by overriding ``credentials``.
        if self._seeded is None:
            seeded = dict(self._credentials)
            if self._decorate is not None:
                seeded.update(getattr(self._decorate(self._new_simulator()), "credentials", {}) or {})
            self._seeded = seeded
        return self._seeded.get(name) or None

    def serve_options(self) -> dict[str, str]:
        """Path settings changed from their default (--option, environment): the simulator serves
        them, as `conformance serve --option` does."""
        return {name: value for name, (value, _d) in self.contract.server_variables().items()
                if os.environ.get(env_name(self.service, name.upper())) is not None}

    def _client(self) -> httpx.Client:
        sim = self._new_simulator(None, **self.serve_options())
        if self._decorate is not None:
            sim = self._decorate(sim)
        self.simulator = sim
        return httpx.Client(base_url=self.base_url(), transport=mock_transport(sim), timeout=self._timeout())

    def _sleep(self) -> Callable[[float], None]:
        return lambda seconds: self.simulator.clock.advance(seconds) if self.simulator else None
