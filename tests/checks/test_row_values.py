"""The core check ``row-values`` against a tiny offset-paged list: it walks every page (page
size and page budget read from the limit and offset parameters' maxima), passes rows whose
member is valid under the rule's schema, fails a row whose member is not (also on a later
page), and skips (never passes) where no row carries the member or the list has no rows array.
Walked per filter value: a list ignoring the filter fails; of a value named twice, a list taking
either name passes (which one observed), one taking neither fails."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from conformance.checks.rows import row_values
from conformance.contract import Contract, Gap, Rule
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


# -- per filter value: "state=s returns only listings in state s", one state named twice ------------------
STATES = {"type": "string", "enum": ["active", "inactive", "edit", "draft"]}
LISTINGS = [{"id": n, "state": s} for n, s in enumerate(["active", "active", "inactive", "draft", "inactive"])]
GROUPS = {"inactive": {"inactive", "edit"}, "edit": {"inactive", "edit"}}


def listings(*, takes: tuple[str, ...] = ("inactive", "edit"), ignores: str = "", shows: str = "") -> Any:
    def handle(request: Request) -> Response:
        assert request.path == "/s1/receipts"
        q = dict(request.query)
        state = q.get("state", "active")
        if state in GROUPS and state not in takes:
            return Response.json_response(400, {"error": f"unknown state {state}"})
        wanted = GROUPS.get(state, {state}) if state != ignores else {"active"}
        rows = [{**r, "state": shows or r["state"]} for r in LISTINGS if r["state"] in wanted]
        start = int(q.get("offset", "0"))  # the probe of an alias sends no paging
        return Response.json_response(200, {"count": len(rows), "results": rows[start:start + 3]})

    return handle


def _filtered(**params: Any) -> Rule:
    return Rule(id="demo.rows.rule", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /{shop}/receipts",
                params={"check": "row-values", **WALK, "member": "state", "observes": "demo.gap.alias",
                        "each": {"query": "state", "values": STATES, "aliases": [["inactive", "edit"]]}, **params})


FILTER, VALUES = _filtered(matches=True), _filtered(schema=STATES, unfiltered=True)


def run_observed(rule: Rule, handle: Any) -> dict[str, str]:
    gap = Gap("demo.gap.alias", "which name is taken is not shown", None)  # type: ignore[arg-type]
    contract = Contract("demo", "demo", OPENAPI, [rule], [gap], [], {"defaults": {"ITEMS_FIELD": "results"}})
    ctx = context(contract, rule, handle, {"SHOP_ID": "s1"})
    row_values(ctx)
    return ctx.observations


@pytest.mark.parametrize(("takes", "shown"), [(("inactive", "edit"), "inactive, edit"), (("edit",), "edit")])
def test_each_value_walked_and_one_name_of_a_group_is_enough(takes: tuple[str, ...], shown: str) -> None:
    assert run_observed(FILTER, listings(takes=takes)) == {"demo.gap.alias": f"filter takes {shown}"}
    run_observed(VALUES, listings(takes=takes))


def test_a_filter_ignored_or_a_group_refused_whole_fails() -> None:
    with pytest.raises(ContractFailure, match="state=draft returned a row whose state is 'active'"):
        run_observed(FILTER, listings(ignores="draft"))
    with pytest.raises(ContractFailure, match="no name of inactive or edit is taken"):
        run_observed(FILTER, listings(takes=()))


def test_a_value_off_the_list_read_under_a_filter_fails() -> None:
    with pytest.raises(ContractFailure, match="'Draft'"):
        run_observed(VALUES, listings(shows="Draft"))


def test_rows_of_one_state_cannot_show_the_filter_and_are_not_exercised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "LISTINGS", [{"id": n, "state": "active"} for n in range(3)])
    with pytest.raises(RuleSkipped, match="every row read carries one state .active.: a server ignoring"):
        run_observed(FILTER, listings())
