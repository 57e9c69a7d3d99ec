"""What every simulator shares: a controllable clock, routing, JSON parsing, error mapping.

Hostile input is handled here once: a body over the size cap, malformed JSON or a non-object
body become 4xx responses, and an unexpected exception becomes a 500 that names itself, so
the harness (and a fuzzer) can see it as the bug it is.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from conformance.transport.model import JSON_TYPE, Request, Response

__all__ = ["Clock", "Route", "SimError", "Simulator", "WallClock", "MAX_BODY_BYTES"]

# Large enough for the biggest documented body (400000 characters of escaped text), small
# enough that a hostile 10 MB upload is refused before parsing.
MAX_BODY_BYTES = 4 * 1024 * 1024


class Clock:
    """Simulated time in seconds. Nothing in a simulator reads the wall clock directly."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not run backwards")
        self._now += seconds


class WallClock(Clock):
    """Real time, optionally sped up, for a simulator served over HTTP."""

    def __init__(self, rate: float = 1.0) -> None:
        super().__init__()
        self._origin_real = time.monotonic()
        self._rate = rate

    def now(self) -> float:
        # advance() still works on top of real time: it moves the offset in self._now.
        return self._now + (time.monotonic() - self._origin_real) * self._rate


class SimError(Exception):
    """Raised inside a handler to answer with an error status."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


Handler = Callable[..., Response]


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler


class Simulator:
    """Base of all simulators: subclasses add routes and state."""

    service = ""
    # Seeded credentials by the contract's credential names (API_KEY, ...): what the sim
    # target sends, and what `conformance serve` prints for people pointing clients at it.
    credentials: ClassVar[dict[str, str]] = {}
    # The largest body any route takes (the HTTP server stops buffering beyond it); a service whose
    # document allows larger uploads raises it, and says in body_cap which routes take them.
    max_body_bytes: ClassVar[int] = MAX_BODY_BYTES

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock or Clock()
        self._routes: list[Route] = []

    # -- routing -------------------------------------------------------------------------
    def route(self, method: str, template: str, handler: Handler) -> None:
        regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", re.escape(template).replace(r"\{", "{").replace(r"\}", "}"))
        self._routes.append(Route(method.upper(), re.compile(f"^{regex}$"), handler))

    def handle(self, request: Request) -> Response:
        allowed: list[str] = []
        try:
            cap = self.body_cap(request)
            if len(request.body) > cap:
                raise SimError(413, f"request body over {cap} bytes")
            for route in self._routes:
                match = route.pattern.match(request.path)
                if not match:
                    continue
                if route.method != request.method:
                    allowed.append(route.method)
                    continue
                return self.finish(request, route.handler(request, **match.groupdict()))
            if allowed:  # the path is known: say which methods it takes (RFC 9110 section 15.5.6)
                methods = ", ".join(sorted(set(allowed)))
                raise SimError(405, f"method {request.method} not allowed at {request.path}; it takes {methods}")
            raise SimError(404, f"no such path {request.path}")
        except SimError as err:
            response = self.error_response(err)
            if err.status == 405 and allowed:
                response.headers["allow"] = ", ".join(sorted(set(allowed)))
            return self.finish(request, response)
        except Exception as exc:  # a bug in the simulator: visible, never silent
            return self.error_response(SimError(500, f"simulator bug: {type(exc).__name__}"))

    def body_cap(self, request: Request) -> int:
        """Bytes of body this request may carry; beyond it, 413 before any route sees it."""
        return MAX_BODY_BYTES

    def finish(self, request: Request, response: Response) -> Response:
        """Hook for headers every response carries (rate limits and the like)."""
        return response

    def error_response(self, err: SimError) -> Response:
        return Response.json_response(err.status, {"message": err.message, **err.extra})

    # -- helpers for handlers ------------------------------------------------------------
    @staticmethod
    def json_body(request: Request) -> dict[str, Any]:
        ctype = (request.header("content-type") or "").split(";")[0].strip().lower()
        if ctype != JSON_TYPE:
            raise SimError(400, "Content-Type must be application/json")
        try:
            body = json.loads(request.body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise SimError(400, "body is not valid JSON") from None
        except RecursionError:  # nesting deeper than the parser follows: hostile, not a server bug
            raise SimError(400, "body nests too deeply") from None
        if not isinstance(body, dict):
            raise SimError(400, "body must be a JSON object")
        return body
