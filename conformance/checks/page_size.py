"""How many items a page holds, what a paging parameter left out means, and the page past the end.

Three named checks over one paged operation, its paging members placed as ``checks/paging.py``
places them (``PLACEMENT_PARAMS``: query or body), every number read from the contract:

* ``page-size``: for each of ``sizes`` (``default``: the size member left out, the size being
  the schema ``default`` at ``size_where`` or the documented ``page_size``; ``minimum``,
  ``between``, ``maximum`` of that schema; or a number) a page holds at most the size, and
  exactly that many only where the answer shows more data follows (a stated total, a more
  flag, a next cursor, a page count above one, or the list without a size holding more);
  where nothing shows more data, the size is not exercised (skip, saying why) unless a page
  with no paging signal holds exactly the size (a cap reached). Offset lists
  are read at offset 0, at a page straddling the stated count and at the count (the remainder,
  and nothing past the end). Every answer states the same total.
* ``param-default``: leaving the rule's parameter out (``where``) answers the same items, in the
  same order, as sending its schema ``default``.
* ``page-past-end``: page 1 states the page count; the last page holds items and the page after
  it is refused (the rule's status).
* ``same-total``: a count states the total the list it counts (``listed_by``) states.
* ``result-cap``: a paged answer is cut at ``cap`` results (the page holding the cap-th read).
* ``count-limit``: at most ``most`` values in one request: ``most`` values the target lists
  (``values_from``, ``checks/listed.py``) are accepted (the control), ``most + 1`` refused.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.listed import VALUES_FROM, listed_values
from conformance.checks.paging import PLACEMENT_PARAMS, Sender, dig, identity, items_of, member_names, sender
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import named
from conformance.transport.model import Exchange

__all__ = ["count_limit", "page_past_end", "page_size", "param_default", "result_cap", "same_total"]

_NAME = {"type": "string"}
_SIZE_PICKS = {"type": "array", "minItems": 1,
               "items": {"anyOf": [{"enum": ["default", "minimum", "between", "maximum"]},
                                   {"type": "integer", "minimum": 1}]}}
_ITEMS = {"items_field": _NAME, "id_field": _NAME, "id_fields": {"type": "array", "items": _NAME, "minItems": 1}}
# What shows that more data follows a page.
_MORE = {"more_field": _NAME, "next_field": _NAME, "total_pages_field": _NAME, "total_field": _NAME,
         "count_field": _NAME}


def _answer(ctx: CheckContext, operation: str, exchange: Exchange, why: str) -> Any:
    """A 2xx valid under the operation's documented schema; its JSON."""
    expect_status(ctx.rule.id, exchange, set(range(200, 300)), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    if schema:
        return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why)
    return exchange.response.json()


def _items(ctx: CheckContext, params: dict[str, Any], body: Any, exchange: Exchange, why: str) -> list[Any]:
    found = items_of(body, params.get("items_field"), params.get("id_field", "id"))
    if found is None and isinstance(body, list):
        found = body  # the answer is the list itself
    expect(found is not None, ctx.rule.id, f"{why}: no list of items", exchange=exchange,
           expected=f"an item array ({params.get('items_field') or 'objects with ' + params.get('id_field', 'id')})")
    assert found is not None
    return found


def _pointer(where: str) -> tuple[str, str]:
    """``body.limit`` -> (``body``, ``limit``): where the member is, and its name."""
    area, _, name = where.partition(".")
    return area, name.rsplit(".", 1)[-1]


def _total(params: dict[str, Any], body: Any) -> Any:
    name = params.get("total_field") or params.get("count_field")
    return dig(body, name) if name else None


def _more_follows(params: dict[str, Any], body: Any) -> bool | None:
    """Whether the answer shows more data after this page: None where it shows nothing either way."""
    if "more_field" in params:
        return bool(dig(body, params["more_field"]))
    if "next_field" in params:
        return bool(dig(body, params["next_field"]))
    if "total_pages_field" in params:
        pages = dig(body, params["total_pages_field"])
        return isinstance(pages, int) and pages > 1
    return None


