"""The core check ``rate-window`` against a tiny rate-limited server (each refusal ends its window,
as the wait the check makes after it would): it passes a server serving N a window and refusing
the next (also one asking for a longer wait in Retry-After), fails one serving more or fewer, or
answering 5xx instead of the refusal, and is not exercised where waiting is real."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.rates import rate_window
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.targets.base import Capabilities
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/client": {"get": {"responses": {
    "200": {"description": "ok"}, "429": {"description": "too many"}}}}}}


class Limited:
    """Serves ``most`` requests a window (``later`` in the windows after the first); the request
    after them is answered ``refusal`` and starts a new window."""

    def __init__(self, most: int = 5, refusal: int = 429, retry_after: str = "", later: int | None = None) -> None:
        self.most, self.refusal, self.retry_after, self.count = most, refusal, retry_after, 0
        self.later = most if later is None else later

    def handle(self, request: Request) -> Response:
        if self.count >= self.most:
            self.count, self.most = 0, self.later
            answer = Response.json_response(self.refusal, {"message": "slow down"})
            if self.retry_after:
                answer.headers = {**answer.headers, "retry-after": self.retry_after}
            return answer
        self.count += 1
        return Response.json_response(200, {"ok": True})


def run(server: Limited, real_time: bool = False) -> None:
    rule = Rule(id="demo.rate.window", kind="rate-limit", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /client", violation={"status": 429}, params={"check": "rate-window", "most": 5})
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle)
    if real_time:
        ctx.target.capabilities = Capabilities(waits_real_time=True)
    rate_window(ctx)


@pytest.mark.parametrize("retry_after", ["", "120"])
def test_a_server_keeping_its_rate_passes(retry_after: str) -> None:
    run(Limited(retry_after=retry_after))


@pytest.mark.parametrize(("server", "message"), [(Limited(later=6), "request 6 within the window: got status 200"),
                                                 (Limited(most=9), "none of 6 requests"),
                                                 (Limited(most=4), "request 5 of 5 in a fresh window answered 429"),
                                                 (Limited(refusal=503), "none of 6 requests")])
def test_a_server_off_its_rate_fails(server: Limited, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(server)


def test_a_target_waiting_in_real_time_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped):
        run(Limited(), real_time=True)
