"""Scenario checks of the marketplace service's API (volume 3, part B): keys and bearer tokens,
paths, standard parameter types, paging walks and resource values. OAuth lives in
``marketplace_oauth``.

Every number (limits, offsets, enums) comes from the contract's schemas or the rule's params.
Item arrays, the listing state and receipt status field names are assumptions recorded as
gaps (results, state, status); a check skips when the target shows none of them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.registry import for_rule
from conformance.services.marketplace.client import (
    CREATE,
    DELETE,
    LISTINGS,
    RECEIPTS,
    Api,
    operations,
    optional,
    refresh,
    refused,
    scoped_call,
    user_bearer,
)
from conformance.transport.model import Request

__all__: list[str] = []

# -- keys, bearer tokens, scopes -------------------------------------------------------------
@for_rule("marketplace.auth.key-accepted", "marketplace.auth.bearer-format", "marketplace.endpoint.shop-receipts")
def accepted(ctx: CheckContext) -> None:
    api, rule = Api(ctx), ctx.rule
    if rule.id == "marketplace.auth.key-accepted":
        api.page(LISTINGS)
    elif rule.id == "marketplace.auth.bearer-format":
        # On replay the recorded header is scrubbed; the recorded acceptance is what is rechecked.
        if ctx.target.name != "replay" and not re.match(rule.params["pattern"], api.bearer()):
            ctx.skip("USER_ID is not numeric, so no Bearer <USER_ID>.<ACCESS_TOKEN> can be formed")
        api.page(RECEIPTS)
    else:
        exchange, body = api.page(RECEIPTS)
        expect(isinstance(body.get("results"), list), rule.id, "receipts come without a results array",
               exchange=exchange, expected="count and results")


def _user_id(ctx: CheckContext) -> str:
    """USER_ID as configured, else the '<digits>.' prefix of a refreshed access token."""
    configured = ctx.target.credential("USER_ID")
    if configured:
        return configured
    match = re.match(r"Bearer ([0-9]+)\.", user_bearer(ctx, ctx.rule.id))
    if match is None:
        ctx.skip("USER_ID is not configured and the access token carries no '<user_id>.' prefix")
    assert match is not None
    return match.group(1)


@for_rule("marketplace.auth.bearer-required", "marketplace.auth.bearer-garbage")
def bearer_refused(ctx: CheckContext) -> None:
    rule = ctx.rule
    Api(ctx).page(LISTINGS)  # the key itself is good: the refusal below is about the bearer
    if rule.id == "marketplace.auth.bearer-required":
        cases = [(op, None) for op in operations(ctx)]
    else:
        # Values naming {USER_ID} carry the real user id and a never-issued token: a target
        # that trusts the '<user_id>.' prefix without looking the token up serves them.
        values = [v.format(USER_ID=_user_id(ctx)) if "{USER_ID}" in v else v for v in rule.params["values"]]
        cases = [(rule.operation or RECEIPTS, value) for value in values]
    for operation, value in cases:
        body = ctx.contract.request_example(operation) if operation.startswith("POST") else None
        exchange = scoped_call(ctx, operation, value, json_body=body or None)
        expect(refused(exchange), rule.id, f"{operation} with Authorization {value!r} answered "
               f"{exchange.response.status}", exchange=exchange, expected="a 4xx refusal")


@for_rule("marketplace.auth.scope-listings-w", "marketplace.auth.scope-transactions-r")
def scope_enforced(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.operation
    body = ctx.contract.request_example(rule.operation) if rule.method == "POST" else None
    limited_bearer = user_bearer(ctx, rule.id, "LIMITED_REFRESH_TOKEN")
    limited = scoped_call(ctx, rule.operation, limited_bearer, json_body=body or None)
    expect(refused(limited), rule.id, f"a token without {rule.params['scope']} was answered "
           f"{limited.response.status}", exchange=limited, expected="a 4xx refusal")
    full = scoped_call(ctx, rule.operation, user_bearer(ctx, rule.id), json_body=body or None)
    expect_status(rule.id, full, success_statuses(ctx.contract, rule.operation),
                  f"a token with {rule.params['scope']}")


# -- paths and hosts -------------------------------------------------------------------------
@for_rule("marketplace.endpoint.url-shape", "marketplace.versioning.v3-paths",
          "marketplace.versioning.equivalent-hosts")
def paths_and_hosts(ctx: CheckContext) -> None:
    api, rule = Api(ctx), ctx.rule
    if rule.id == "marketplace.versioning.equivalent-hosts":
        alt = optional(ctx, "ALT_BASE_URL")
        if alt is None:
            ctx.skip("needs CONFORMANCE_MARKETPLACE_ALT_BASE_URL (the second host name is not shown)")
        assert alt is not None
        first = api.call(LISTINGS)
        path = ctx.path("/listings", operation=LISTINGS)
        second = ctx.session.send(ctx.auth(Request.build("GET", alt.rstrip("/") + path)))
        expect(second.response.status == first.response.status and second.response.json() == first.response.json(),
               rule.id, "the second host answers the same request differently", exchange=second,
               expected=f"{first.response.status} with the same body as the first host")
        return
    if rule.id == "marketplace.versioning.v3-paths":
        refresh(ctx, rule.id)  # the token endpoint under /v3/public
        api.page(LISTINGS)  # an application operation under /v3/application
        return
    api.page(LISTINGS)
    api.page(RECEIPTS)
    # An empty form creates nothing (the fields are not shown); it must reach the operation.
    probe = api.form(CREATE, {})
    expect(probe.response.status not in (404, 405), rule.id, f"{CREATE} is not served there",
           exchange=probe, expected="the operation answers (any status but 404/405)")
    # deleteListingImage is left to its own rule: a 404 there may just mean "no such image".
    conflict = ctx.contract.conflicts[[c.id for c in ctx.contract.conflicts].index(
        "marketplace.conflict.listings-by-shop-path")]
    # The other reading is no operation of the contract: probed with the key alone.
    by_shop = ctx.session.send(ctx.auth(Request.build(
        "GET", ctx.path("/shop/{shop_id}/listings", operation=LISTINGS, shop_id=ctx.credential("SHOP_ID")))))
    shown = [conflict.alternatives[0]] + ([conflict.alternatives[1]] if 200 <= by_shop.response.status < 300 else [])
    ctx.observe(conflict.id, " and ".join(shown))


@for_rule("marketplace.endpoint.ids-in-path")
def ids_in_path(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.operation
    ids = dict(zip(rule.params["headers"], (ctx.credential(n) for n in ("SHOP_ID", "LISTING_ID", "LISTING_IMAGE_ID"))))
    template = "/".join(p for p in rule.path.split("/") if not p.startswith("{"))
    headers = {ctx.contract.settings["bearer"]["header"]: user_bearer(ctx, rule.id), **ids}
    exchange = ctx.session.send(ctx.auth(Request.build(rule.method, ctx.path(template, operation=rule.operation),
                                                       headers=headers)))
    expect(not 200 <= exchange.response.status < 300, rule.id, "ids sent as headers reached the operation",
           exchange=exchange, expected="no 2xx without the ids in the path")


@for_rule("marketplace.endpoint.delete-listing-image")
def delete_listing_image(ctx: CheckContext) -> None:
    api = Api(ctx)
    values = {"listing_id": ctx.credential("LISTING_ID"), "listing_image_id": ctx.credential("LISTING_IMAGE_ID")}
    first = api.call(DELETE, path_values=values)
    expect_status(ctx.rule.id, first, success_statuses(ctx.contract, DELETE), "deleting the configured image")
    again = api.call(DELETE, path_values=values)
    # A refusal is a 4xx; a 5xx is a crash, not "does not succeed".
    expect(refused(again), ctx.rule.id, f"deleting the deleted image again was answered {again.response.status}",
           exchange=again, expected="a 4xx refusal for an image already deleted")


# -- bodies ----------------------------------------------------------------------------------
@for_rule("marketplace.endpoint.create-draft-listing", "marketplace.endpoint.form-posts")
def form_posts(ctx: CheckContext) -> None:
    api, rule = Api(ctx), ctx.rule
    form = {k: str(v) for k, v in ctx.contract.request_example(CREATE).items()}
    why = "a urlencoded UTF-8 form with a listings_w token"
    if rule.id == "marketplace.endpoint.form-posts":
        refresh(ctx, rule.id)  # the token endpoint takes the charset=utf-8 form
        form = {k: v + " — café, 陶器" if k in ("title", "description") else v for k, v in form.items()}
        why = "a UTF-8 form whose title and description hold non-ASCII text"
    exchange = api.form(CREATE, form)
    expect_status(rule.id, exchange, success_statuses(ctx.contract, CREATE), why)
    if rule.id != "marketplace.endpoint.form-posts":
        return
    # Accepted is not enough: the text must be stored as sent (not decoded as another charset).
    try:
        created = exchange.response.json()
    except ValueError:
        created = None
    shown = [k for k in ("title", "description") if isinstance(created, dict) and k in created]
    if not shown:
        ctx.skip("the answer shows no title or description of the created listing (body and fields are "
                 "not shown: gap resource-fields), so the stored text cannot be compared")
    assert isinstance(created, dict)
    for key in shown:
        expect(created[key] == form[key], rule.id, f"the created listing's {key} is {created[key]!r}",
               exchange=exchange, expected=f"{form[key]!r}, the UTF-8 text sent")


@for_rule("marketplace.endpoint.utf8-bodies")
def utf8_bodies(ctx: CheckContext) -> None:
    api = Api(ctx)
    exchanges = [api.call(op) for op in operations(ctx) if not op.startswith("POST")]
    exchanges.append(refresh(ctx, ctx.rule.id)[0])
    exchanges.append(api.call(LISTINGS, params={"state": "zz-not-listed"}))  # an error body too
    for exchange in exchanges:
        ctype = exchange.response.header("content-type") or ""
        charset = re.search(r"charset=\"?([\w-]+)", ctype, re.I)
        expect(charset is None or charset.group(1).lower() in ("utf-8", "utf8"), ctx.rule.id,
               f"declared {ctype!r}", exchange=exchange, expected="charset=utf-8 or none")
        try:
            exchange.response.body.decode("utf-8")
        except UnicodeDecodeError:
            expect(False, ctx.rule.id, "the body is not valid UTF-8", exchange=exchange)


# -- standard parameter types ----------------------------------------------------------------
def _typed_parameters(ctx: CheckContext, kind: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for operation in ctx.contract.operations():
        for param in ctx.contract.operation(operation).get("parameters", []):
            if "$ref" in param:
                param = ctx.contract.openapi["components"]["parameters"][param["$ref"].rsplit("/", 1)[-1]]
            schema = ctx.contract.deref(param.get("schema", {}))
            declared = schema.get("type")
            types: list[Any] = declared if isinstance(declared, list) else [declared]
            if kind in types:
                out.append((operation, param))
    return out


def _nullable_fields(node: Any, place: str = "") -> list[str]:
    if isinstance(node, dict):
        kind = node.get("type")
        own = [place] if (isinstance(kind, list) and "null" in kind) or node.get("nullable") is True else []
        return own + [f for k, v in node.items() for f in _nullable_fields(v, f"{place}/{k}")]
    if isinstance(node, list):
        return [f for i, v in enumerate(node) for f in _nullable_fields(v, f"{place}/{i}")]
    return []


@for_rule("marketplace.types.integer", "marketplace.types.array-comma-separated",
          "marketplace.types.boolean-spellings", "marketplace.types.nullable")
def typed_parameters(ctx: CheckContext) -> None:
    api, rule = Api(ctx), ctx.rule
    kind = {"marketplace.types.integer": "integer", "marketplace.types.array-comma-separated": "array",
            "marketplace.types.boolean-spellings": "boolean", "marketplace.types.nullable": "null"}[rule.id]
    if kind == "null":
        # Nullable applies to response fields; where the contract allows null, the schema checks
        # of marketplace.generic.responses-documented already accept it.
        nullable = _nullable_fields(ctx.contract.openapi)
        ctx.skip("no documented field is nullable (gap marketplace.gap.typed-parameters)" if not nullable else
                 f"nullable fields {', '.join(nullable)} are covered by marketplace.generic.responses-documented")
    found = [(op, p) for op, p in _typed_parameters(ctx, kind) if op in operations(ctx) or kind != "integer"]
    if not found:
        ctx.skip(f"no documented parameter is of type {kind}, so the convention applies to nothing yet "
                 "(gap marketplace.gap.typed-parameters)")
    ok = success_statuses(ctx.contract, LISTINGS)
    for operation, param in found:
        if kind == "integer":
            # The control: a valid integer is accepted, so refusing the parameter outright fails.
            schema = ctx.contract.deref(param.get("schema", {}))
            valid = schema.get("default", schema.get("minimum", 0))
            expect_status(rule.id, api.call(operation, params={param["name"]: valid}),
                          success_statuses(ctx.contract, operation), f"{param['name']}={valid} (an integer)")
            for value in rule.params["values"]:
                exchange = api.call(operation, params={param["name"]: value})
                expect(refused(exchange), rule.id, f"{param['name']}={value!r} (not an integer) was answered "
                       f"{exchange.response.status}", exchange=exchange, expected="a 4xx refusal")
        elif kind == "boolean":
            for value in rule.params["values"]:
                expect_status(rule.id, api.call(operation, params={param["name"]: value}), ok,
                              f"{param['name']}={value}")
        elif kind == "array":
            values = (ctx.contract.deref(param["schema"]).get("items") or {}).get("enum") or []
            expect_status(rule.id, api.call(operation, params={param["name"]: ",".join(values)}), ok,
                          f"{param['name']} as comma-separated values")


class _Fraction(float):
    """A JSON number with a fraction or exponent, as the text had it."""


@for_rule("marketplace.types.number-as-string")
def number_as_string(ctx: CheckContext) -> None:
    api = Api(ctx)
    for operation in operations(ctx):
        exchange = api.call(operation, params={"limit": ctx.contract.where_schema(operation, "query.limit")["maximum"]})
        expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation),
                      f"{operation} at the largest limit (the body to inspect)")
        try:
            body = json.loads(exchange.response.body, parse_float=_Fraction)
        except ValueError:
            expect(False, ctx.rule.id, "the body is not JSON", exchange=exchange)
        stack: list[tuple[str, Any]] = [("", body)]
        while stack:
            place, node = stack.pop()
            expect(not isinstance(node, _Fraction), ctx.rule.id, f"{place or '(body)'} is the JSON number {node}",
                   exchange=exchange, expected="numbers of type number returned as strings")
            if isinstance(node, dict):
                stack += [(f"{place}.{k}", v) for k, v in node.items()]
            elif isinstance(node, list):
                stack += [(f"{place}[{i}]", v) for i, v in enumerate(node)]

