"""Parameterised checks of POST-body operations (named, so rules choose them as data).

``refused-body`` and ``refused-path`` hold a changed request to a refusal after the control succeeded;
``body-walk`` is ``paging-walk`` with the page parameters in the body (and, for key walks, the
cursor as a filter); ``page-past-end``, ``default-page-size``, ``body-shape`` and
``limit-reading`` read the numbers they test from the contract.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema
from conformance.checks.paging import PAGING_PARAMS, dig, identity, items_of, paging_walk
from conformance.checks.refusal import expect_accepted, expect_refused
from conformance.checks.registry import named
from conformance.errors import HarnessError
from conformance.services.social.support import METADATA, accepted, body, post, values
from conformance.transport.model import Exchange

__all__ = ["body_walk", "customer_profiles", "default_page_size", "page_past_end", "refused_body"]

_SET = {"set": {"type": "object"}}
_OPS = {"operations": {"type": "array", "items": {"type": "string"}, "minItems": 1}}


@named("social/refused-body", params={**_SET, "control": {"type": "object"}}, required=("set",))
def refused_body(ctx: CheckContext) -> None:
    """The example with ``set`` members is refused, after the example (with ``control``) succeeded."""
    operation = ctx.rule.operation
    assert operation
    control = body(ctx, operation, **ctx.rule.params.get("control", {}))
    changed = body(ctx, operation, **ctx.rule.params["set"])
    expect_refused(ctx, f"{operation} with {ctx.rule.params['set']}", partial(post, ctx, operation, changed),
                   control=partial(post, ctx, operation, control))


def _send(ctx: CheckContext, operation: str, overrides: dict[str, str]) -> Exchange:
    method = operation.split(" ", 1)[0]
    json_body = body(ctx, operation) if method == "POST" else None
    return ctx.call(operation, json_body=json_body, path_values=values(ctx, operation, overrides))


@named("social/refused-path",
       params={**_OPS, "refused": {"type": "object", "additionalProperties": {"type": "string"}}},
       required=("refused",))
def refused_path(ctx: CheckContext) -> None:
    """Each operation with the ``refused`` path values is refused; with the defaults it succeeded."""
    for operation in ctx.rule.params.get("operations") or [ctx.rule.operation]:
        # The documented status needs no control, but one shows the route serves the customer
        # (when it does not, a refusal shows nothing: not exercised).
        expect_accepted(ctx, _send(ctx, operation, {}), f"{operation} for the configured customer")
        expect_refused(ctx, f"{operation} with {ctx.rule.params['refused']}",
                       partial(_send, ctx, operation, ctx.rule.params["refused"]),
                       control=partial(_send, ctx, operation, {}))


@dataclasses.dataclass
class _BodyPaged(CheckContext):
    """A context whose calls carry the example body, with the walk's parameters moved into the
    body; a key walk's cursor becomes the filter ``cursor_filter`` names. A cursor walk that has
    spent ``max_pages`` requests while the target still offers a next cursor is not exercised
    (the list is longer than the walk reads: the document gives no bound), never a failure."""

    base_body: dict[str, Any] = dataclasses.field(default_factory=dict)
    cursor_filter: str = ""
    calls: int = 0
    seen: set[str] = dataclasses.field(default_factory=set)
    repeated: bool = False

    def call(self, operation: str, *, params: dict[str, Any] | None = None, **kwargs: Any) -> Exchange:
        members = dict(params or {})
        json_body = {**self.base_body}
        cursor_param = self.rule.params.get("cursor_param")
        if self.cursor_filter and cursor_param in members:
            after = members.pop(cursor_param)
            json_body["filters"] = [*json_body.get("filters", []), self.cursor_filter.format(after)]
        exchange = super().call(operation, json_body={**json_body, **members}, **kwargs)
        self.calls += 1
        params_ = self.rule.params
        if params_["style"] != "cursor" or exchange.response.status != 200:
            return exchange
        try:
            answer = exchange.response.json()
        except ValueError:
            return exchange
        fields = list(params_.get("id_fields") or [params_.get("id_field", "id")])
        for item in items_of(answer, params_.get("items_field"), fields[0]) or []:
            key = identity(item, fields)
            self.repeated = self.repeated or key in self.seen
            self.seen.add(key)
        # A walk that repeats items fails in paging_walk; one that only goes on is not exercised.
        if self.calls >= params_["max_pages"] and dig(answer, params_["next_field"]) and not self.repeated:
            self.skip(f"the list is longer than the {params_['max_pages']} pages this walk reads (a next "
                      "cursor still comes back, no item repeated): its end was not exercised")
        return exchange


def _stated_pages(ctx: CheckContext, operation: str, base: dict[str, Any]) -> int:
    """How many pages the target's first page states (``total_pages_field``): the walk's bound,
    read from the target's own answer rather than fixed by the check."""
    params = ctx.rule.params
    first = {**base, params["page_param"]: params.get("first_page", 1)}
    answer = accepted(ctx, post(ctx, operation, first), operation, "page 1 (how many pages the target states)")
    stated = dig(answer, params["total_pages_field"])
    expect(isinstance(stated, int) and not isinstance(stated, bool), ctx.rule.id,
           f"page 1 states {params['total_pages_field']} {stated!r}", expected="an integer page count")
    return max(int(stated), 1)


