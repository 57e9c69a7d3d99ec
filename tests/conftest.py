"""Fixtures of the harness's own tests: a simulator served on 127.0.0.1 in a thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import uvicorn

from conformance.services import create_simulator
from conformance.simulators import Simulator
from conformance.simulators.asgi import UVICORN_OPTIONS, SimulatorApp
from conformance.simulators.base import Clock, WallClock

_START_TIMEOUT = 10.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve(sim: Simulator) -> Iterator[str]:
    """Serve ``sim`` on a free loopback port for the duration of the block."""
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(SimulatorApp(sim), host="127.0.0.1", port=port,
                                           log_level="error", lifespan="off", **UVICORN_OPTIONS))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + _START_TIMEOUT
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("simulator server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(_START_TIMEOUT)


@pytest.fixture
def served() -> Callable[..., object]:
    """``with served("presentations", clock_rate=100) as (base_url, sim): ...``
    or ``served("presentations", clock=Clock())`` for a clock only the test moves."""

    @contextmanager
    def start(service: str, *, clock_rate: float = 1.0, clock: Clock | None = None,
              decorate: Callable[[Simulator], Simulator] | None = None) -> Iterator[tuple[str, Simulator]]:
        # ``clock``: a stepped clock the test advances (verdicts then never depend on speed).
        sim = create_simulator(service, clock or WallClock(rate=clock_rate))
        if decorate is not None:
            sim = decorate(sim)
        with serve(sim) as url:
            yield url, sim

    return start
