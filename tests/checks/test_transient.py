"""Statuses the document tells clients to retry (``x-retry-statuses``) in the checks themselves
(issue 35 item 7), against a tiny server: a server answering one first and the real answer when
asked again passes the route, rate and refusal checks; one stuck on it leaves them unchecked
(``target-transient``), never failed; a status the document does not say to retry is still judged,
and a refusal whose control was accepted still fails a 5xx that stays the answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conformance.checks.context import CheckContext
from conformance.checks.rates import rate_limit
from conformance.checks.refusal import expect_refused
from conformance.checks.routes import route_served
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped, SkipKind
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "x-retry-statuses": {"202": "accepted but no proper answer yet; retry", "503": "overloaded; retry"},
    "paths": {"/things": {"get": {"responses": {"200": {"description": "all"}}}}},
}
Handle = Callable[[Request], Response]


def _json(status: int, body: Any) -> Response:
    return Response(status, {"content-type": "application/json"}, json.dumps(body).encode())


class Later:
    """Answers ``status`` to every ``every``-th request without serving it, else ``serve``'s answer."""

    def __init__(self, serve: Handle, status: int = 503, every: int = 2) -> None:
        self.serve, self.status, self.every, self.seen = serve, status, every, 0

    def handle(self, request: Request) -> Response:
        self.seen += 1
        return _json(self.status, {"error": "later"}) if self.seen % self.every == 0 else self.serve(request)


def ok(request: Request) -> Response:
    return _json(200, {"data": []})


def stuck(status: int) -> Handle:
    return lambda request: _json(status, {"error": "overloaded"})


def _ctx(handle: Handle, params: dict[str, Any], status: int | None = None) -> CheckContext:
    rule = Rule(id="demo.things.rule", kind="endpoint", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /things", params=params, violation={"status": status} if status else None)
    return context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, handle)


def _route(handle: Handle) -> None:
    route_served(_ctx(handle, {"check": "route-served", "missing_statuses": [404, 405, 501]}))


@pytest.mark.parametrize("status", [503, 202])
def test_route_served_passes_a_server_answering_a_retry_status_first(status: int) -> None:
    _route(Later(ok, status).handle)


@pytest.mark.parametrize("status", [503, 202])
def test_route_served_stuck_on_a_retry_status_is_unchecked(status: int) -> None:
    with pytest.raises(RuleSkipped) as skipped:
        _route(stuck(status))
    assert skipped.value.kind == SkipKind.TARGET_TRANSIENT


def test_route_served_still_fails_a_5xx_the_document_does_not_say_to_retry() -> None:
    with pytest.raises(ContractFailure):
        _route(stuck(502))


class Limited:
    """Serves 5 requests, then 429; retry-status answers are not counted (they serve nothing)."""

    def __init__(self) -> None:
        self.served = 0

    def handle(self, request: Request) -> Response:
        self.served += 1
        return _json(429, {"error": "slow down"}) if self.served > 5 else _json(200, {"ok": True})


def test_a_rate_check_retries_at_once_and_counts_what_was_served() -> None:
    # A burst sent without back-off: the 503 in between is retried, not read as a violation.
    rate_limit(_ctx(Later(Limited().handle).handle, {"check": "rate-limit", "max_burst_requests": 20}, 429))


def test_a_rate_check_stuck_on_a_retry_status_is_unchecked() -> None:
    with pytest.raises(RuleSkipped) as skipped:
        rate_limit(_ctx(stuck(503), {"check": "rate-limit", "max_burst_requests": 20}, 429))
    assert skipped.value.kind == SkipKind.TARGET_TRANSIENT


def _refusal(handle: Handle, *, control: bool, status: int | None = None) -> None:
    ctx = _ctx(handle, {"check": "route-served", "missing_statuses": [404, 405, 501]}, status)

    def send(bad: bool) -> Callable[[], Any]:
        return lambda: ctx.call("GET /things", params={"bad": "1"} if bad else None)

    expect_refused(ctx, "a bad query", send(True), control=send(False) if control else None)


def bad_crashes(request: Request) -> Response:
    """Up (the control is served) but a bad request stays 503, retried or not."""
    return _json(503, {"error": "crash"}) if request.query else ok(request)


def test_a_refusal_with_an_accepted_control_still_fails_a_5xx_that_stays() -> None:
    with pytest.raises(ContractFailure):
        _refusal(bad_crashes, control=True)


def test_a_refusal_with_no_control_stuck_on_a_retry_status_is_unchecked() -> None:
    with pytest.raises(RuleSkipped) as skipped:
        _refusal(bad_crashes, control=False, status=400)
    assert skipped.value.kind == SkipKind.TARGET_TRANSIENT


def test_a_refusal_answered_after_a_retry_status_passes() -> None:
    def refusing(request: Request) -> Response:
        return _json(400, {"error": "bad"}) if request.query else ok(request)

    _refusal(Later(refusing).handle, control=True)


def test_a_limit_answered_with_a_retry_status_after_served_requests_fails() -> None:
    # Served, then 503 "overloaded" for good where the document says 429: the target is shown up
    # by the request before, so the 503 that stays is its answer to the count, not a storm.
    with pytest.raises(ContractFailure):
        rate_limit(_ctx(_overloaded_after(5),
               {"check": "rate-limit", "max_burst_requests": 20}, 429))


def _overloaded_after(ceiling: int) -> Handle:
    seen = [0]

    def handle(request: Request) -> Response:
        seen[0] += 1
        return _json(503, {"error": "overloaded"}) if seen[0] > ceiling else _json(200, {"ok": True})

    return handle
