"""Paging walks for every documented style, and the generic walk check built on them.

Styles (``params.style``), each with the names its document uses as params:

* ``cursor``: ``cursor_param`` (e.g. ``after``, ``page_cursor``) takes the page's ``next_field``
  (``nextCursor``, ``paging.next_cursor``); ``more_field`` (``hasMore``) when the document has
  one, else the walk ends when no next cursor comes back.
* ``page``: ``page_param`` counts pages from ``first_page``; the end is ``total_pages_field``, a
  ``total_field`` item count divided by ``page_size``, a ``more_field`` flag, or a short page.
* ``offset``: ``offset_param``/``limit_param`` with a total ``count_field``.
* ``key``: the next request passes the last item's ``id_field`` as ``cursor_param``
  (``starting_after``); the end is a short or empty page, or ``cap`` items in all. A first page
  carrying ``next_field`` (the target's own cursor member) makes it a cursor walk.

Dotted field names reach into nested objects (``paging.next_cursor``). A walk that sees one page
only probes the page after it: items there fail the walk, an empty page makes the rule skip
(one page proves nothing about paging).

Where the paging members travel (``PLACEMENT_PARAMS``, shared with ``checks/page_size.py``):
``in: query`` (the default: ``base_query`` beside them) or ``in: body`` (the operation's example
body with ``set`` members on top, the paging members in it or in its ``body_member`` object).
String params naming a member (``items_field``, ``id_field``, ``page_param``...) may be a target
setting (``"{ITEMS_FIELD}"``) where the document does not show the name.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from conformance.auth.variants import render
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_request, fill, setting, setting_param, today
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.listed import VALUES_FROM, listed_values, with_values
from conformance.checks.paths import path_values
from conformance.checks.registry import named
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__ = ["PAGING_PARAMS", "PLACEMENT_PARAMS", "Page", "Sender", "Walk", "dig", "identity", "items_of", "member_names",
           "sender", "walk", "paging_walk"]

_NAMES = {"type": "string"}
# A number the document does not give, named as the target setting holding it.
_SETTING = {"type": "string", "pattern": r"^\{[A-Z][A-Z0-9_]*\}$"}
_COUNT = {"anyOf": [{"type": "integer", "minimum": 1}, _SETTING]}

# Where a paged request carries its paging members, and what else it carries.
PLACEMENT_PARAMS: dict[str, Any] = {
    "in": {"enum": ["query", "body"]},
    "body_member": _NAMES,
    "set": {"type": "object"},
    # Body members dated from the target's today, as openapi's x-relative-dates says.
    "relative_dates": {"type": "object", "additionalProperties": {
        "type": "object", "properties": {"days": {"type": "integer"}, "format": {"enum": ["date", "datetime"]}},
        "required": ["days"], "additionalProperties": False}},
    "base_query": {"type": "object"},
    "path_values": {"type": "object", "additionalProperties": {"type": "string"}},
    # Values only the target's lists hold, put into "{values}" of the set members (checks/listed.py).
    "values_from": VALUES_FROM,
}

PAGING_PARAMS: dict[str, Any] = {
    "style": {"enum": ["cursor", "page", "offset", "key"]},
    "max_pages": _COUNT,
    "items_field": {"type": "string"},
    "id_field": {"type": "string"},
    "id_fields": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "full_pages": {"type": "boolean"},
    "cursor_param": {"type": "string"},
    "next_field": {"type": "string"},
    "more_field": {"type": "string"},
    "page_param": {"type": "string"},
    "first_page": {"anyOf": [{"type": "integer"}, _SETTING]},
    "page_size": _COUNT,
    "total_pages_field": {"type": "string"},
    "total_field": {"type": "string"},
    "offset_param": {"type": "string"},
    "limit_param": {"type": "string"},
    "limit": _COUNT,
    "count_field": {"type": "string"},
    "cap": {"type": "integer", "minimum": 1},
    "present_only_when_more": _NAMES,
    # Where the first page's number is not shown: what the target states here for a request
    # naming no page (used when ``first_page`` names a setting that is not set).
    "first_page_field": _NAMES,
    **PLACEMENT_PARAMS,
}

# Params naming a member: a "{SETTING}" there is the target's name for it (gap: name not shown).
_MEMBER_PARAMS = ("items_field", "id_field", "cursor_param", "next_field", "more_field", "page_param",
                  "total_pages_field", "total_field", "offset_param", "limit_param", "count_field", "body_member",
                  "present_only_when_more", "first_page_field")


def member_names(ctx: CheckContext, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with every member name that names a target setting rendered (configured, else
    the catalogue's ``settings.defaults``); integer params (``first_page``, ``page_size``,
    ``max_pages``) given as ``"{SETTING}"`` typed from the setting."""
    out = dict(params)
    if out.get("style") == "key":
        # A key walk may follow the target's own cursor member instead (``next_field``): either
        # that member or the page size telling a full page from the last may be left unset.
        for name in ("next_field", "page_size"):
            value = out.get(name)
            if isinstance(value, str) and value.startswith("{") and _optional_setting(ctx, value) is None:
                del out[name]
    for name in _MEMBER_PARAMS:
        if isinstance(out.get(name), str):
            out[name] = setting_param(ctx, out[name], {"type": "string"})
    if out.get("id_fields"):
        out["id_fields"] = [setting_param(ctx, f, {"type": "string"}) for f in out["id_fields"]]
    if isinstance(out.get("first_page"), str) and "first_page_field" in out:
        # The target may state its first page instead (first_page_field): the setting is optional.
        text = _optional_setting(ctx, out["first_page"])
        if text is None:
            del out["first_page"]
        elif str(text).lstrip("-").isdigit():
            out["first_page"] = int(text)
        else:
            ctx.skip(f"the first page number {out['first_page']} is {text!r}, not a number")
    for name in ("first_page", "page_size", "max_pages", "limit"):
        if isinstance(out.get(name), str):
            value = setting_param(ctx, out[name], {"type": "integer"})
            if not isinstance(value, int) or isinstance(value, bool) or value < (0 if name == "first_page" else 1):
                ctx.skip(f"{name} {out[name]} is {value!r} on this target, not a number: the walk is not exercised")
            out[name] = value
    return out


