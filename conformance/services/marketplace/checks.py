"""Scenario checks of the marketplace service's API (volume 3, part B): keys and bearer tokens,
paths, bodies and standard parameter types. OAuth is the core ``checks.oauth``; paging and
resource values in ``paging_checks``; the refusals are generic ``auth`` and ``refused-edit`` rules.

Every number (limits, enums) comes from the contract's schemas or the rule's params.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from conformance.auth.variants import scheme_location
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import named
from conformance.services.marketplace.client import (
    CREATE,
    DELETE,
    LISTINGS,
    RECEIPTS,
    call,
    form_post,
    oauth,
    operations,
    page,
)
from conformance.transport.jsonbody import loads
from conformance.transport.model import Exchange, Request

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


# -- bodies ----------------------------------------------------------------------------------
def _example_form(ctx: CheckContext) -> dict[str, str]:
    return {k: str(v) for k, v in ctx.contract.request_example(CREATE).items()}


def accepted_create(ctx: CheckContext, exchange: Exchange, why: str) -> None:
    """createDraftListing accepted the form. Its fields are not shown (gap create-fields): a 400
    or 422 to the illustrative example form is a skip, not a failure; any other answer is held
    to a 2xx (401/403 credentials, 404/405 path, 415 the documented media type)."""
    if exchange.response.status in (400, 422):
        ctx.skip(f"the target refused the example form ({exchange.response.status}); createDraftListing's fields "
                 "are not shown (gap marketplace.gap.create-fields)")
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, CREATE), why)


@named("marketplace/create-draft-listing")
def create_draft_listing(ctx: CheckContext) -> None:
    accepted_create(ctx, form_post(ctx, CREATE, _example_form(ctx)), "a urlencoded UTF-8 form with a listings_w token")


@named("marketplace/form-posts", params={"fields": _STRINGS, "text": {"type": "string"}}, required=("fields", "text"))
def form_posts(ctx: CheckContext) -> None:
    rule = ctx.rule
    client = oauth(ctx)  # the token endpoint takes the charset=utf-8 form
    client.tokens(client.refresh(ctx.credential("REFRESH_TOKEN")), "a refresh_token grant as a UTF-8 form")
    # The control: the example form as it is (its fields are not shown: refused, the rule skips).
    accepted_create(ctx, form_post(ctx, CREATE, _example_form(ctx)), "the example form (the control)")
    form = {k: v + rule.params["text"] if k in rule.params["fields"] else v for k, v in _example_form(ctx).items()}
    exchange = form_post(ctx, CREATE, form)
    expect_status(rule.id, exchange, success_statuses(ctx.contract, CREATE),
                  "a UTF-8 form whose fields hold non-ASCII text (the same form in ASCII was accepted)")
    # Accepted is not enough: the text must be stored as sent (not decoded as another charset).
    try:
        created = exchange.response.json()
    except ValueError:
        created = None
    shown = [k for k in rule.params["fields"] if isinstance(created, dict) and k in created]
    if not shown:
        ctx.skip("the answer shows none of the fields of the created listing (body and fields are "
                 "not shown: gap resource-fields), so the stored text cannot be compared")
    assert isinstance(created, dict)
    for key in shown:
        expect(created[key] == form[key], rule.id, f"the created listing's {key} is {created[key]!r}",
               exchange=exchange, expected=f"{form[key]!r}, the UTF-8 text sent")


@named("marketplace/utf8-bodies",
       params={**_OPERATIONS, "error_query": {"type": "object"}}, required=("operations", "error_query"))
def utf8_bodies(ctx: CheckContext) -> None:
    client = oauth(ctx)
    exchanges = [call(ctx, op) for op in operations(ctx) if op != client.token_operation]
    exchanges.append(client.refresh(ctx.credential("REFRESH_TOKEN")))
    exchanges.append(call(ctx, LISTINGS, params=ctx.rule.params["error_query"]))  # an error body too
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
            declared = ctx.contract.deref(param.get("schema", {})).get("type")
            if kind in (declared if isinstance(declared, list) else [declared]):
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


@named("marketplace/typed-parameters", params={
              "type": {"enum": ["integer", "boolean", "array", "null"]},
              "expect": {"enum": ["accepted", "refused"]},
              "values": {"type": "array", "minItems": 1},
              **_OPERATIONS}, required=("type",))
def typed_parameters(ctx: CheckContext) -> None:
    """The standard parameter type ``type`` on every documented parameter of that type (of
    ``operations`` when given): ``values`` are accepted, or refused after a valid value of the
    type was accepted (the control, so refusing the parameter outright fails). An array is sent
    as its comma-separated item values. ``null`` concerns response fields (module doc)."""
    params = ctx.rule.params
    kind = params["type"]
    if kind == "null":
        # Where the contract allows null, the schema checks of marketplace.generic.responses-documented
        # already accept it.
        found_fields = _nullable_fields(ctx.contract.openapi)
        ctx.skip("no documented field is nullable (gap marketplace.gap.typed-parameters)" if not found_fields else
                 f"nullable fields {', '.join(found_fields)} are covered by marketplace.generic.responses-documented")
    found = [(op, p) for op, p in _typed_parameters(ctx, kind) if op in operations(ctx) or "operations" not in params]
    if not found:
        ctx.skip(f"no documented parameter is of type {kind}, so the convention applies to nothing yet "
                 "(gap marketplace.gap.typed-parameters)")
    for operation, param in found:
        name, schema = param["name"], ctx.contract.deref(param.get("schema", {}))
        ok = success_statuses(ctx.contract, operation)
        values = params.get("values") or [",".join((ctx.contract.deref(schema.get("items") or {})).get("enum") or [])]
        if params.get("expect", "accepted") == "accepted":
            for value in values:
                expect_status(ctx.rule.id, call(ctx, operation, params={name: value}), ok, f"{name}={value!r}")
            continue
        valid = schema.get("default", schema.get("minimum", 0))
        control = call(ctx, operation, params={name: valid})
        expect_status(ctx.rule.id, control, ok, f"{name}={valid!r} (a valid {kind}, the control)")
        for value in values:
            expect_refused(ctx, f"{operation}: {name}={value!r} (not of type {kind})",
                           partial(call, ctx, operation, params={name: value}), control=lambda: control)


class _Fraction(float):
    """A JSON number with a fraction or exponent, as the text had it."""


@named("marketplace/number-as-string", params=_OPERATIONS, required=("operations",))
def number_as_string(ctx: CheckContext) -> None:
    for operation in operations(ctx):
        largest = ctx.contract.where_schema(operation, "query.limit")["maximum"]
        exchange = call(ctx, operation, params={"limit": largest})
        expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation),
                      f"{operation} at the largest limit (the body to inspect)")
        try:
            body = loads(exchange.response.body, parse_float=_Fraction)
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
