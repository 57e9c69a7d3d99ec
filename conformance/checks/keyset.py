"""Reading past a result cap with a key filter, a page size above its default, and a count of
values read from the list itself (issue 30).

``filter-cursor-walk``: "sort by id ascending and ask for ids greater than the last one": the rule's
operation (members placed as ``checks/paging.py`` places them, ``values_from`` filling
``{values}`` once) is read page after page, each request with one more entry in the body array
``cursor.append`` (``cursor.entry`` with ``{$value}`` the last ``id_field`` read) after the first.
Every page's ids ascend, all past the cursor; no id comes twice; the walk ends with an empty page.
Reading more than ``cap`` ids within ``max_pages`` (the check's reading budget) shows the rule;
a walk that neither ends nor passes the cap within it, or a list no longer than the cap, is not
exercised.

``limit-above-default``: where the document gives a page size both as a default and as a bound
(a conflict), ``over`` (above the schema ``default`` at the rule's ``where``) is sent: honoured
(the default is a default: reading 0 of ``observes``) or cut to the default (a cap: reading 1).
Any other count on a page followed by more fails; a refusal is observed as neither and skipped;
too few rows to tell is not exercised.

``walked-count-limit``: "at most ``most`` ids in one request", where only the list itself holds
the ids: the rule's operation is walked (``style``... within ``max_pages``, the check's reading
budget) for ``member`` values; then its request with ``probe`` members (``{values}`` joined by
", ") naming ``most`` of them is accepted (the control) and ``most + 1`` refused. Fewer values
than that: not exercised.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.boundary import with_member
from conformance.checks.context import CheckContext
from conformance.checks.examples import fill
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.filters import with_value
from conformance.checks.listed import listed_values, with_values
from conformance.checks.paging import PAGING_PARAMS, PLACEMENT_PARAMS, dig, member_names, sender, walk
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import named

__all__ = ["filter_cursor_walk", "limit_above_default", "walked_count_limit"]

_NAME = {"type": "string"}
_COUNT = {"type": "integer", "minimum": 1}


@named("filter-cursor-walk", params={**PLACEMENT_PARAMS, "items_field": _NAME, "id_field": _NAME, "cap": _COUNT,
                                     "max_pages": _COUNT,
                                     "cursor": {"type": "object", "properties": {"append": _NAME, "entry": _NAME},
                                                "required": ["append", "entry"], "additionalProperties": False}},
       required=("items_field", "id_field", "cap", "max_pages", "cursor"))
def filter_cursor_walk(ctx: CheckContext) -> None:
    params, operation = ctx.rule.params, str(ctx.rule.operation)
    spec = params.get("values_from")
    values = listed_values(ctx, spec, int(spec.get("count", 100))) if spec else []
    send = sender(ctx, params, values=values)
    spot, top = params["cursor"]["append"], params["cursor"]["append"].split(".", 1)[0]
    members = fill(ctx, with_values(params.get("set") or {}, values))
    entries = dig(members, spot) or []
    key = params["id_field"]
    seen: list[str] = []
    last = ""
    for page in range(1, params["max_pages"] + 1):
        edited = with_member(members, spot, [*entries, with_value(params["cursor"]["entry"], last)]) if last else {}
        exchange = send({top: edited[top]} if last else {})
        expect_status(ctx.rule.id, exchange, set(range(200, 300)), f"request {page} of the walk")
        schema = ctx.contract.response_schema(operation, exchange.response.status)
        # The first answer is held to the schema; the rest only to rows with an id (validating
        # hundreds of pages would cost more than the walk).
        body = expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, "request 1 of the walk") \
            if page == 1 and schema else exchange.response.json()
        rows = dig(body, params["items_field"])
        expect(isinstance(rows, list) and all(isinstance(r, dict) and key in r for r in rows), ctx.rule.id,
               f"request {page}: no rows with {key}", exchange=exchange, expected=f"rows with {key}")
        ids = [str(r[key]) for r in rows]
        expect(ids == sorted(ids) and (not last or not ids or ids[0] > last), ctx.rule.id,
               f"request {page}: {key}s {ids[:3]}... after {last!r} are not ascending past the cursor",
               exchange=exchange, expected=f"{key} ascending, all greater than the cursor")
        if not ids:
            break
        seen += ids
        last = ids[-1]
    else:
        if len(seen) > params["cap"] and len(seen) == len(set(seen)):
            return  # read past the cap, no id twice: what the rule claims was shown
        ctx.skip(f"the walk read {params['max_pages']} requests without passing the cap or reaching the end: "
                 "not exercised")
    expect(len(seen) == len(set(seen)), ctx.rule.id, f"a {key} came twice in the walk", expected="no row twice")
    if len(seen) <= params["cap"]:
        ctx.skip(f"the list has {len(seen)} rows, not more than the cap of {params['cap']}: not exercised")


@named("limit-above-default", params={**PLACEMENT_PARAMS, "items_field": _NAME, "total_pages_field": _NAME,
                                      "over": {"type": "integer", "minimum": 2}},
       required=("items_field", "total_pages_field", "over"))
def limit_above_default(ctx: CheckContext) -> None:
    params, operation, where = ctx.rule.params, str(ctx.rule.operation), str(ctx.rule.where)
    stated = ctx.contract.where_schema(operation, where)["default"]
    over, name = params["over"], where.rsplit(".", 1)[-1]
    exchange = sender(ctx, params)({name: over})
    if exchange.response.status != 200:
        ctx.observed(f"a {name} of {over} answered {exchange.response.status}")
        ctx.skip(f"{name} {over} was not accepted ({exchange.response.status}): neither reading shown")
    answer = expect_json_schema(ctx.rule.id, ctx.contract, exchange, ctx.contract.response_schema(operation, 200) or {},
                                f"{name} {over}")
    rows, pages = len(dig(answer, params["items_field"]) or []), dig(answer, params["total_pages_field"])
    if (not isinstance(pages, int) or pages <= 1) and rows < over:
        ctx.skip(f"{rows} rows in all: too few to tell a default from a cap")
    expect(rows in (stated, over), ctx.rule.id, f"{name} {over} gave {rows} rows on a page followed by more",
           exchange=exchange, expected=f"{over} ({stated} a default) or {stated} ({stated} a cap)")
    ctx.observed(0 if rows == over else 1)


@named("walked-count-limit", params={**PAGING_PARAMS, "member": _NAME, "most": _COUNT, "probe": {"type": "object"}},
       required=("style", "max_pages", "member", "most", "probe"))
def walked_count_limit(ctx: CheckContext) -> None:
    params, most = member_names(ctx, ctx.rule.params), ctx.rule.params["most"]
    send = sender(ctx, params)
    found = [str(dig(item, params["member"])) for item in walk(ctx, lambda query: send(query), params).items
             if isinstance(item, dict) and dig(item, params["member"]) is not None]
    values = list(dict.fromkeys(found))
    if len(values) <= most:
        ctx.skip(f"{len(values)} values read within max_pages: {most + 1} cannot be named")

    def naming(count: int) -> Any:
        return sender(ctx, {"in": "body", "set": params["probe"], "path_values": params.get("path_values") or {}},
                      values=values[:count])({})

    expect_refused(ctx, f"{most + 1} values", lambda: naming(most + 1), control=lambda: naming(most))
