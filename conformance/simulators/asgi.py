"""Serves a simulator core over HTTP as an ASGI app (``conformance serve``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from email.utils import formatdate
from typing import Any
from urllib.parse import parse_qsl

from conformance.simulators.base import MAX_BODY_BYTES, SimError, Simulator
from conformance.transport.model import Request

__all__ = ["SimulatorApp", "UVICORN_OPTIONS", "lifespan"]

# The simulator states its own Date (below), so the server must not add the wall clock's.
UVICORN_OPTIONS: dict[str, Any] = {"date_header": False}


async def lifespan(receive: Any, send: Any, on_shutdown: Callable[[], Awaitable[None]] | None = None) -> None:
    """The ASGI lifespan protocol: startup acknowledged, ``on_shutdown`` awaited before shutdown is."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if on_shutdown is not None:
                await on_shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return


class SimulatorApp:
    def __init__(self, simulator: Simulator) -> None:
        self.simulator = simulator

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        body, too_big = bytearray(), False
        cap = int(getattr(self.simulator, "max_body_bytes", MAX_BODY_BYTES))  # a wrapper may not say
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            if not too_big:
                body += message.get("body", b"")
                # Stop buffering past the cap; keep draining so the client is not cut off.
                too_big = len(body) > cap
            if not message.get("more_body"):
                break
        if too_big:
            response = self.simulator.finish(
                Request("POST", scope["path"]),
                self.simulator.error_response(SimError(413, f"request body over {cap} bytes")),
            )
        else:
            request = Request(
                method=scope["method"],
                path=scope["path"],
                query=parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True),
                headers={k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]},
                body=bytes(body),
            )
            response = self.simulator.handle(request)
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.items()]
        if not any(k.lower() == b"date" for k, _v in headers):
            # RFC 9110 section 6.6.1: an origin server with a clock sends Date. The simulator's clock
            # is its simulated one (what `conformance discover` reads the target's today from),
            # not the machine's, which the server would otherwise send (UVICORN_OPTIONS).
            headers.append((b"date", formatdate(self.simulator.clock.now(), usegmt=True).encode("latin-1")))
        await send({
            "type": "http.response.start",
            "status": response.status,
            "headers": headers,
        })
        await send({"type": "http.response.body", "body": response.body})
