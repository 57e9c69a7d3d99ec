"""What the proxy's tests share: answers captured as sent, the proxy served in a thread of the test's
process, and a session's written summary read back by rule."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from conformance.contract import load_contract
from conformance.proxy.app import ProxyApp, ProxySession
from conformance.proxy.forward import Forwarder
from conformance.proxy.report import write_report
from conformance.services import create_simulator, fault_decorator
from conformance.settings import Limits
from conformance.simulators.asgi import SimulatorApp
from conformance.simulators.base import WallClock

__all__ = ["SECONDS", "Seen", "Through", "capturing", "report", "serving", "through"]

SECONDS = 60.0


@dataclass
class Seen:
    """What an app sent, as it sent it (to hold the proxy's pass-through to)."""

    answers: list[tuple[int, list[tuple[bytes, bytes]], bytes]] = field(default_factory=list)


def capturing(app: Any, seen: Seen, change: Callable[[dict[str, Any]], None] | None = None) -> Any:
    """``app`` with every answer it sends kept in ``seen`` (after ``change``, a test's own fault)."""
    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        start: dict[str, Any] = {}

        async def keep(message: dict[str, Any]) -> None:
            if change is not None:
                change(message)
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                seen.answers.append((start["status"], list(start["headers"]), message.get("body", b"")))
            await send(message)

        await app(scope, receive, keep)

    return wrapped


def report(p: Any, tmp_path: Path) -> dict[str, Any]:
    """The written summary's rules by id, and its proxy entry as ``_proxy`` (``p``: a session, or
    anything with a ``session``)."""
    session: ProxySession = p if isinstance(p, ProxySession) else p.session
    service = write_report(session, tmp_path, "SIGINT")["services"][session.contract.service]
    return {r["id"]: r for r in service["rules"]} | {"_proxy": service["proxy"]}


@contextmanager
def serving(session: ProxySession, seen: Seen | None = None) -> Iterator[str]:
    """The proxy served on 127.0.0.1 (any free port) in a thread of this process; its base URL.
    ``seen``: every answer the proxy sends, as it sends it. On leaving, uvicorn waits for the
    requests in flight, each exchange's check included: the session is complete."""
    import uvicorn

    from conformance.simulators.sandbox import bind

    sock = bind("127.0.0.1", 0)
    app = ProxyApp(session) if seen is None else capturing(ProxyApp(session), seen)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", server_header=False, date_header=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        ready = threading.Event()
        for _ in range(600):  # bounded wait for start-up (no verdict depends on how long it takes)
            if server.started or not thread.is_alive():
                break
            ready.wait(0.05)
        assert server.started, "the proxy did not start"
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(SECONDS)
        sock.close()


@dataclass
class Through:
    url: str
    session: ProxySession
    upstream: Seen  # what the simulator sent
    caller: Seen  # what the proxy sent the client


@contextmanager
def through(service: str, fault: str | Callable[[Any], Any] | None, **options: Any) -> Iterator[Through]:
    """``service``'s simulator (``fault`` injected: a fault's name, or a wrap of the fault toolkit;
    ``options`` its own) behind a served proxy."""
    sim = create_simulator(service, WallClock(), **options)
    if isinstance(fault, str):
        sim = fault_decorator(service, fault)(sim)
    elif fault is not None:
        sim = fault(sim)
    upstream, caller, limits = Seen(), Seen(), Limits()
    transport = httpx.ASGITransport(capturing(SimulatorApp(sim), upstream))
    session = ProxySession(load_contract(service), Forwarder("http://127.0.0.1:8", limits, transport=transport),
                           limits)
    with serving(session, caller) as url:
        yield Through(url, session, upstream, caller)
