"""Request members that select rows: filters that combine, and members whose default is what
leaving them out means (issue 30).

``filters-combine`` reads the rule's operation to the end without filters (a numbered walk as
``checks/paging.py`` walks it: ``style``, ``page_size``, ``items_field``, ``first_page`` or
``first_page_field``...), takes the values each of ``members`` has in those rows, and sends
generated sets of filters (Hypothesis: one to four (member, value) pairs, a value no row has among
them) as the entries of the body array ``filter.append`` (each ``filter.entry`` with ``{$member}``
and ``{$value}`` filled in). Each answer, read to the end, must hold exactly the rows where every
filtered member is one of the values chosen for it (rows named by ``id_field``; a row without the
member matches no value). Rows whose members do not vary over two members: not exercised.

``omitted-is-default``: for each of ``members`` (body members with a schema ``default``), the
rows read to the end without it are the rows read with it set to its default (the same ids; the
order is not judged, paging may order ties its own way).
"""

from __future__ import annotations

from typing import Any

from hypothesis import example
from hypothesis import strategies as st

from conformance.checks.boundary import with_member
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.paging import PAGING_PARAMS, dig, member_names, sender, walk
from conformance.checks.registry import named
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__ = ["filters_combine", "omitted_is_default", "read_every_page"]

ABSENT = "conformance-absent-value"
_TEMPLATE = {"type": "object", "properties": {"append": {"type": "string"}, "entry": {}},
             "required": ["append", "entry"], "additionalProperties": False}


def read_every_page(ctx: CheckContext, params: dict[str, Any], set_members: dict[str, Any] | None = None,
                    drop: tuple[str, ...] = (), operation: str | None = None) -> list[Any]:
    """Every item of ``operation`` (the rule's where None), its body's ``set`` members and
    ``set_members`` on top (``drop``: members left out), page by page to the end (not reaching it
    within ``max_pages``: not exercised)."""
    params = dict(params)
    if set_members:
        body = dict(params.get("set") or {})
        for dotted, value in set_members.items():
            body = with_member(body, dotted, value)
        params["set"] = body
    operation = operation or str(ctx.rule.operation)
    send = sender(ctx, params, operation)
    # A numbered walk names its page size on every request where the rule gives its member.
    fixed = {params["limit_param"]: params["page_size"]} if "limit_param" in params and "page_size" in params else {}

    def fetch(query: dict[str, Any]) -> Exchange:
        exchange = send({**fixed, **query}, drop=drop)
        expect_status(ctx.rule.id, exchange, set(range(200, 300)), "a page of the read")
        schema = ctx.contract.response_schema(operation, exchange.response.status)
        if schema is not None:
            expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, "a page of the read")
        return exchange

    if params["style"] == "page" and "first_page" not in params and "first_page_field" in params:
        stated = str(dig(fetch({}).response.json(), params["first_page_field"]))
        if not stated.lstrip("-").isdigit():
            ctx.skip(f"the first page number is unknown ({params['first_page_field']} {stated!r})")
        params["first_page"] = int(stated)
    result = walk(ctx, fetch, params)
    if not result.ended:
        ctx.skip(f"the read needs more than {len(result.pages)} pages (max_pages): not read to the end")
    return result.items


def _text(row: Any, member: str) -> str:
    value = dig(row, member) if isinstance(row, dict) else None
    return "" if value is None else str(value)


def _entry(template: Any, member: str, value: str) -> Any:
    if isinstance(template, str):
        return template.replace("{$member}", member).replace("{$value}", value)
    if isinstance(template, dict):
        return {key: _entry(item, member, value) for key, item in template.items()}
    return template


@named("filters-combine", params={**PAGING_PARAMS, "members": {"type": "array", "items": {"type": "string"},
                                                              "minItems": 2},
                                  "filter": _TEMPLATE}, required=("style", "members", "filter", "id_field"))
def filters_combine(ctx: CheckContext) -> None:
    params = member_names(ctx, ctx.rule.params)
    key, spot, template = params["id_field"], params["filter"]["append"], params["filter"]["entry"]
    universe = read_every_page(ctx, params)
    values = {m: sorted({_text(r, m) for r in universe} - {""}) for m in params["members"]}
    values = {m: v for m, v in values.items() if v}
    if len(values) < 2 or not any(len(v) >= 2 for v in values.values()):
        ctx.skip("the rows do not vary over two filterable members: filters not exercised")
    members = sorted(values)
    wide = next(m for m in members if len(values[m]) >= 2)
    other = next(m for m in members if m != wide)
    pair = st.sampled_from(members).flatmap(lambda m: st.tuples(st.just(m), st.sampled_from([*values[m], ABSENT])))

    @ctx.given(str(ctx.rule.operation), strategy=st.lists(pair, min_size=1, max_size=4, unique=True))
    @example([(wide, values[wide][0]), (wide, values[wide][1])])  # OR within one member
    @example([(wide, values[wide][0]), (other, values[other][0])])  # AND across members
    def matches(filters: list[tuple[str, str]]) -> None:
        chosen: dict[str, set[str]] = {}
        for member, value in filters:
            chosen.setdefault(member, set()).add(value)
        expected = {_text(r, key) for r in universe if all(_text(r, m) in v for m, v in chosen.items())}
        got_rows = read_every_page(ctx, params, {spot: [_entry(template, m, v) for m, v in filters]})
        got = {_text(r, key) for r in got_rows}
        expect(got == expected, ctx.rule.id, f"filters {filters}: {len(got)} rows, {len(expected)} expected "
               f"({len(got - expected)} extra, {len(expected - got)} missing)", exchange=ctx.session.exchanges[-1],
               expected="OR within one member, AND across members")

    matches()


@named("omitted-is-default", params={**PAGING_PARAMS, "members": {"type": "array", "items": {"type": "string"},
                                                                 "minItems": 1}},
       required=("style", "members", "id_field"))
def omitted_is_default(ctx: CheckContext) -> None:
    params, operation = member_names(ctx, ctx.rule.params), str(ctx.rule.operation)
    key = params["id_field"]
    for member in params["members"]:
        try:
            default = ctx.contract.where_schema(operation, f"body.{member}").get("default")
        except KeyError:
            default = None
        if default is None:
            raise ContractFileError(f"{ctx.rule.id}: body.{member} of {operation} states no default")
        omitted = {_text(r, key) for r in read_every_page(ctx, params, drop=(member,))}
        sent = {_text(r, key) for r in read_every_page(ctx, params, {member: default})}
        expect(sent == omitted, ctx.rule.id, f"omitting {member} gives {len(omitted)} rows, {member}={default} "
               f"gives {len(sent)} ({len(omitted - sent)} extra, {len(sent - omitted)} missing)",
               exchange=ctx.session.exchanges[-1], expected=f"{member} defaults to {default}")
