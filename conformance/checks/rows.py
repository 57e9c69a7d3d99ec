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


@named("row-values", params={**PAGING_PARAMS, "member": {"type": "string"}, "schema": {"type": "object"},
                             "query": {"type": "object"},
                             "path_values": {"type": "object", "additionalProperties": {"type": "string"}}},
       required=("style", "items_field", "member", "schema"))
def row_values(ctx: CheckContext) -> None:
    rule = ctx.rule
    if not rule.operation:
        raise ContractFileError(f"{rule.id}: row-values needs the rule's operation (the list)")
    operation = rule.operation
    names = {k: v for k, v in rule.params.items() if k in PAGING_PARAMS}
    params = _offset_numbers(ctx, operation, member_names(ctx, names))
    member = str(setting_param(ctx, rule.params["member"], {"type": "string"}))
    path_values = fill_path(ctx, operation, rule.params.get("path_values"))
    pages = 0

    def fetch(query: dict[str, Any]) -> Exchange:
        nonlocal pages
        exchange = ctx.call(operation, params={**(rule.params.get("query") or {}), **query} or None,
                            path_values=path_values)
        pages += 1
        if pages == 1 and 200 <= exchange.response.status < 300:
            if items_of(exchange.response.json(), params["items_field"]) is None:
                ctx.skip(f"the list has no '{params['items_field']}' array (where its rows are is a target "
                         "setting where the document does not show it)")
        return exchange

    rows = [(item, page.exchange) for page in walk(ctx, fetch, params).pages for item in page.items
            if _carries(item, member)]
    if not rows:
        ctx.skip(f"no row carries a '{member}' member (its name may be a target setting)")
    check = validator(ctx.contract, rule.params["schema"])
    for item, exchange in rows:
        error = next(iter(check.iter_errors(dig(item, member))), None)
        expect(error is None, rule.id, f"a row's {member} {dig(item, member)!r}: {error.message if error else ''}",
               exchange=exchange, expected=f"{member} valid under {rule.params['schema']}")
