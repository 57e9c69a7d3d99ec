"""The core ``rate-limit`` check against a tiny server counting requests (no clock: no verdict
depends on speed). It passes a server refusing the request past its ceiling with the documented
status (and one with another ceiling, which the document does not show); it fails a server
answering past its ceiling with another refusal or a 5xx; a server never limited within the bound
is skipped, never passed. Creates carry their ``x-unique`` member new on every request."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.rates import rate_limit
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped, SkipKind
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/things": {
            "get": {"responses": {"200": {"description": "all"}}},
            "post": {
                "requestBody": {"content": {"application/json": {
                    "schema": {"type": "object", "properties": {"email": {"type": "string"}}},
                    "x-unique": ["email"], "example": {"email": "probe@things.example"}}}},
                "responses": {"201": {"description": "made"}}},
        },
    },
}


class Limited:
    """Serves ``ceiling`` requests, then answers ``over`` (429 unless told otherwise)."""

    def __init__(self, ceiling: int | None, over: int = 429, served: int = 200) -> None:
        self.ceiling, self.over, self.served = ceiling, over, served
        self.seen: list[Request] = []

    def handle(self, request: Request) -> Response:
        self.seen.append(request)
        if self.ceiling is not None and len(self.seen) > self.ceiling:
            return Response.json_response(self.over, {"error": "slow down"})
        return Response.json_response(self.served, {"ok": True})


def run(server: Limited, operation: str = "GET /things", status: int | None = 429, **params: Any) -> None:
    rule = Rule(id="demo.rate.burst", kind="rate-limit", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, violation={"status": status} if status else None,
                params={"check": "rate-limit", "max_burst_requests": 20, **params})
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {})
    rate_limit(context(contract, rule, server.handle))


@pytest.mark.parametrize("ceiling", [0, 5, 19])
def test_a_server_refusing_past_its_ceiling_passes(ceiling: int) -> None:
    server = Limited(ceiling)
    run(server)
    assert len(server.seen) == ceiling + 1  # the first 429 ends the probe


def test_without_a_documented_status_429_is_the_refusal() -> None:
    run(Limited(3), status=None)


@pytest.mark.parametrize(("over", "message"), [(403, "got status 403"), (500, "got status 500")])
def test_another_answer_past_the_ceiling_fails(over: int, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Limited(3, over=over))


def test_a_server_never_limited_within_the_bound_is_skipped() -> None:
    with pytest.raises(RuleSkipped, match="no 429 within 20 requests") as skipped:
        run(Limited(None))
    assert skipped.value.kind is SkipKind.NOT_EXERCISED


def test_creates_in_a_burst_carry_a_new_unique_member_each() -> None:
    server = Limited(4, served=201)
    run(server, operation="POST /things", request={"call": "POST /things", "body": "example"})
    emails = [json.loads(r.body)["email"] for r in server.seen]
    assert len(set(emails)) == len(emails) == 5


def test_a_create_answered_with_an_undocumented_success_fails() -> None:
    with pytest.raises(ContractFailure, match="got status 200"):
        run(Limited(4), operation="POST /things", request={"call": "POST /things", "body": "example"})
