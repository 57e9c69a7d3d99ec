"""Scenario checks of the marketplace service's API (volume 3, part B): keys and bearer tokens,
paths, bodies and standard parameter types. OAuth is the core ``checks.oauth``; paging and
resource values in ``paging_checks``; the refusals are generic ``auth`` and ``refused-edit`` rules.

Every number (limits, enums) comes from the contract's schemas or the rule's params.
"""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.marketplace.client import (
    CREATE,
    LISTINGS,
    RECEIPTS,
    call,
    form_post,
    page,
)
from conformance.transport.model import Request

__all__: list[str] = []

_STRINGS = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_OPERATIONS = {"operations": _STRINGS}


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