def _optional_setting(ctx: CheckContext, template: str) -> str | None:
    """``"{NAME}"``: setting NAME when configured or defaulted, else None."""
    name = template.strip("{}")
    return ctx.optional(name) or (ctx.contract.settings.get("defaults") or {}).get(name)


def _rendered(ctx: CheckContext, templates: dict[str, Any] | None) -> dict[str, Any]:
    """Query values with target settings rendered (configured, else ``settings.defaults``)."""
    return {k: render(v, lambda n: setting(ctx, n)) if isinstance(v, str) else v for k, v in (templates or {}).items()}


Sender = Callable[..., Exchange]


def sender(ctx: CheckContext, params: dict[str, Any], operation: str | None = None,
           values: list[str] | None = None) -> Sender:
    """``send(members, drop=())``: one request of the operation with the paging ``members``
    placed as ``params`` say (module doc); ``drop`` names members left out of the example body
    (a page size sent by the example, where the check tests its absence). ``values`` (else the
    first ``values_from.count`` the target lists) fill the ``"{values}"`` of the set members."""
    op = operation or ctx.rule.operation
    if not op:
        raise ContractFileError(f"{ctx.rule.id}: a paging check needs the rule's operation")
    base_query = _rendered(ctx, params.get("base_query"))
    # Path values the rule gives, else each path parameter's x-setting.
    path = path_values(ctx, op, ctx.settings_in(params.get("path_values"))).values
    base_body: dict[str, Any] | None = None
    if params.get("in") == "body":
        example = example_request(ctx, op)
        spec = params.get("values_from")
        if values is None and spec and "count" in spec:
            values = listed_values(ctx, spec, int(spec["count"]))
        members = with_values(params.get("set") or {}, values) if values is not None else params.get("set") or {}
        base_body = {**(example.body or {}), **fill(ctx, members)}
        for member, spec in (params.get("relative_dates") or {}).items():
            day = today(ctx) + timedelta(days=int(spec["days"]))
            base_body[member] = f"{day.isoformat()} 00:00:00" if spec.get("format") == "datetime" else day.isoformat()
    holder = params.get("body_member")

    def send(members: dict[str, Any], drop: tuple[str, ...] = ()) -> Exchange:
        if base_body is None:
            query = {k: v for k, v in {**base_query, **members}.items() if k not in drop}
            return ctx.call(op, params=query or None, path_values=path)
        body = {k: v for k, v in base_body.items() if k not in drop}
        if holder:
            inner = {k: v for k, v in {**(body.get(holder) or {}), **members}.items() if k not in drop}
            body[holder] = inner
        else:
            body.update(members)
        return ctx.call(op, json_body=body, params=base_query or None, path_values=path)

    return send


