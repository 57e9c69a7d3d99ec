"""The core check ``row-values`` against a tiny offset-paged list: it walks every page (page
size and page budget read from the limit and offset parameters' maxima), passes rows whose
member is valid under the rule's schema, fails a row whose member is not (also on a later
page), and skips (never passes) where no row carries the member or the list has no rows array."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.rows import row_values
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "components": {"schemas": {"Status": {"type": "string", "enum": ["open", "paid"]}}},
    "paths": {"/{shop}/receipts": {"get": {"security": [], "parameters": [
        {"name": "shop", "in": "path", "required": True, "schema": {"type": "string"}},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 3}},
        {"name": "offset", "in": "query", "schema": {"type": "integer", "maximum": 9}}],
        "responses": {"200": {"description": "receipts"}}}}}}
WALK = {"style": "offset", "offset_param": "offset", "limit_param": "limit", "count_field": "count",
        "items_field": "{ITEMS_FIELD}", "path_values": {"shop": "{SHOP_ID}"}}


def receipts(rows: list[dict[str, Any]], items: str = "results") -> Any:
    seen: list[dict[str, str]] = []

    def handle(request: Request) -> Response:
        q = dict(request.query)
        seen.append(q)
        assert request.path == "/s1/receipts" and q["limit"] == "3"  # the limit's maximum
        start = int(q["offset"])
        return Response.json_response(200, {"count": len(rows), items: rows[start:start + 3]})

    handle.seen = seen  # type: ignore[attr-defined]
    return handle


def _rule(**params: Any) -> Rule:
    return Rule(id="demo.rows.rule", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /{shop}/receipts", params={"check": "row-values", **WALK, **params})


STATUS = _rule(member="status", schema={"$ref": "#/components/schemas/Status"})
ROWS = [{"id": n, "status": "paid" if n % 2 else "open"} for n in range(7)]


def run(rule: Rule, handle: Any) -> None:
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {"defaults": {"ITEMS_FIELD": "results"}})
    row_values(context(contract, rule, handle, {"SHOP_ID": "s1"}))


def test_every_page_is_walked_and_listed_values_pass() -> None:
    handle = receipts(ROWS)
    run(STATUS, handle)
    assert [q["offset"] for q in handle.seen] == ["0", "3", "6"]


def test_a_value_off_the_list_on_a_later_page_fails() -> None:
    with pytest.raises(ContractFailure, match="'refunded'"):
        run(STATUS, receipts([*ROWS[:5], {"id": 9, "status": "refunded"}]))


def test_a_quantity_schema_holds_every_row_carrying_it() -> None:
    rule = _rule(member="quantity", schema={"type": "integer", "exclusiveMinimum": 0}, query={"state": "active"})
    run(rule, receipts([{"id": 1, "quantity": 2}, {"id": 2}]))
    with pytest.raises(ContractFailure, match="quantity 0"):
        run(rule, receipts([{"id": 1, "quantity": 0}]))


@pytest.mark.parametrize(("rows", "items", "reads"), [([{"id": 1}], "results", "no row carries a 'status'"),
                                                      (ROWS, "data", "no 'results' array")])
def test_nothing_to_judge_is_skipped(rows: list[dict[str, Any]], items: str, reads: str) -> None:
    with pytest.raises(RuleSkipped, match=reads):
        run(STATUS, receipts(rows, items))
