"""Scenario checks of the marketplace service's API (volume 3, part B): keys and bearer tokens,
paths, bodies and standard parameter types. OAuth is the core ``checks.oauth``; paging and
resource values in ``paging_checks``; the refusals are generic ``auth`` and ``refused-edit`` rules.

Every number (limits, enums) comes from the contract's schemas or the rule's params.
"""

from __future__ import annotations

import re

from conformance.auth.variants import scheme_location
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.registry import named
from conformance.services.marketplace.client import (
    CREATE,
    DELETE,
    LISTINGS,
    RECEIPTS,
    call,
    form_post,
    oauth,
    page,
)
from conformance.transport.model import Request

__all__: list[str] = []

_STRINGS = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_OPERATIONS = {"operations": _STRINGS}


# -- keys, bearer tokens, scopes -------------------------------------------------------------
@named("marketplace/bearer-format", params={"pattern": {"type": "string"}}, required=("pattern",))
def bearer_format(ctx: CheckContext) -> None:
    # Where credentials are placeholders (replay), the recorded acceptance is what is rechecked.
    if ctx.can.real_credentials:
        where, name = scheme_location(oauth(ctx).scheme)
        sent = ctx.auth(Request.build("GET", "/"), RECEIPTS)
        value = sent.header(name) if where == "header" else sent.params.get(name)
        if not re.match(ctx.rule.params["pattern"], value or ""):
            ctx.skip("USER_ID is not numeric, so no Bearer <USER_ID>.<ACCESS_TOKEN> can be formed")
    page(ctx, RECEIPTS)


@named("marketplace/url-shape")
def url_shape(ctx: CheckContext) -> None:
    page(ctx, RECEIPTS)
    # An empty form creates nothing (the fields are not shown); it must reach the operation.
    probe = form_post(ctx, CREATE, {})
    expect(probe.response.status not in (404, 405), ctx.rule.id, f"{CREATE} is not served there",
           exchange=probe, expected="the operation answers (any status but 404/405)")
    # deleteListingImage is left to its own rule: a 404 there may just mean "no such image".
    # getListingsByShop: both readings of the conflict are tried, either one served passes. The
    # shop-scoped reading is no operation of the contract: probed with what getListingsByShop takes.
    as_shown = call(ctx, LISTINGS)
    by_shop = ctx.send(ctx.auth(Request.build(
        "GET", ctx.path("/shop/{shop_id}/listings", operation=LISTINGS, shop_id=ctx.credential("SHOP_ID"))),
        LISTINGS), backoff=False)
    served = [i for i, ex in enumerate((as_shown, by_shop)) if 200 <= ex.response.status < 300]
    expect(bool(served), ctx.rule.id, "getListingsByShop is served at neither reading of its path", exchange=as_shown,
           expected="a 2xx at /listings or at /shop/{shop_id}/listings")
    ctx.observed(*served)


@named("marketplace/ids-in-path", params={"headers": _STRINGS}, required=("headers",))
def ids_in_path(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.operation
    values = (ctx.credential(n) for n in ("SHOP_ID", "LISTING_ID", "LISTING_IMAGE_ID"))
    ids = dict(zip(rule.params["headers"], values))
    template = "/".join(p for p in rule.path.split("/") if not p.startswith("{"))
    request = Request.build(rule.method, ctx.path(template, operation=rule.operation), headers=ids)
    exchange = ctx.send(ctx.auth(request, rule.operation))
    expect(not 200 <= exchange.response.status < 300, rule.id, "ids sent as headers reached the operation",
           exchange=exchange, expected="no 2xx without the ids in the path")


@named("marketplace/delete-listing-image")
def delete_listing_image(ctx: CheckContext) -> None:
    values = {"listing_id": ctx.credential("LISTING_ID"), "listing_image_id": ctx.credential("LISTING_IMAGE_ID")}
    first = call(ctx, DELETE, path_values=values)
    expect_status(ctx.rule.id, first, success_statuses(ctx.contract, DELETE), "deleting the configured image")
    # A second delete may be refused or succeed idempotently (not shown): observed, but never a 5xx.
    again = call(ctx, DELETE, path_values=values)
    expect(again.response.status < 500, ctx.rule.id, "deleting the deleted image again crashed", exchange=again,
           expected="any answer below 500")
    ctx.observed(f"a second delete answered {again.response.status}")