@named("social/body-walk", params={**PAGING_PARAMS, **_SET, "cursor_filter": {"type": "string"}},
       required=("style",))
def body_walk(ctx: CheckContext) -> None:
    """``paging-walk`` over a POST operation: the example body plus ``set``, page members in the body.
    A numbered walk with a stated page count reads as many pages as page 1 states; a cursor walk
    reads at most ``max_pages`` and is not exercised when the list goes on past them."""
    operation = ctx.rule.operation
    assert operation
    base = body(ctx, operation, **ctx.rule.params.get("set", {}))
    params = dict(ctx.rule.params)
    if params["style"] == "page" and "total_pages_field" in params:
        params["max_pages"] = _stated_pages(ctx, operation, base)
    elif "max_pages" not in params:
        raise HarnessError(f"{ctx.rule.id}: a body-walk without a stated page count needs max_pages")
    fields = {f.name: getattr(ctx, f.name) for f in dataclasses.fields(CheckContext)}
    fields["rule"] = dataclasses.replace(ctx.rule, params=params)
    paging_walk(_BodyPaged(**fields, base_body=base, cursor_filter=params.get("cursor_filter", "")))


@named("social/page-past-end", params=_SET, required=("set",))
def page_past_end(ctx: CheckContext) -> None:
    """Page 1 states total_pages; the page after it is refused (the rule's status)."""
    operation = ctx.rule.operation
    assert operation
    base = body(ctx, operation, **ctx.rule.params["set"])
    first = accepted(ctx, post(ctx, operation, base), operation, "page 1 (the control)")
    total = first["paging"]["total_pages"]
    if total >= 1:
        last = accepted(ctx, post(ctx, operation, {**base, "page": total}), operation, f"page {total}, the last")
        expect(bool(last["data"]), ctx.rule.id, f"page {total} of {total} holds no rows",
               expected="rows on the last page")
    expect_refused(ctx, f"page {total + 1} of {total}", partial(post, ctx, operation, {**base, "page": total + 1}))


def customer_profiles(ctx: CheckContext, count: int) -> list[str]:
    """Up to ``count`` profile ids of the customer, from the metadata listing."""
    listing = ctx.call(METADATA, path_values=values(ctx, METADATA))
    data = accepted(ctx, listing, METADATA, "the customer's profiles")["data"]
    return [str(p["customer_profile_id"]).removesuffix(".0") for p in data][:count]


@named("social/default-page-size", params={**_SET, "profiles": {"type": "integer", "minimum": 1},
                                    "other_filters": {"type": "array", "items": {"type": "string"}}})
def default_page_size(ctx: CheckContext) -> None:
    """Without limit a page holds at most the schema's default of ``where``, exactly that when more follow."""
    operation, where = ctx.rule.operation, ctx.rule.where
    assert operation and where
    default = ctx.contract.where_schema(operation, where)["default"]
    base = body(ctx, operation, **ctx.rule.params.get("set", {}))
    if "profiles" in ctx.rule.params:
        ids = customer_profiles(ctx, ctx.rule.params["profiles"])
        base["filters"] = [f"customer_profile_id.eq({', '.join(ids)})", *ctx.rule.params.get("other_filters", [])]
    base.pop(where.split(".", 1)[1], None)
    exchange = post(ctx, operation, base)
    answer = accepted(ctx, exchange, operation, "the request without limit")
    rows, paging = answer["data"], answer.get("paging")
    more = bool(paging) and (paging.get("total_pages", 1) > 1 or bool(paging.get("next_cursor")))
    expect(len(rows) <= default, ctx.rule.id, f"{len(rows)} rows on one page without limit", exchange=exchange,
           expected=f"at most {default} (the default)")
    if not more:
        ctx.skip(f"the answer fits one page ({len(rows)} rows): the default page size was not exercised")
    expect(len(rows) == default, ctx.rule.id, f"{len(rows)} rows on a page that is followed by more",
           exchange=exchange, expected=f"{default} rows (the default) before the last page")


@named("social/limit-reading", params={"conflict": {"type": "string"}, "over": {"type": "integer", "minimum": 2}},
       required=("conflict", "over"))
def limit_reading(ctx: CheckContext) -> None:
    """A limit above the stated number: honoured (a default) or cut to it (a cap), observed which."""
    operation, where = ctx.rule.operation, ctx.rule.where
    assert operation and where
    stated = ctx.contract.where_schema(operation, where)["default"]
    over = ctx.rule.params["over"]
    exchange = post(ctx, operation, body(ctx, operation, limit=over))
    if exchange.response.status != 200:
        ctx.observe(ctx.rule.params["conflict"], f"a limit of {over} answered {exchange.response.status}")
        ctx.skip(f"limit {over} was not accepted ({exchange.response.status}): neither reading shown")
    answer = expect_json_schema(ctx.rule.id, ctx.contract, exchange, ctx.contract.response_schema(operation, 200) or {},
                                f"limit {over}")
    rows, pages = len(answer["data"]), answer["paging"]["total_pages"]
    if pages <= 1 and rows < over:
        ctx.skip(f"{rows} rows in all: too few to tell a default from a cap")
    expect(rows in (stated, over), ctx.rule.id, f"limit {over} gave {rows} rows on a page followed by more",
           exchange=exchange, expected=f"{over} ({stated} a default) or {stated} ({stated} a cap)")
    ctx.observe(ctx.rule.params["conflict"], 0 if rows == over else 1)
