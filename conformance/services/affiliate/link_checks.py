"""Scenario check of smart links: PUT replace semantics (create round trips are the core
read-after-write check, the routing_value condition the core body-cases, relationship values the
core values-accepted)."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.affiliate.common import ok

__all__: list[str] = []

CREATE = "POST /v1/networks/campaigns"
GET = "GET /v1/networks/campaigns/{campaignId}"
PUT = "PUT /v1/networks/campaigns/{campaignId}"


def _create(ctx: CheckContext, body: dict[str, Any], why: str) -> dict[str, Any]:
    created: dict[str, Any] = ok(ctx, ctx.call(CREATE, json_body=body), CREATE, why)
    return created


def _campaign_id(ctx: CheckContext, link: dict[str, Any]) -> dict[str, str]:
    return {"campaignId": str(link["network_campaign_id"])}


@named("affiliate/put-replaces", params={"field": {"type": "string"}, "value": {}}, required=("field", "value"))
def put_replaces(ctx: CheckContext) -> None:
    field, value = ctx.rule.params["field"], ctx.rule.params["value"]
    example = ctx.contract.request_example(CREATE)
    example.pop(field, None)
    default = _create(ctx, example, f"a smart link without {field}").get(field)
    if default == value:
        ctx.skip(f"the target's default {field} is the probe value: the PUT would show nothing")
    link = _create(ctx, {**example, field: value}, f"a smart link with {field}")
    if link.get(field) != value:
        ctx.skip(f"the created smart link does not show {field} as sent (create-roundtrip's concern)")
    ids = _campaign_id(ctx, link)
    # "All fields": every member of the request schema the link shows (ids and times are the
    # server's). The control sends them all; the probe the same without the field.
    writable = ctx.contract.deref(ctx.contract.request_schema(PUT)).get("properties", {})
    full = {k: v for k, v in link.items() if k in writable}
    ok(ctx, ctx.call(PUT, json_body=full, path_values=ids), PUT, f"a PUT with every field, {field} included")
    omitted = ctx.call(PUT, json_body={k: v for k, v in full.items() if k != field}, path_values=ids)
    if 400 <= omitted.response.status < 500:  # "all fields must be sent"
        ctx.observed(0)
        return
    ok(ctx, omitted, PUT, f"a PUT omitting {field}")
    exchange = ctx.call(GET, path_values=ids)
    after = ok(ctx, exchange, GET, "the smart link after the PUT").get(field)
    expect(after == default, ctx.rule.id, f"after a PUT without {field}, {field} is {after!r}",
           exchange=exchange, expected=f"the default {default!r} (what a create without it gives), or a refusal")
    ctx.observed(1)
