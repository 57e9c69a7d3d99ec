"""``row-values``: every row of a list, walked to its end, holds ``member`` to ``schema``
(a value the document lists, a quantity above 0), for rules such as "every receipt's status is
one of ..." or "an active listing has quantity" (with ``query: {state: active}``).

The list is the rule's operation with ``query`` and ``path_values``, walked by the core walkers
(``checks.paging.walk``; params as ``paging-walk`` takes them). An offset walk may leave its
numbers to the contract: ``limit`` defaults to the limit parameter's maximum (the fewest pages)
and ``max_pages`` to as many as the offset parameter's maximum reaches. ``member`` and
``items_field`` may name target settings (``"{ITEMS_FIELD}"``) where the document does not show
them: where the first page has no such array, or no row carries the member, the rule is skipped
saying so, never passed.

``each: {query, values, aliases}`` walks the list once per value of a filter (the enum of the
``values`` schema), so rows a list without the filter leaves out are read too (and, with
``unfiltered``, once without it); ``matches`` holds each row's member to the filter value it was
read with: "state=s returns only listings in state s"; where every row read carries one value
(one group), a server ignoring the filter answers alike: not exercised, said so. A document may name one value twice
(``aliases``: "inactive or edit"); which name a filter takes may then not be shown: a name of a
group may be refused (a 4xx, never a 5xx) as long as another name of its group is taken, a row
matches any name of its group, and which names were taken is reported to ``params.observes``.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import setting_param
from conformance.checks.expect import expect, validator
from conformance.checks.paging import PAGING_PARAMS, dig, items_of, member_names, walk
from conformance.checks.registry import named
from conformance.checks.shape import fill_path
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__ = ["row_values"]

_EACH = {"type": "object", "required": ["query", "values"], "additionalProperties": False, "properties": {
    "query": {"type": "string"}, "values": {"type": "object"},
    "aliases": {"type": "array", "items": {"type": "array", "items": {"type": "string"}, "minItems": 2}}}}

Rows = list[tuple[dict[str, Any], Exchange, Any]]  # (row, its page's exchange, the filter value it was read with)


def _offset_numbers(ctx: CheckContext, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """An offset walk's page size and page budget, from the contract where the rule gives none."""
    if params.get("style") != "offset":
        return params
    out = dict(params)
    if "limit" not in out:
        out["limit"] = ctx.contract.where_schema(operation, f"query.{out['limit_param']}")["maximum"]
    if "max_pages" not in out:
        out["max_pages"] = int(ctx.contract.where_schema(operation, f"query.{out['offset_param']}")["maximum"]) \
            // out["limit"] + 1
    return out


def _carries(row: Any, member: str) -> bool:
    """The row has the (dotted) member, whatever its value (a null is a value to judge)."""
    head, _, last = member.rpartition(".")
    holder = dig(row, head) if head else row
    return isinstance(holder, dict) and last in holder


