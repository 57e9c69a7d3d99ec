"""The http target: any base URL (a live API, a sandbox, a served simulator).

Waiting is real (divided by CONFORMANCE_TIME_SCALE) unless the caller steps a served simulator's
clock, and the document's client request rates are kept. Requests are bounded from connect to last
byte (``transport/deadline.py``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import httpx

from conformance.contract import Contract
from conformance.errors import UsageError
from conformance.settings import RunSettings, env_name
from conformance.targets.base import Capabilities, Target
from conformance.transport.deadline import bounded_client
from conformance.transport.urls import http_url

__all__ = ["HttpTarget", "rate_scale"]


def rate_scale(service: str) -> float:
    """CONFORMANCE_<ID>_RATE_SCALE: how many times the documented client rate a sandbox allows
    (default 1). Separate from CONFORMANCE_TIME_SCALE, which also divides Retry-After waits."""
    name = env_name(service, "RATE_SCALE")
    text = os.environ.get(name) or "1"
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"{name} must be a number above 0 (times the documented rate), got {text!r}")
    return value


class HttpTarget(Target):
    name = "http"
    capabilities = Capabilities(waits_real_time=True, live=True)

    def __init__(self, contract: Contract, settings: RunSettings,
                 wait: Callable[[float], None] | None = None) -> None:
        super().__init__(contract, settings)
        # A served simulator whose clock the caller steps (tests): waits advance that clock, so
        # verdicts do not depend on how fast requests travel, and nothing waits real time.
        self._wait = wait
        self._limiter: Any = None
        if wait is not None:
            self.capabilities = Capabilities(waits_real_time=False, live=True)
        self.rate_scale = rate_scale(contract.service)

    def client_rates(self) -> list[tuple[int, int]]:
        """The client rates the run keeps, as (requests, interval in ms): the document's
        (``x-client-rate-limits``), times CONFORMANCE_<ID>_RATE_SCALE for a sandbox that allows
        more, the interval divided by CONFORMANCE_TIME_SCALE for a simulator served faster."""
        rates = self.contract.openapi.get("x-client-rate-limits") or []
        return sorted(((max(1, int(r["requests"] * self.rate_scale)),
                        max(1, int(r["per_seconds"] * 1000 / self.settings.time_scale))) for r in rates),
                      key=lambda rate: rate[1])

    def _sleep(self) -> Callable[[float], None]:
        return self._wait if self._wait is not None else super()._sleep()

    def _throttle(self) -> Callable[[], None] | None:
        rates = self.client_rates()
        if not rates or not self.capabilities.waits_real_time:
            return None
        if self._limiter is None:
            from pyrate_limiter import InMemoryBucket, Limiter, Rate

            # One limiter per target (all rules share the rate), from the well-kept library.
            self._limiter = Limiter(InMemoryBucket([Rate(requests, interval) for requests, interval in rates]))
        limiter = self._limiter
        return lambda: limiter.try_acquire(self.service) and None

    def base_url(self) -> str:
        url = os.environ.get(env_name(self.service, "BASE_URL"))
        if not url:
            raise UsageError(
                f"target http needs {env_name(self.service, 'BASE_URL')} "
                f"(e.g. http://127.0.0.1:8080 for `conformance serve {self.service} --port 8080`)"
            )
        http_url(url, env_name(self.service, "BASE_URL"), UsageError)
        return url.rstrip("/")

    def _client(self) -> httpx.Client:
        return bounded_client(base_url=self.base_url(), timeout=self._timeout())