_PAGE_SIZE_PARAMS = {**PLACEMENT_PARAMS, **_ITEMS, **_MORE,
                     "sizes": _SIZE_PICKS, "size_where": _NAME, "page_size": {"type": "integer", "minimum": 1},
                     "offset_param": _NAME, "operations": {"type": "array", "items": _NAME, "minItems": 1},
                     "only_total": {"type": "boolean"}}


@named("page-size", params=_PAGE_SIZE_PARAMS)
def page_size(ctx: CheckContext) -> None:
    """A page holds at most its size, exactly that where more data follows (module doc)."""
    params = member_names(ctx, ctx.rule.params)
    size_where = params.get("size_where") or ctx.rule.where
    shown: list[str] = []
    for operation in params.get("operations") or [ctx.rule.operation]:
        totals: dict[Any, tuple[str, Exchange]] = {}  # one list's stated total: the same on every answer
        send = sender(ctx, params, operation)
        schema = ctx.contract.where_schema(operation, size_where) if size_where and "page_size" not in params else {}
        name = _pointer(size_where)[1] if size_where and "page_size" not in params else ""
        for pick in params.get("sizes") or ["default"]:
            size = _size(ctx, params, schema, pick)
            members = {} if pick == "default" else {name: size}
            for offset, exchange, rows, body in _pages(ctx, params, operation, send, members, size, name):
                label = f"{operation} {members or 'without a page size'}" + (f" offset {offset}" if offset else "")
                totals.setdefault(_total(params, body), (label, exchange))
                if len(totals) > 1:
                    (a, (at_a, _)), (b, (at_b, _)) = list(totals.items())[:2]
                    expect(False, ctx.rule.id, f"total {a} at {at_a} but {b} at {at_b}", exchange=exchange,
                           expected=f"the same total for every page size and offset of {operation}")
                if params.get("only_total"):
                    continue
                shown.extend(_hold(ctx, params, (operation, send), exchange, body, rows, size, offset, label, members))
    if not shown and not params.get("only_total"):
        ctx.skip("no answer showed that more data follows its page (one page holds everything): "
                 "the page size was not exercised")


def _size(ctx: CheckContext, params: dict[str, Any], schema: dict[str, Any], pick: Any) -> int:
    if isinstance(pick, int):
        return pick
    if "page_size" in params:
        return int(params["page_size"])
    if pick == "between":
        return (int(schema["minimum"]) + int(schema["maximum"])) // 2
    return int(schema[pick])