def dig(body: Any, dotted: str) -> Any:
    """``body['a']['b']`` for ``'a.b'``; None where any step is missing."""
    node = body
    for part in dotted.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def items_of(body: Any, items_field: str | None = None, id_field: str = "id") -> list[Any] | None:
    """The page's items: the named array, else the one array of objects carrying ``id_field``."""
    if items_field:
        found = dig(body, items_field)
        return found if isinstance(found, list) else None
    if not isinstance(body, dict):
        return None
    arrays = [v for v in body.values()
              if isinstance(v, list) and all(isinstance(i, dict) and id_field in i for i in v)]
    return arrays[0] if len(arrays) == 1 else None


@dataclass
class Page:
    exchange: Exchange
    body: Any
    items: list[Any]


@dataclass
class Walk:
    pages: list[Page] = field(default_factory=list)
    ended: bool = False  # the target said (or showed) there is no next page
    total: int | None = None  # the item total the target stated, if any

    @property
    def items(self) -> list[Any]:
        return [i for p in self.pages for i in p.items]


Fetch = Callable[[dict[str, Any]], Exchange]


def walk(ctx: CheckContext, fetch: Fetch, params: dict[str, Any]) -> Walk:
    """Follow the pages to the end (at most ``max_pages``), holding each to 2xx and an item list.
    Without ``max_pages`` a numbered walk reads as many pages as page 1 states
    (``total_pages_field``): the bound is the target's own answer, not the check's."""
    style = params["style"]
    id_field = params.get("id_field", "id")
    result = Walk()
    query: dict[str, Any] = {}
    if style == "offset":
        query = {params["offset_param"]: 0, params["limit_param"]: params["limit"]}
    elif style == "page" and "first_page" in params:
        query = {params["page_param"]: params["first_page"]}
    if "max_pages" not in params and "total_pages_field" not in params:
        raise ContractFileError(f"{ctx.rule.id}: a walk without a stated page count (total_pages_field) needs "
                                "max_pages")
    budget = params.get("max_pages", 1)
    number = 0
    while number < budget:
        number += 1
        exchange = fetch(query)
        expect_status(ctx.rule.id, exchange, set(range(200, 300)), f"page {number} of the walk")
        body = exchange.response.json()
        items = items_of(body, params.get("items_field"), id_field)
        expect(items is not None, ctx.rule.id, f"page {number} has no list of items", exchange=exchange,
               expected=f"an item array ({params.get('items_field') or 'objects with ' + id_field})")
        assert items is not None
        result.pages.append(Page(exchange, body, items))
        if number == 1:
            if "max_pages" not in params:
                stated = dig(body, params["total_pages_field"])
                expect(isinstance(stated, int) and not isinstance(stated, bool), ctx.rule.id,
                       f"page 1 states {params['total_pages_field']} {stated!r}", exchange=exchange,
                       expected="an integer page count")
                budget = max(int(stated), 1)
            else:
                _skip_if_too_long(ctx, params, body)
        following = _next_query(ctx, style, params, query, body, items, result, exchange)
        if following is None:
            result.ended = True
            return result
        query = following
    return result


