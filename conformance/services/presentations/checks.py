"""Scenario checks of the presentation-generation service (volume 1, part B).

Waiting goes through ``ctx.sleep``: simulated time on the simulator, real time (scaled) over
HTTP, none on replay. Every number comes from the rule's params or the contract's schemas.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.boundary import baseline, send_variant
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.refusal import refused_statuses
from conformance.checks.registry import named
from conformance.errors import SkipKind
from conformance.transport.model import Exchange

__all__: list[str] = []

CREATE = "POST /generations"
STATUS = "GET /generations/{generationId}"
FINAL = ("completed", "failed")

_POLLING = {"poll_seconds": {"type": "number", "exclusiveMinimum": 0},
            "ceiling_seconds": {"type": "number", "exclusiveMinimum": 0}}
_BURST = {"max_burst_requests": {"type": "integer", "minimum": 1}}


def _create(ctx: CheckContext, rule_id: str, **extra: Any) -> tuple[Exchange, str]:
    body = {**ctx.contract.request_example(CREATE), **extra}
    exchange = ctx.call(CREATE, json_body=body)
    expect_status(rule_id, exchange, success_statuses(ctx.contract, CREATE), "starting a generation")
    ctx.observed(str(exchange.response.status))
    if exchange.response.status == 201 and not exchange.response.body:
        # The documented bodiless 201 (conflict create-status): a conforming answer that names
        # no generationId, so nothing downstream can be polled.
        ctx.skip("the target answers a create with the bodiless 201 the document lists; with no "
                 "generationId there is no generation to poll")
    payload = exchange.response.json()
    expect(isinstance(payload, dict) and isinstance(payload.get("generationId"), str), rule_id,
           "create response carries no generationId, so the generation cannot be polled",
           exchange=exchange, expected="{generationId: string}")
    return exchange, payload["generationId"]


def _poll(ctx: CheckContext, rule_id: str, generation_id: str) -> tuple[Exchange, dict[str, Any]]:
    """Poll at the advised interval until a final state; at the advised ceiling the harness, like
    the client the document advises, stops: no deadline is documented, so that is a skip."""
    # The document's client advice, which the harness follows as a client; every polling rule
    # carries it (rules.yaml writes the numbers once, under the anchor &polling).
    interval, ceiling = ctx.rule.params["poll_seconds"], ctx.rule.params["ceiling_seconds"]
    waited = 0.0
    schema = ctx.contract.response_schema(STATUS, 200)
    assert schema is not None
    while True:
        exchange = ctx.call(STATUS, path_values={"generationId": generation_id})
        expect_status(rule_id, exchange, 200, "polling a generation")
        body = expect_json_schema(rule_id, ctx.contract, exchange, schema, "Generation")
        if body["status"] in FINAL:
            return exchange, body
        if waited >= ceiling:
            ctx.skip(f"generation {generation_id} still {body['status']} after the suggested {ceiling} s "
                     "ceiling (client advice; no deadline is documented: gap generation-duration)")
        ctx.sleep(interval)
        waited += interval


def _completed(ctx: CheckContext, rule_id: str, **extra: Any) -> tuple[Exchange, dict[str, Any]]:
    _, generation_id = _create(ctx, rule_id, **extra)
    exchange, body = _poll(ctx, rule_id, generation_id)
    expect(body["status"] == "completed", rule_id, "the example generation did not complete",
           exchange=exchange, expected="status completed")
    return exchange, body


@named("presentations/reaches-final", params=_POLLING, required=("poll_seconds", "ceiling_seconds"))
def reaches_final(ctx: CheckContext) -> None:
    _, generation_id = _create(ctx, ctx.rule.id)
    _poll(ctx, ctx.rule.id, generation_id)


@named("presentations/generation-shape", params=_POLLING, required=("poll_seconds", "ceiling_seconds"))
def generation_shape(ctx: CheckContext) -> None:
    _, generation_id = _create(ctx, ctx.rule.id)
    schema = ctx.contract.response_schema(STATUS, 200)
    assert schema is not None
    first = ctx.call(STATUS, path_values={"generationId": generation_id})
    expect_status(ctx.rule.id, first, 200, "status of a new generation")
    body = expect_json_schema(ctx.rule.id, ctx.contract, first, schema, "Generation")
    expect(body["generationId"] == generation_id, ctx.rule.id, "status names another generation",
           exchange=first, expected=f"generationId {generation_id}")
    _poll(ctx, ctx.rule.id, generation_id)  # the final form is validated on the way


@named("presentations/warnings-only-on-create", params=_POLLING, required=("poll_seconds", "ceiling_seconds"))
def warnings_only_on_create(ctx: CheckContext) -> None:
    """The Generation table says warnings is "only in the create response": every poll of the
    status endpoint, first to final, carries no warnings member."""
    _, generation_id = _create(ctx, ctx.rule.id)
    first = ctx.call(STATUS, path_values={"generationId": generation_id})
    expect_status(ctx.rule.id, first, 200, "status of a new generation")
    polls = [(first, first.response.json())]
    polls.append(_poll(ctx, ctx.rule.id, generation_id))
    for exchange, body in polls:
        expect(not (isinstance(body, dict) and "warnings" in body), ctx.rule.id,
               "the status endpoint's Generation carries warnings (only in the create response)",
               exchange=exchange, expected="a Generation without warnings")


def _stays(ctx: CheckContext, body: dict[str, Any]) -> None:
    interval = ctx.rule.params["poll_seconds"]
    for _ in range(ctx.rule.params["extra_polls"]):
        ctx.sleep(interval)
        again = ctx.call(STATUS, path_values={"generationId": body["generationId"]})
        expect_status(ctx.rule.id, again, 200, f"polling a {body['status']} generation again")
        later = again.response.json()
        # "completed and failed are final": the status holds. The rest of the Generation (a
        # re-signed exportUrl, say) is not said to be repeated byte for byte (variant
        # re-signed-export-url).
        expect(isinstance(later, dict) and later.get("status") == body["status"], ctx.rule.id,
               f"a {body['status']} generation left its final state on a later poll", exchange=again,
               expected=f"status {body['status']} again")


@named("presentations/final-is-final", params={**_POLLING, "extra_polls": {"type": "integer", "minimum": 1}},
       required=("poll_seconds", "ceiling_seconds", "extra_polls"))
def final_is_final(ctx: CheckContext) -> None:
    _, completed = _completed(ctx, ctx.rule.id)
    _stays(ctx, completed)
    # Both final states are named final; the failed half needs an input the target fails.
    prefix = ctx.credential("FAIL_INPUT")
    _, generation_id = _create(ctx, ctx.rule.id, inputText=prefix + " conformance failure probe")
    exchange, failed = _poll(ctx, ctx.rule.id, generation_id)
    expect(failed["status"] == "failed", ctx.rule.id, "the failing input did not fail",
           exchange=exchange, expected="status failed")
    _stays(ctx, failed)


@named("presentations/completed-fields", params=_POLLING, required=("poll_seconds", "ceiling_seconds"))
def completed_fields(ctx: CheckContext) -> None:
    exchange, body = _completed(ctx, ctx.rule.id)
    url = body.get("gammaUrl")
    expect(isinstance(url, str) and url.startswith(("http://", "https://")), ctx.rule.id,
           "completed generation has no gammaUrl link", exchange=exchange, expected="gammaUrl: URL")
    expect(isinstance(body.get("credits"), dict), ctx.rule.id,
           "completed generation reports no credits", exchange=exchange, expected="credits object")


@named("presentations/export-url", params=_POLLING, required=("poll_seconds", "ceiling_seconds"))
def export_url(ctx: CheckContext) -> None:
    formats = ctx.contract.where_schema(CREATE, "body.exportAs")["enum"]
    for export in formats:
        exchange, body = _completed(ctx, ctx.rule.id, exportAs=export)
        url = body.get("exportUrl")
        expect(isinstance(url, str) and url.startswith(("http://", "https://")), ctx.rule.id,
               f"completed generation with exportAs={export} has no exportUrl",
               exchange=exchange, expected="exportUrl: URL")


@named("presentations/failed-error", params=_POLLING, required=("poll_seconds", "ceiling_seconds"))
def failed_error(ctx: CheckContext) -> None:
    prefix = ctx.credential("FAIL_INPUT")
    _, generation_id = _create(ctx, ctx.rule.id, inputText=prefix + " conformance failure probe")
    exchange, body = _poll(ctx, ctx.rule.id, generation_id)
    expect(body["status"] == "failed", ctx.rule.id, "the failing input did not fail",
           exchange=exchange, expected="status failed")
    expect(isinstance(body.get("error"), dict), ctx.rule.id, "failed generation has no error object",
           exchange=exchange, expected="error: object")


@named("presentations/web-source-warning",
       params={"model": {"type": "string"}, "names": {"type": "string"}}, required=("model", "names"))
def web_source_warning(ctx: CheckContext) -> None:
    params = ctx.rule.params
    # The web source is not named by the document: its name is a target setting.
    image = {"source": ctx.credential("WEB_IMAGE_SOURCE"), "model": params["model"]}
    exchange, _ = _create(ctx, ctx.rule.id, imageOptions=image)
    warnings = (exchange.response.json() or {}).get("warnings")
    expect(isinstance(warnings, str) and params["names"] in warnings, ctx.rule.id,
           "a web image source with a model gave no warning naming the ignored parameter",
           exchange=exchange, expected=f"warnings naming '{params['names']}'")


@named("presentations/burst", params=_BURST, required=tuple(_BURST))
def burst(ctx: CheckContext) -> None:
    """Faster than the limit: 429. When a limited client is served again is not shown (the
    exponential back-off is advice to clients), so the check ends at the first 429."""
    params = ctx.rule.params
    assert ctx.rule.operation
    for _ in range(params["max_burst_requests"]):
        exchange = ctx.call(ctx.rule.operation, backoff=False)
        if exchange.response.status == 429:
            return
        expect_status(ctx.rule.id, exchange, {200, 429}, "a request in a burst")
    ctx.skip(f"no 429 within {params['max_burst_requests']} requests: the ceilings are undocumented "
             "and were not reached (bounded probe)")


@named("presentations/folder-ids-count")
def folder_ids_count(ctx: CheckContext) -> None:
    """folderIds "at most 10; ids from GET /folders": ten ids the target accepts (FOLDER_IDS;
    whether an unlisted id is refused is not shown, gap lookup-ids-validated) are accepted, and
    eleven are refused. Without an eleventh id of the setting, the eleventh is made up: it is
    past the bound either way."""
    rule = ctx.rule
    assert rule.operation and rule.where
    bound = ctx.contract.where_schema(rule.operation, rule.where)["maxItems"]
    ids = [i.strip() for i in ctx.credential("FOLDER_IDS").split(",") if i.strip()]
    if len(ids) < bound:
        ctx.skip(f"FOLDER_IDS names {len(ids)} folder ids; the accepted edge needs {bound}",
                 SkipKind.NOT_EXERCISED)
    over = ids[:bound + 1] if len(ids) > bound else ids[:bound] + ["conformance-eleventh-folder"]
    baseline(ctx, rule.operation)
    ok = success_statuses(ctx.contract, rule.operation)
    expect_status(rule.id, send_variant(ctx, ids[:bound]), ok,
                  f"{rule.operation}: {bound} folder ids of FOLDER_IDS must be accepted")
    expect_status(rule.id, send_variant(ctx, over), refused_statuses(ctx),
                  f"{rule.operation}: {bound + 1} folder ids must be refused")
