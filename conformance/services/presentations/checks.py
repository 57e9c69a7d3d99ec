"""Scenario checks of the presentation-generation service (volume 1, part B): the warning of a
web image source. The lifecycle of a generation (polled to a final state) is the core
``lifecycle`` check, the burst the core ``rate-limit``, the folderIds count the core limit check
over the ids of the FOLDER_IDS setting. Every number comes from the rule's params or the
contract's schemas.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.registry import named
from conformance.transport.model import Exchange

__all__: list[str] = []

CREATE = "POST /generations"


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