def _stated_total(params: dict[str, Any], body: Any) -> Any:
    name = params.get("total_field") or params.get("count_field")
    return dig(body, name) if name else None


def _skip_if_too_long(ctx: CheckContext, params: dict[str, Any], body: Any) -> None:
    """A stated total needing more pages than ``max_pages`` is the target's data, not a fault:
    the walk is not exercised (a walk that stops early proves nothing about the end)."""
    total = _stated_total(params, body)
    size = params.get("page_size") or params.get("limit")
    if isinstance(total, int) and size and -(-total // size) > params["max_pages"]:
        ctx.skip(f"the list states {total} items, {-(-total // size)} pages: more than max_pages "
                 f"{params['max_pages']}, so the walk is not exercised")


def _next_query(ctx: CheckContext, style: str, params: dict[str, Any], query: dict[str, Any], body: Any,
                items: list[Any], result: Walk, exchange: Exchange) -> dict[str, Any] | None:
    if style == "cursor":
        more = dig(body, params["more_field"]) if "more_field" in params else None
        cursor = dig(body, params["next_field"])
        if "more_field" in params and not more:
            return None
        if "more_field" not in params and not cursor:
            return None
        expect(isinstance(cursor, str) and cursor != "", ctx.rule.id,
               f"{params.get('more_field', 'the page')} says more, but {params['next_field']} is missing",
               exchange=exchange, expected=f"{params['next_field']}: a cursor")
        return {**query, params["cursor_param"]: cursor}
    if style == "page":
        page = int(query.get(params["page_param"], params.get("first_page", 1)))
        done = len(result.pages)
        if not items:  # an empty page ends a numbered walk whatever the totals say
            return None
        if "total_pages_field" in params:
            total_pages = dig(body, params["total_pages_field"])
            expect(isinstance(total_pages, int), ctx.rule.id, f"no integer {params['total_pages_field']}",
                   exchange=exchange)
            if done >= total_pages:
                return None
        elif "total_field" in params:
            total = dig(body, params["total_field"])
            expect(isinstance(total, int), ctx.rule.id, f"no integer {params['total_field']}", exchange=exchange)
            result.total = total
            if sum(len(p.items) for p in result.pages) >= total:
                return None
        elif "more_field" in params:
            if not dig(body, params["more_field"]):
                return None
        elif len(items) < params["page_size"]:
            return None
        return {**query, params["page_param"]: page + 1}
    if style == "offset":
        count = dig(body, params["count_field"])
        expect(isinstance(count, int), ctx.rule.id, f"no integer {params['count_field']}", exchange=exchange)
        result.total = count
        offset = int(query[params["offset_param"]]) + params["limit"]
        if offset >= count or not items:
            return None
        return {**query, params["offset_param"]: offset}
    # key: the last item's id is the next request's cursor
    seen = sum(len(p.items) for p in result.pages)
    if not items or len(items) < params["page_size"] or ("cap" in params and seen >= params["cap"]):
        return None
    return {**query, params["cursor_param"]: items[-1][params.get("id_field", "id")]}


def identity(item: Any, fields: list[str]) -> str:
    """What names one item: its id fields together (banners and DNS entries have no single id)."""
    if not isinstance(item, dict):
        return json.dumps(item, sort_keys=True)
    return json.dumps([dig(item, f) for f in fields])


@named("paging-walk", params=PAGING_PARAMS, required=("style",))
def paging_walk(ctx: CheckContext) -> None:
    """Walk the rule's operation to the end and check the walk:

    every page valid under the operation's documented schema; an end (a walk still going after
    ``max_pages``, the reading budget, is not exercised, never failed); no item twice
    (``id_fields`` together name an item); the same stated total on every page and
    the pages holding exactly that many; with ``full_pages``, every page but the last full; at
    most ``page_size`` a page and ``cap`` in all. A full last page or a one-page walk probes the
    page after it: items there fail the walk; a one-page walk then skips (not exercised). With
    ``present_only_when_more`` (a member the document says is present only when more data
    exists), both ways: the last page lacks it, and a page it led to holds items (judged on the
    pages read even where the budget ends the walk first)."""
    rule = ctx.rule
    operation = rule.operation
    assert operation
    params = member_names(ctx, rule.params)
    fields = list(params.get("id_fields") or [params.get("id_field", "id")])
    send = sender(ctx, params)
    # A numbered walk names its page size on every request where the rule gives its member.
    fixed = {params["limit_param"]: params["page_size"]} if params["style"] == "page" and "limit_param" in params \
        and "page_size" in params else {}

    def fetch(query: dict[str, Any]) -> Exchange:
        exchange = send({**fixed, **query})
        schema = ctx.contract.response_schema(operation, exchange.response.status)
        if 200 <= exchange.response.status < 300 and schema is not None:
            expect_json_schema(rule.id, ctx.contract, exchange, schema, "a page of the walk")
        return exchange

    if params["style"] == "key":
        _key_or_cursor(ctx, fetch, params)
    if params["style"] == "page" and "first_page" not in params and "first_page_field" in params:
        exchange = fetch({})
        expect_status(rule.id, exchange, set(range(200, 300)), "the list without a page")
        stated = str(dig(exchange.response.json(), params["first_page_field"]))
        if not stated.lstrip("-").isdigit():
            ctx.skip(f"the first page number is unknown (the target states {params['first_page_field']} "
                     f"{stated!r}): set {rule.params.get('first_page', 'first_page')}")
        params["first_page"] = int(stated)
    result = walk(ctx, fetch, params)
    last = result.pages[-1].exchange
    size = params.get("page_size") or params.get("limit")
    first_total = _stated_total(params, result.pages[0].body)
    seen: dict[str, int] = {}
    for number, page in enumerate(result.pages, start=1):
        total = _stated_total(params, page.body)
        expect(total == first_total, rule.id, f"page {number} states total {total}, page 1 stated {first_total}",
               exchange=page.exchange, expected="the same total on every page")
        if size:
            expect(len(page.items) <= size, rule.id, f"page {number} holds {len(page.items)} items",
                   exchange=page.exchange, expected=f"at most {size} a page")
        if size and params.get("full_pages") and number < len(result.pages):
            expect(len(page.items) == size, rule.id, f"page {number} of {len(result.pages)} holds "
                   f"{len(page.items)} items", exchange=page.exchange,
                   expected=f"a full page of {size} before the last")
        for item in page.items:
            key = identity(item, fields)
            expect(key not in seen, rule.id, f"item {key} on page {number} was already on page {seen.get(key)}",
                   exchange=page.exchange, expected="no item twice in one walk")
            seen[key] = number
    if "present_only_when_more" in params:
        # Judged on the pages read even when the budget ends the walk: a member leading to pages of
        # nothing (a cursor given on every page, past the data too) would otherwise read as a long list.
        _announced_hold_items(ctx, params["present_only_when_more"], result)
    if not result.ended:
        # max_pages is the harness's reading budget, not a number of the document: a list longer
        # than it, with no item repeated so far, is not shown to be endless (not exercised).
        ctx.skip(f"the walk read {len(result.pages)} pages (the rule's reading budget, max_pages) without "
                 "reaching the end, no item twice: the list is longer than the budget, so its end is not "
                 "exercised")
    final = result.pages[-1]
    if "present_only_when_more" in params:
        _only_when_more(ctx, params["present_only_when_more"], result)
    if "more_field" in params:
        expect(not dig(final.body, params["more_field"]), rule.id, f"the last page still says "
               f"{params['more_field']}, yet it ends the list", exchange=final.exchange,
               expected=f"{params['more_field']} false on the last page")
    if "total_pages_field" in params:
        stated = dig(final.body, params["total_pages_field"])
        expect(stated == len(result.pages), rule.id, f"the list states {stated} pages; the walk found "
               f"{len(result.pages)}", exchange=final.exchange, expected="as many pages as stated")
    if isinstance(first_total, int):
        expect(len(seen) == first_total, rule.id, f"the walk gave {len(seen)} items; the target states {first_total}",
               exchange=last, expected="every item of the stated total, once")
    if "cap" in params:
        expect(len(seen) <= params["cap"], rule.id, f"{len(seen)} items, more than the cap of {params['cap']}",
               exchange=last, expected=f"at most {params['cap']} items")
    if len(result.pages) == 1 or (size and len(result.pages[-1].items) == size):
        _probe_past_end(ctx, fetch, params, result)


def _key_or_cursor(ctx: CheckContext, fetch: Fetch, params: dict[str, Any]) -> None:
    """A key walk whose first page carries ``next_field`` (the target's cursor member) is walked
    as a cursor walk: that member's value is the next cursor, none ends the list. Otherwise the
    last item's id is the cursor and the page size tells a full page from the last."""
    if "next_field" in params:
        first = fetch({})
        expect_status(ctx.rule.id, first, set(range(200, 300)), "the first page")
        body = first.response.json()
        if isinstance(body, dict) and dig(body, params["next_field"]):
            params["style"] = "cursor"
            return
        del params["next_field"]
    if "page_size" not in params:
        template = str(ctx.rule.params.get("page_size", ""))
        if template.startswith("{"):
            ctx.credential(template.strip("{}"))  # skips, naming the setting to configure
        raise ContractFileError(f"{ctx.rule.id}: a key walk needs page_size")


def _announced_hold_items(ctx: CheckContext, member: str, result: Walk) -> None:
    """``member`` is present only when more data exists: every page it led to holds items."""
    for number, page in enumerate(result.pages[1:], start=2):
        expect(bool(page.items), ctx.rule.id, f"page {number}, announced by the previous page's {member}, holds "
               "no items", exchange=page.exchange, expected=f"{member} only when more data exists")


def _only_when_more(ctx: CheckContext, member: str, result: Walk) -> None:
    """``member`` is present only when more data exists: every page it led to holds items, and
    the last page (no more data) lacks it (an empty object or null counts as absent)."""
    _announced_hold_items(ctx, member, result)
    final = result.pages[-1]
    expect(not dig(final.body, member), ctx.rule.id, f"the last page still carries {member}",
           exchange=final.exchange, expected=f"no {member} once no more data exists")


def _probe_past_end(ctx: CheckContext, fetch: Fetch, params: dict[str, Any], result: Walk) -> None:
    """The page after the last must hold nothing (what it answers otherwise is not shown)."""
    style, pages, page = params["style"], len(result.pages), result.pages[-1]
    if style == "page":
        query = {params["page_param"]: params.get("first_page", 1) + pages}
    elif style == "offset":
        query = {params["offset_param"]: params["limit"] * pages, params["limit_param"]: params["limit"]}
    elif style == "key" and page.items:
        query = {params["cursor_param"]: page.items[-1][params.get("id_field", "id")]}
    elif pages == 1:
        ctx.skip("the first page already ends the list: paging was not exercised")
    else:
        return
    probe = fetch(query)
    items = items_of(probe.response.json(), params.get("items_field"), params.get("id_field", "id"))
    if 200 <= probe.response.status < 300 and items:
        expect(False, ctx.rule.id, f"page {pages} was said to be the last, yet the next page has {len(items)} items",
               exchange=probe, expected="no items past the end")
    if pages == 1:
        ctx.skip("the list fits one page: paging was not exercised")