def _pages(ctx: CheckContext, params: dict[str, Any], operation: str, send: Sender, members: dict[str, Any],
           size: int, size_member: str) -> list[tuple[int, Exchange, list[Any], Any]]:
    """The pages read for one size: the first; for an offset list with a stated count, also a page
    straddling the count and the page at the count (within the offset's documented maximum)."""
    drop = (size_member,) if size_member and not members else ()
    exchange = send(members, drop=drop)
    why = f"{operation} {members or 'without a page size'}"
    body = _answer(ctx, operation, exchange, why)
    out = [(0, exchange, _items(ctx, params, body, exchange, why), body)]
    count = _total(params, body)
    if "offset_param" not in params or not isinstance(count, int):
        return out
    area = "query" if params.get("in", "query") == "query" else "body"
    most = ctx.contract.where_schema(operation, f"{area}.{params['offset_param']}").get("maximum")
    for offset in sorted({max(count - max(size // 2, 1), 0), count} - {0}):
        if isinstance(most, int) and offset > most:
            continue
        exchange = send({**members, params["offset_param"]: offset}, drop=drop)
        label = f"{why} offset {offset}"
        body = _answer(ctx, operation, exchange, label)
        out.append((offset, exchange, _items(ctx, params, body, exchange, label), body))
    return out


def _hold(ctx: CheckContext, params: dict[str, Any], route: tuple[str, Sender], exchange: Exchange, body: Any,
          rows: list[Any], size: int, offset: int, label: str, members: dict[str, Any]) -> list[str]:
    """Hold one page to its size; the label when the answer showed more data follows."""
    expect(len(rows) <= size, ctx.rule.id, f"{label}: {len(rows)} items on one page", exchange=exchange,
           expected=f"at most {size} a page")
    total = _total(params, body)
    if isinstance(total, int) and not isinstance(total, bool):
        want = max(0, min(size, total - offset))
        expect(len(rows) == want, ctx.rule.id, f"{label}: {len(rows)} items of a stated total {total}",
               exchange=exchange, expected=f"{want} (a page of {size}, or what remains)")
        return [label] if total - offset > size else []
    more = _more_follows(params, body)
    if more is None and members:
        # No paging signal: the list without a size shows whether more than one page exists.
        operation, send = route
        whole = send({}, drop=tuple(members))
        why = "the list without a page size"
        more = len(_items(ctx, params, _answer(ctx, operation, whole, why), whole, why)) > size
    if not more:
        # Nothing shows more data; a page holding exactly the size still met the bound at its edge
        # (a cap reached, as "returns at most 5000" needs), where no signal says otherwise.
        return [label] if more is None and len(rows) == size else []
    expect(len(rows) == size, ctx.rule.id, f"{label}: {len(rows)} items on a page followed by more",
           exchange=exchange, expected=f"{size} (a full page) before the last")
    return [label]


_DEFAULT_PARAMS = {**PLACEMENT_PARAMS, **_ITEMS}


@named("param-default", params=_DEFAULT_PARAMS)
def param_default(ctx: CheckContext) -> None:
    """Leaving the rule's parameter (``where``) out answers what its schema default answers: the
    same items in the same order (named by ``id_fields``; whole items without them)."""
    operation, where = ctx.rule.operation, ctx.rule.where
    assert operation and where
    params = member_names(ctx, ctx.rule.params)
    name = _pointer(where)[1]
    default = ctx.contract.where_schema(operation, where)["default"]
    send = sender(ctx, params)
    fields = params.get("id_fields") or ([params["id_field"]] if "id_field" in params else None)

    def listed(members: dict[str, Any], why: str) -> tuple[Exchange, list[str]]:
        exchange = send(members, drop=() if members else (name,))
        rows = _items(ctx, params, _answer(ctx, operation, exchange, why), exchange, why)
        return exchange, [identity(r, fields) if fields else json.dumps(r, sort_keys=True) for r in rows]

    exchange, plain = listed({}, f"{operation} without {name}")
    _, explicit = listed({name: default}, f"{operation} with {name}={default}")
    if not explicit:
        ctx.skip(f"{operation} with {name}={default} holds nothing: the default cannot be told apart")
    expect(plain == explicit, ctx.rule.id, f"without {name}: {len(plain)} items, {len(set(plain) & set(explicit))} "
           f"of them among the {len(explicit)} of {name}={default}", exchange=exchange,
           expected=f"what {name}={default} (the default) answers, in the same order")


_PAST_PARAMS = {**PLACEMENT_PARAMS, **_ITEMS, "page_param": _NAME, "first_page": {"type": "integer"},
                "total_pages_field": _NAME}


@named("page-past-end", params=_PAST_PARAMS, required=("page_param", "total_pages_field"))
def page_past_end(ctx: CheckContext) -> None:
    """Page 1 states the page count; the last page holds items; the page after it is refused
    (the rule's status; without one, any 4xx after the last page succeeded)."""
    operation = ctx.rule.operation
    assert operation
    params = member_names(ctx, ctx.rule.params)
    send = sender(ctx, params)
    page, first = params["page_param"], int(params.get("first_page", 1))
    body = _answer(ctx, operation, send({page: first}), f"page {first} (the control)")
    stated = dig(body, params["total_pages_field"])
    expect(isinstance(stated, int) and not isinstance(stated, bool), ctx.rule.id,
           f"page {first} states {params['total_pages_field']} {stated!r}", expected="an integer page count")
    last = first + stated - 1
    if stated >= 1:
        exchange = send({page: last})
        rows = _items(ctx, params, _answer(ctx, operation, exchange, f"page {last}, the last"), exchange,
                      f"page {last}")
        expect(bool(rows), ctx.rule.id, f"page {last}, the last of {stated}, holds no items", exchange=exchange,
               expected="items on the last page")
    expect_refused(ctx, f"page {last + 1} of {stated}", partial(send, {page: last + 1}),
                   control=partial(send, {page: max(last, first)}))


_SAME_PARAMS = {**PLACEMENT_PARAMS, "total_field": _NAME, "listed_by": _NAME}


@named("same-total", params=_SAME_PARAMS, required=("total_field", "listed_by"))
def same_total(ctx: CheckContext) -> None:
    """The rule's operation (a count) states the total the operation ``listed_by`` (the list it
    counts) states for the same request."""
    operation = ctx.rule.operation
    assert operation
    params = member_names(ctx, ctx.rule.params)
    field = params["total_field"]
    listed = _answer(ctx, params["listed_by"], sender(ctx, params, params["listed_by"])({}),
                     f"{params['listed_by']} (the list counted)")
    exchange = sender(ctx, params)({})
    counted = _answer(ctx, operation, exchange, f"{operation} (the count)")
    expect(dig(counted, field) == dig(listed, field), ctx.rule.id, f"{operation} states {field} "
           f"{dig(counted, field)!r}, {params['listed_by']} {dig(listed, field)!r}", exchange=exchange,
           expected="the same total for the same request")


@named("count-limit", params={"values_from": VALUES_FROM, "most": {"type": "integer", "minimum": 1},
                              "set": {"type": "object"}}, required=("values_from", "most", "set"))
def count_limit(ctx: CheckContext) -> None:
    """``most`` listed values in the body's ``set`` members are accepted, ``most + 1`` refused."""
    params, most = ctx.rule.params, ctx.rule.params["most"]
    values = listed_values(ctx, params["values_from"], most + 1)
    if len(values) <= most:
        ctx.skip(f"the target lists {len(values)} values: {most + 1} cannot be named")

    def naming(count: int) -> Any:
        return sender(ctx, {"in": "body", "set": params["set"]}, values=values[:count])({})

    expect_refused(ctx, f"{most + 1} values", partial(naming, most + 1), control=partial(naming, most))


_CAP_PARAMS = {**PLACEMENT_PARAMS, **_ITEMS, "cap": {"type": "integer", "minimum": 1}, "page_param": _NAME,
               "first_page": {"type": "integer"}, "total_pages_field": _NAME}


@named("result-cap", params=_CAP_PARAMS, required=("cap", "page_param", "total_pages_field"))
def result_cap(ctx: CheckContext) -> None:
    """A paged answer is cut at ``cap`` results: no result past the cap-th comes back. Page 1
    gives the page size; the page holding result ``cap``, and the one after it where stated, are
    read (the pages before are full: the walk rule holds that). A page past the cut may be refused
    like a page above the total. What the page count says of a cut answer is not judged."""
    operation = ctx.rule.operation
    assert operation
    params = member_names(ctx, ctx.rule.params)
    cap, page, first = int(params["cap"]), params["page_param"], int(params.get("first_page", 1))
    send = sender(ctx, params)

    def rows(number: int) -> tuple[Exchange, list[Any], Any]:
        exchange = send({page: number})
        body = _answer(ctx, operation, exchange, f"page {number}")
        return exchange, _items(ctx, params, body, exchange, f"page {number}"), body

    _, held, body = rows(first)
    size, pages = len(held), dig(body, params["total_pages_field"])
    if not isinstance(pages, int) or pages <= 1 or not size:
        ctx.skip(f"the answer fits one page ({size} results): the cap was not approached")
    at_cap = -(-cap // size)  # the page holding result cap
    if pages < at_cap:
        ctx.skip(f"{pages} pages of {size} are stated, fewer than the cap of {cap}: the cut was not exercised")
    last = min(pages, at_cap + 1)
    exchange = send({page: first + last - 1})
    if last > at_cap and not 200 <= exchange.response.status < 300:
        exchange, held, _ = rows(first + at_cap - 1)
        seen = size * (at_cap - 1) + len(held)
    else:
        body = _answer(ctx, operation, exchange, f"page {first + last - 1}")
        seen = size * (last - 1) + len(_items(ctx, params, body, exchange, f"page {first + last - 1}"))
    expect(seen <= cap, ctx.rule.id, f"the pages hold {seen} results", exchange=exchange,
           expected=f"at most {cap} (extra results cut)")
    if seen < cap:
        ctx.skip(f"the query has {seen} results, fewer than the cap of {cap}: the cut was not exercised")
