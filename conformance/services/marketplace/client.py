"""What the marketplace checks share: operations, the OAuth client's configuration, the token
source (refresh grant), calls with the shop in the path, and record walks.

Credentials are placed by ``ctx.call`` from the contract's security schemes (``x-api-key`` on
every operation, the bearer on scoped ones); nothing here writes a credential header.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from conformance.auth.oauth import OAuthClient, client_for
from conformance.checks.context import CheckContext
from conformance.checks.examples import setting
from conformance.checks.expect import expect_json_schema, expect_status, success_statuses
from conformance.checks.paging import walk
from conformance.transport.model import Exchange

__all__ = ["CONNECT", "CREATE", "DELETE", "LISTINGS", "RECEIPTS", "TOKEN", "call", "form_post", "form_type",
           "items", "items_field", "member", "oauth", "operations", "page", "records", "schema_enum", "setting",
           "token_source"]

TOKEN = "POST /oauth/token"
CONNECT = "GET /oauth/connect"
LISTINGS = "GET /listings"
RECEIPTS = "GET /{shop_id}/receipts"
CREATE = "POST /{shop_id}/listings"
DELETE = "DELETE /shop/{shop_id}/listings/{listing_id}/images/{listing_image_id}"


def form_type(ctx: CheckContext) -> str:
    enc = ctx.contract.openapi["x-body-encoding"]
    return f"{enc['form']}; charset={enc['charset']}"


def oauth(ctx: CheckContext) -> OAuthClient:
    """The harness's OAuth client as the contract configures it (the scheme's x-client: client_id
    is the app key, CLIENT_ID when configured apart; forms are UTF-8; /oauth/connect on AUTH_URL)."""
    return client_for(ctx)


def token_source(ctx: CheckContext, name: str, source: str) -> str:
    """ACCESS_TOKEN from a configured refresh token (the refresh grant; its parameters are not
    shown, gap refresh-request: RFC 6749 section 6 plus client_id)."""
    return oauth(ctx).obtain(ctx.credential(source))


def call(ctx: CheckContext, operation: str, **kwargs: Any) -> Exchange:
    """``ctx.call`` with the configured shop in the path where the operation has one."""
    values = {"shop_id": ctx.credential("SHOP_ID")} if "{shop_id}" in operation else {}
    values.update(kwargs.pop("path_values", None) or {})
    return ctx.call(operation, path_values=values, **kwargs)


def form_post(ctx: CheckContext, operation: str, form: dict[str, str], **kwargs: Any) -> Exchange:
    """A UTF-8 urlencoded form post, as the document says form posts are."""
    return call(ctx, operation, content=urlencode(form).encode("utf-8"), headers={"content-type": form_type(ctx)},
                **kwargs)


def page(ctx: CheckContext, operation: str, **params: Any) -> tuple[Exchange, dict[str, Any]]:
    """One page; it must be a 2xx collection valid under the contract."""
    exchange = call(ctx, operation, params=params or None)
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation),
                  f"{operation} {params or ''}".strip())
    schema = ctx.contract.response_schema(operation, 200)
    assert schema is not None
    return exchange, expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, "collection")


def member(ctx: CheckContext, name: str) -> str:
    """A member name from a rule's params: ``{SETTING}`` is that target setting (the name is not
    shown: gap field-names), anything else is the name itself."""
    return setting(ctx, name[1:-1]) if name.startswith("{") and name.endswith("}") else name


def items_field(ctx: CheckContext) -> str:
    """The member holding a collection's records: not shown (gap field-names), setting ITEMS_FIELD."""
    return setting(ctx, "ITEMS_FIELD")


def items(ctx: CheckContext, body: dict[str, Any]) -> list[dict[str, Any]]:
    name = items_field(ctx)
    found = body.get(name)
    if not isinstance(found, list):
        ctx.skip(f"the collection has no '{name}' array (its name is not shown: gap field-names; "
                 "setting ITEMS_FIELD)")
    return [i for i in found if isinstance(i, dict)]


def records(ctx: CheckContext, operation: str, **filters: Any) -> list[tuple[dict[str, Any], Exchange]]:
    """Every record of a filter: an offset walk at the largest page size, as far as offset's
    maximum reaches (``checks.paging.walk``)."""
    limit = ctx.contract.where_schema(operation, "query.limit")["maximum"]
    offset_max = int(ctx.contract.where_schema(operation, "query.offset")["maximum"])

    def fetch(query: dict[str, Any]) -> Exchange:
        exchange, body = page(ctx, operation, **filters, **query)
        items(ctx, body)  # skips where the collection has no ITEMS_FIELD array
        return exchange

    params = {"style": "offset", "offset_param": "offset", "limit_param": "limit", "limit": limit,
              "count_field": "count", "items_field": items_field(ctx), "max_pages": offset_max // limit + 1}
    return [(item, p.exchange) for p in walk(ctx, fetch, params).pages for item in p.items if isinstance(item, dict)]


def operations(ctx: CheckContext) -> list[str]:
    return list(ctx.rule.params.get("operations") or [ctx.rule.operation])


def schema_enum(ctx: CheckContext, name: str) -> list[str]:
    return list(ctx.contract.openapi["components"]["schemas"][name]["enum"])