class _List:
    """The rule's list, walked with a filter or without."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx, self.rule = ctx, ctx.rule
        if not self.rule.operation:
            raise ContractFileError(f"{self.rule.id}: row-values needs the rule's operation (the list)")
        self.operation = self.rule.operation
        names = {k: v for k, v in self.rule.params.items() if k in PAGING_PARAMS}
        self.params = _offset_numbers(ctx, self.operation, member_names(ctx, names))
        self.path_values = fill_path(ctx, self.operation, self.rule.params.get("path_values"))

    def send(self, query: dict[str, Any]) -> Exchange:
        return self.ctx.call(self.operation, params={**(self.rule.params.get("query") or {}), **query} or None,
                             path_values=self.path_values)

    def rows(self, filtered: dict[str, Any]) -> list[tuple[dict[str, Any], Exchange]]:
        pages = 0

        def fetch(query: dict[str, Any]) -> Exchange:
            nonlocal pages
            exchange = self.send({**filtered, **query})
            pages += 1
            if pages == 1 and 200 <= exchange.response.status < 300:
                if items_of(exchange.response.json(), self.params["items_field"]) is None:
                    self.ctx.skip(f"the list has no '{self.params['items_field']}' array (where its rows are is a "
                                  "target setting where the document does not show it)")
            return exchange

        return [(item, page.exchange) for page in walk(self.ctx, fetch, self.params).pages for item in page.items
                if isinstance(item, dict)]


def _taken(ctx: CheckContext, listed: _List, name: str, values: list[Any], groups: list[list[str]]) -> list[Any]:
    """The filter values the list takes: every value, but a name of an alias group only where a
    request with it is accepted; one name of each group must be (module doc)."""
    taken: list[Any] = []
    last: Exchange | None = None
    for value in values:
        if not any(value in g for g in groups):
            taken.append(value)
            continue
        last = listed.send({name: value})
        expect(last.response.status < 500, ctx.rule.id, f"{name}={value} crashed", exchange=last,
               expected="an answer below 500")
        if 200 <= last.response.status < 300:
            taken.append(value)
    for group in groups:
        expect(any(v in taken for v in group), ctx.rule.id, f"no name of {' or '.join(group)} is taken by the "
               f"{name} filter", exchange=last, expected="at least one of them")
    if groups and ctx.rule.params.get("observes"):
        ctx.observed(f"filter takes {', '.join(v for g in groups for v in g if v in taken)}")
    return taken


@named("row-values", params={**PAGING_PARAMS, "member": {"type": "string"}, "schema": {"type": "object"},
                             "matches": {"type": "boolean"}, "each": _EACH, "unfiltered": {"type": "boolean"},
                             "query": {"type": "object"},
                             "path_values": {"type": "object", "additionalProperties": {"type": "string"}}},
       required=("style", "items_field", "member"))
def row_values(ctx: CheckContext) -> None:
    rule, params = ctx.rule, ctx.rule.params
    if "schema" not in params and not params.get("matches"):
        raise ContractFileError(f"{rule.id}: row-values judges rows by a schema or by the filter (matches)")
    listed = _List(ctx)
    member = str(setting_param(ctx, params["member"], {"type": "string"}))
    read: Rows = []
    each: dict[str, Any] = params.get("each") or {}
    groups = [list(g) for g in each.get("aliases") or []]
    if each:
        values = ctx.contract.deref(each["values"]).get("enum") or []
        for value in _taken(ctx, listed, each["query"], values, groups):
            read += [(row, exchange, value) for row, exchange in listed.rows({each["query"]: value})]
    if not each or params.get("unfiltered"):
        read += [(row, exchange, None) for row, exchange in listed.rows({})]
    rows = [(row, exchange, value) for row, exchange, value in read if _carries(row, member)]
    if not rows:
        ctx.skip(f"no row carries a '{member}' member (its name may be a target setting)")
    check = validator(ctx.contract, params["schema"]) if "schema" in params else None
    for row, exchange, value in rows:
        got = dig(row, member)
        if check is not None:
            error = next(iter(check.iter_errors(got)), None)
            expect(error is None, rule.id, f"a row's {member} {got!r}: {error.message if error else ''}",
                   exchange=exchange, expected=f"{member} valid under {params['schema']}")
        if params.get("matches") and value is not None:
            names = next((g for g in groups if value in g), [value])
            expect(got in names, rule.id, f"{each.get('query')}={value} returned a row whose {member} is {got!r}",
                   exchange=exchange, expected=f"only rows whose {member} is {' or '.join(map(str, names))}")
    if params.get("matches"):
        # Issue 35 item 5: rows of one value (or one group) cannot show a filter changed the answer.
        got_values = [dig(row, member) for row, _, _ in rows]
        shown = {frozenset(next((g for g in groups if got in g), [got])) for got in got_values}
        if len(shown) < 2:
            ctx.skip(f"every row read carries one {member} ({', '.join(sorted(map(str, next(iter(shown)))))}): a "
                     "server ignoring the filter would answer the same, so the filter is not exercised")
