"""What the marketplace checks share: the client side of keys, user tokens and calls.

User tokens come from a pre-issued REFRESH_TOKEN through the refresh grant (how an HTTP target
without automatic consent is tested); the PKCE flow lives in ``marketplace_oauth``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect_json_schema, expect_status, success_statuses
from conformance.recording.scrub import REDACTED
from conformance.transport.model import Exchange, Request

__all__ = ["CREATE", "DELETE", "LISTINGS", "MISSING", "RECEIPTS", "TOKEN", "Api", "bearer_for", "client_id",
           "items", "operations", "optional", "refresh", "refused", "schema_enum", "scoped_call",
           "token_body", "token_request", "user_bearer"]

TOKEN = "POST /oauth/token"
LISTINGS = "GET /listings"
RECEIPTS = "GET /shop/{shop_id}/receipts"
CREATE = "POST /shop/{shop_id}/listings"
DELETE = "DELETE /shop/{shop_id}/listings/{listing_id}/images/{listing_image_id}"
MISSING = object()  # a form or query member to leave out
_USER_PREFIX = re.compile(r"^[0-9]+\.")

# -- small helpers ---------------------------------------------------------------------------
def optional(ctx: CheckContext, name: str) -> str | None:
    """An optional credential; the replay placeholder counts as absent (it is no URL)."""
    value = ctx.target.credential(name)
    return None if not value or (value == REDACTED and ctx.target.name == "replay") else value


def refused(exchange: Exchange) -> bool:
    # The document gives no status for any refusal (gap error-body-and-statuses): any 4xx.
    return 400 <= exchange.response.status < 500


def client_id(ctx: CheckContext) -> str:
    # "client_id (app key)": CLIENT_ID when configured apart, else the keystring.
    return ctx.target.credential("CLIENT_ID") or ctx.credential("API_KEY")


def form_type(ctx: CheckContext) -> str:
    enc = ctx.contract.openapi["x-body-encoding"]
    return f"{enc['form']}; charset={enc['charset']}"


def token_request(ctx: CheckContext, form: dict[str, Any]) -> Exchange:
    """POST {base_url}/v3/public/oauth/token as a UTF-8 form; MISSING members are left out."""
    fields = {k: v for k, v in form.items() if v is not MISSING}
    request = Request.build("POST", ctx.path("/oauth/token", operation=TOKEN),
                            content=urlencode(fields).encode("utf-8"),
                            headers={"content-type": form_type(ctx)})
    return ctx.session.send_with_backoff(ctx.auth(request))


def token_body(ctx: CheckContext, rule_id: str, exchange: Exchange, why: str) -> dict[str, Any]:
    expect_status(rule_id, exchange, success_statuses(ctx.contract, TOKEN), why)
    schema = ctx.contract.response_schema(TOKEN, 200)
    assert schema is not None
    body: dict[str, Any] = expect_json_schema(rule_id, ctx.contract, exchange, schema, "token response")
    return body


def refresh(ctx: CheckContext, rule_id: str, credential: str = "REFRESH_TOKEN") -> tuple[Exchange, dict[str, Any]]:
    # Refresh parameters are not shown (gap refresh-request): RFC 6749 section 6 plus client_id.
    exchange = token_request(ctx, {"grant_type": "refresh_token", "refresh_token": ctx.credential(credential),
                                   "client_id": client_id(ctx)})
    return exchange, token_body(ctx, rule_id, exchange, f"refresh_token grant with {credential}")


def bearer_for(ctx: CheckContext, access_token: str) -> str:
    """Bearer <USER_ID>.<ACCESS_TOKEN>; a token that already starts '<digits>.' is sent whole."""
    if _USER_PREFIX.match(access_token):
        return f"Bearer {access_token}"
    fmt = ctx.contract.settings["bearer"]["format"]
    return str(fmt.format(USER_ID=ctx.credential("USER_ID"), ACCESS_TOKEN=access_token))


def user_bearer(ctx: CheckContext, rule_id: str, credential: str = "REFRESH_TOKEN") -> str:
    return bearer_for(ctx, refresh(ctx, rule_id, credential)[1]["access_token"])


def scoped_call(ctx: CheckContext, operation: str, bearer: str | None, **kwargs: Any) -> Exchange:
    """Call an operation with x-api-key and, when given, the Authorization header."""
    headers = dict(kwargs.pop("headers", None) or {})
    if bearer is not None:
        headers[ctx.contract.settings["bearer"]["header"]] = bearer
    values = {"shop_id": ctx.credential("SHOP_ID")} if "{shop_id}" in operation else {}
    values.update(kwargs.pop("path_values", None) or {})
    return ctx.call(operation, path_values=values, headers=headers, **kwargs)


class Api:
    """Calls for one check: the bearer token is fetched once, and only for scoped operations."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self._token: str | None = None

    def scoped(self, operation: str) -> bool:
        security = self.ctx.contract.operation(operation).get("security") or []
        return any("oauth2" in requirement for requirement in security)

    def bearer(self) -> str:
        if self._token is None:
            self._token = user_bearer(self.ctx, self.ctx.rule.id)
        return self._token

    def call(self, operation: str, **kwargs: Any) -> Exchange:
        return scoped_call(self.ctx, operation, self.bearer() if self.scoped(operation) else None, **kwargs)

    def form(self, operation: str, form: dict[str, str], **kwargs: Any) -> Exchange:
        headers = {"content-type": form_type(self.ctx)}
        return self.call(operation, content=urlencode(form).encode("utf-8"), headers=headers, **kwargs)

    def page(self, operation: str, **params: Any) -> tuple[Exchange, dict[str, Any]]:
        """One page; it must be a 2xx collection valid under the contract."""
        exchange = self.call(operation, params=params or None)
        expect_status(self.ctx.rule.id, exchange, success_statuses(self.ctx.contract, operation),
                      f"{operation} {params or ''}".strip())
        schema = self.ctx.contract.response_schema(operation, 200)
        assert schema is not None
        return exchange, expect_json_schema(self.ctx.rule.id, self.ctx.contract, exchange, schema, "collection")


def items(ctx: CheckContext, body: dict[str, Any]) -> list[dict[str, Any]]:
    items = body.get("results")
    if not isinstance(items, list):
        ctx.skip("the collection has no 'results' array (its name is not shown: gap field-names)")
    return [i for i in items if isinstance(i, dict)]


def operations(ctx: CheckContext) -> list[str]:
    return list(ctx.rule.params.get("operations") or [ctx.rule.operation])


def schema_enum(ctx: CheckContext, name: str) -> list[str]:
    return list(ctx.contract.openapi["components"]["schemas"][name]["enum"])
