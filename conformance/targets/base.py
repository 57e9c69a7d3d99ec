"""A target hands out one ``Session`` per case, with credentials and a notion of waiting.

* ``sim``: a fresh simulator per case (deterministic ids, no shared state between cases),
  called through ``httpx.MockTransport``: synchronous, no event loop, no socket.
* ``http``: any base URL; waiting is real (divided by the time scale).
* ``replay``: cassettes only; the transport refuses every call, so the network is never used.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from conformance.contract import Contract
from conformance.errors import UsageError
from conformance.recording.cassettes import cassette_context
from conformance.recording.scrub import REDACTED
from conformance.settings import RunSettings, env_name
from conformance.simulators import Simulator, create_simulator
from conformance.transport.session import Session, from_httpx_request

__all__ = ["Target", "make_target", "SIM_BASE_URL", "REPLAY_BASE_URL"]

SIM_BASE_URL = "http://{service}.sim.invalid"
REPLAY_BASE_URL = "http://{service}.replay.invalid"
_TIMEOUT = httpx.Timeout(30.0, connect=10.0)


def _mock_transport(sim: Simulator) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        response = sim.handle(from_httpx_request(request))
        return httpx.Response(response.status, headers=response.headers, content=response.body)

    return httpx.MockTransport(handler)


def _refuse(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError(f"replay target never uses the network ({request.url})")


class Target:
    """Base: subclasses say how a case gets its client, credentials and clock."""

    name = ""

    def __init__(self, contract: Contract, settings: RunSettings) -> None:
        self.contract = contract
        self.settings = settings
        self.service = contract.service
        # The simulator of the current case (sim target only): scenario checks may steer it.
        self.simulator: Simulator | None = None

    def credential(self, name: str) -> str | None:
        return os.environ.get(env_name(self.service, name))

    def base_url(self) -> str:
        raise NotImplementedError

    def _client(self) -> httpx.Client:
        raise NotImplementedError

    def _sleep(self) -> Callable[[float], None]:
        return lambda seconds: time.sleep(seconds / self.settings.time_scale)

    @contextmanager
    def session(self, case_id: str) -> Iterator[Session]:
        client = self._client()
        session = Session(client, base_url=self.base_url(), sleep=self._sleep())
        try:
            if self.settings.record or self.name == "replay":
                path = Path(self.settings.cassette_dir) / self.service / f"{case_id}.yaml"
                with cassette_context(path, replay=self.name == "replay", secrets=self.secrets()):
                    yield session
            else:
                yield session
        finally:
            session.close()

    def secrets(self) -> list[str]:
        """Every credential value this target knows: scrubbed from anything written."""
        out = []
        for cred in self.contract.settings.get("credentials", []):
            value = self.credential(cred["name"])
            if value and value != REDACTED:
                out.append(value)
        return out

    def describe(self) -> dict[str, Any]:
        return {"target": self.name, "base_url": self.base_url()}


class SimTarget(Target):
    name = "sim"

    def __init__(self, contract: Contract, settings: RunSettings,
                 decorate: Callable[[Simulator], Simulator] | None = None) -> None:
        super().__init__(contract, settings)
        self._decorate = decorate

    def base_url(self) -> str:
        return SIM_BASE_URL.format(service=self.service)

    def credential(self, name: str) -> str | None:
        from conformance.simulators.credentials import sim_credentials

        return sim_credentials(self.service).get(name)

    def _client(self) -> httpx.Client:
        sim = create_simulator(self.service)
        if self._decorate is not None:
            sim = self._decorate(sim)
        self.simulator = sim
        return httpx.Client(base_url=self.base_url(), transport=_mock_transport(sim), timeout=_TIMEOUT)

    def _sleep(self) -> Callable[[float], None]:
        return lambda seconds: self.simulator.clock.advance(seconds) if self.simulator else None


class HttpTarget(Target):
    name = "http"

    def base_url(self) -> str:
        url = os.environ.get(env_name(self.service, "BASE_URL"))
        if not url:
            raise UsageError(
                f"target http needs {env_name(self.service, 'BASE_URL')} "
                f"(e.g. http://127.0.0.1:8080 for `conformance serve {self.service} --port 8080`)"
            )
        return url.rstrip("/")

    def _client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url(), timeout=_TIMEOUT)


class ReplayTarget(Target):
    name = "replay"

    def base_url(self) -> str:
        return REPLAY_BASE_URL.format(service=self.service)

    def credential(self, name: str) -> str | None:
        # Cassettes hold REDACTED in place of every secret; sending the same placeholder keeps
        # query-string matching exact where a key travels in the URL.
        return REDACTED

    def _client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url(), transport=httpx.MockTransport(_refuse))

    def _sleep(self) -> Callable[[float], None]:
        return lambda seconds: None

    def secrets(self) -> list[str]:
        return []


def make_target(contract: Contract, settings: RunSettings,
                decorate: Callable[[Simulator], Simulator] | None = None) -> Target:
    if settings.target == "sim":
        if decorate is None and settings.fault:
            from conformance.faults import fault_decorator

            decorate = fault_decorator(contract.service, settings.fault)
        return SimTarget(contract, settings, decorate)
    if settings.target == "http":
        return HttpTarget(contract, settings)
    return ReplayTarget(contract, settings)
