"""Scenario checks of the envelope, the X-Svc headers, the error table, tags and the rate limit."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from conformance.auth.variants import NONE
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import named
from conformance.services.social.support import METADATA, PROFILES, accepted, body, post, values
from conformance.transport.model import Exchange, Request

__all__: list[str] = []

CLIENT = "GET /metadata/client"
TAGS = "GET /{customer_id}/metadata/customer/tags"


def _path(ctx: CheckContext, operation: str) -> str:
    return ctx.path(operation.split(" ", 1)[1], operation=operation, **values(ctx, operation))


def _raw(ctx: CheckContext, operation: str, method: str | None = None, **kwargs: Any) -> Exchange:
    """The operation's path with another method, headers or raw content (credentials as usual)."""
    request = Request.build(method or operation.split(" ", 1)[0], _path(ctx, operation), **kwargs)
    return ctx.send(ctx.auth(request, operation))


def _samples(ctx: CheckContext) -> list[tuple[str, Exchange]]:
    """A success, a 401 and a 400: the answers every header rule holds."""
    return [("a success", ctx.call(METADATA, path_values=values(ctx, METADATA))),
            ("a 401 (no token)", ctx.call(CLIENT, auth=NONE)),
            ("a 400 (broken JSON)", _raw(ctx, PROFILES, headers={"content-type": "application/json"},
                                         content=b'{"filters": ['))]


@named("social/error-envelope")
def error_envelope(ctx: CheckContext) -> None:
    schema = ctx.contract.openapi["components"]["schemas"]["Envelope"]
    for what, exchange in _samples(ctx)[1:]:
        expect(400 <= exchange.response.status < 500, ctx.rule.id, f"{what} was not refused", exchange=exchange,
               expected="a 4xx")
        expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, f"{what}: the standard object")


@named("social/unknown-endpoint")
def unknown_endpoint(ctx: CheckContext) -> None:
    operation = ctx.rule.operation
    assert operation

    def missing() -> Exchange:
        request = Request.build("GET", _path(ctx, operation) + "/conformance-no-such-endpoint")
        return ctx.send(ctx.auth(request, operation))

    expect_refused(ctx, "a path that is no endpoint", missing, control=partial(_raw, ctx, operation))


@named("social/wrong-method", params={"method": {"enum": ["DELETE", "PUT", "PATCH"]}}, required=("method",))
def wrong_method(ctx: CheckContext) -> None:
    operation = ctx.rule.operation
    assert operation
    method = ctx.rule.params["method"]
    expect_refused(ctx, f"{method} on {operation}", partial(_raw, ctx, operation, method),
                   control=partial(_raw, ctx, operation))


@named("social/body-not-json")
def body_not_json(ctx: CheckContext) -> None:
    operation = ctx.rule.operation
    assert operation
    text = json.dumps(body(ctx, operation)).encode()
    accepted(ctx, post(ctx, operation, body(ctx, operation)), operation, "the example as JSON (the control)")
    expect_refused(ctx, "the example sent as text/plain",
                   partial(_raw, ctx, operation, headers={"content-type": "text/plain"}, content=text))


@named("social/response-not-json")
def response_not_json(ctx: CheckContext) -> None:
    operation = ctx.rule.operation
    assert operation
    expect_status(ctx.rule.id, _raw(ctx, operation, headers={"accept": "application/json"}), 200,
                  "Accept application/json (the control)")
    expect_refused(ctx, "Accept text/html", partial(_raw, ctx, operation, headers={"accept": "text/html"}))


@named("social/malformed-body")
def malformed_body(ctx: CheckContext) -> None:
    operation = ctx.rule.operation
    assert operation
    accepted(ctx, post(ctx, operation, body(ctx, operation)), operation, "the example (the control)")
    text = json.dumps(body(ctx, operation)).encode()
    expect_refused(ctx, "the example cut in half", partial(
        _raw, ctx, operation, headers={"content-type": "application/json"}, content=text[: len(text) // 2]))


@named("social/archived-tags")
def archived_tags(ctx: CheckContext) -> None:
    wanted = ctx.credential("ARCHIVED_TAG_ID")
    exchange = ctx.call(TAGS, path_values=values(ctx, TAGS))
    tags = accepted(ctx, exchange, TAGS, "the tag list")["data"]
    ids = {str(t["tag_id"]).removesuffix(".0") for t in tags}
    expect(wanted in ids, ctx.rule.id, f"the archived tag {wanted} is not listed", exchange=exchange,
           expected="archived tags included")


@named("social/per-minute", params={"per_minute": {"type": "integer", "minimum": 1}}, required=("per_minute",))
def per_minute(ctx: CheckContext) -> None:
    """Reach a 429, wait what it asks (or a minute), then the next ``per_minute`` requests are
    served and the one after them is refused. Not on a target where waiting is real: the harness
    keeps the documented rate there, so it would never send the 61st request in a minute."""
    ctx.require(not ctx.can.waits_real_time, "exceed the documented rate (the harness keeps it on live targets)")
    limit = ctx.rule.params["per_minute"]
    send = partial(ctx.call, CLIENT, backoff=False)
    first = next((e for e in (send() for _ in range(limit + 1)) if e.response.status == 429), None)
    expect(first is not None, ctx.rule.id, f"{limit + 1} requests within a minute were all served",
           expected=f"429 at the latest for request {limit + 1}")
    assert first is not None
    # A whole minute (at least): a sliding window is empty again then, a fixed one too.
    retry = first.response.headers.get("retry-after", "")
    ctx.sleep(max(float(retry) if retry.isdigit() else 0.0, 60.0))
    for number in range(1, limit + 1):
        served = send()
        expect(served.response.status == 200, ctx.rule.id, f"request {number} of {limit} in a fresh minute answered "
               f"{served.response.status}", exchange=served, expected=f"{limit} requests a minute served")
    expect_status(ctx.rule.id, send(), 429, f"request {limit + 1} within the minute")
