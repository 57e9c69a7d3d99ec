"""The paging fault families (faults/paging.py) against a small in-test contract and list
simulator: each edits only the answers of its rule's operation, as its name says."""

from __future__ import annotations

import json
from typing import Any

from conformance.contract import Contract, Rule
from conformance.contract.model import Source
from conformance.faults.base import Fault
from conformance.faults.paging import PAST_END, paging_faults
from conformance.transport.model import Request, Response

SOURCE = Source("volume-0.md", "Endpoints", "A", "", "a")
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/items": {"get": {"responses": {"200": {"description": "a page"}}}},
    "/messages": {"post": {"responses": {"200": {"description": "a page"}}}},
    "/other": {"get": {"responses": {"200": {"description": "another list"}}}}}}
RULES = [
    Rule("demo.items.page-size", "limit", "s", SOURCE, operation="GET /items", where="query.limit",
         params={"check": "page-size", "items_field": "{ITEMS_FIELD}", "count_field": "count"}),
    Rule("demo.items.count", "paging", "s", SOURCE, operation="GET /items",
         params={"check": "page-size", "only_total": True, "count_field": "count"}),
    Rule("demo.items.walk", "paging", "s", SOURCE, operation="GET /items",
         params={"check": "paging-walk", "style": "offset", "items_field": "{ITEMS_FIELD}", "count_field": "count"}),
    Rule("demo.messages.profiles", "limit", "s", SOURCE, operation="POST /messages",
         params={"check": "count-limit", "most": 2, "values_from": {"operation": "GET /other", "member": "id"},
                 "set": {"filters": ["profile.eq({values})", "day.eq(1)"]}}),
    Rule("demo.messages.walk", "paging", "s", SOURCE, operation="POST /messages",
         params={"check": "paging-walk", "in": "body", "style": "cursor", "cursor_param": "cursor",
                 "next_field": "paging.next", "items_field": "data", "present_only_when_more": "paging"}),
]
CONTRACT = Contract("demo", "demo", OPENAPI, RULES, [], [], {"defaults": {"ITEMS_FIELD": "results"}})
ITEMS = [{"id": n} for n in range(12)]


class Lists:
    """Pages of five: /items and /other by offset, /messages by a cursor in the body."""

    credentials: dict[str, str] = {}

    def handle(self, request: Request) -> Response:
        if request.method == "POST":
            sent = json.loads(request.body or b"{}")
            if "filters" in sent:
                return Response.json_response(200, {"filters": sent["filters"]})
            start = int(sent.get("cursor", 0))
            body: dict[str, Any] = {"data": ITEMS[start:start + 5]}
            if start + 5 < len(ITEMS):
                body["paging"] = {"next": str(start + 5)}
            return Response.json_response(200, body)
        start = int(request.params.get("offset", 0))
        return Response.json_response(200, {"results": ITEMS[start:start + 5], "count": len(ITEMS)})


def _faults() -> dict[str, Fault]:
    return {f.name: f for f in paging_faults(CONTRACT)}


def _get(sim: Any, path: str, offset: int = 0) -> Any:
    return json.loads(sim.handle(Request.build("GET", path, params={"offset": str(offset)})).body)


def _post(sim: Any, cursor: str | None = None) -> Any:
    body = {"cursor": cursor} if cursor is not None else {}
    return json.loads(sim.handle(Request.build("POST", "/messages", json_body=body)).body)


def test_the_families_fit_their_rules_only() -> None:
    assert sorted(_faults()) == ["count-accepted:messages.profiles", "cursor-loops:messages.walk",
                                 "member-on-last-page:messages.walk", "next-on-last-page:messages.walk",
                                 "page-one-over:items.page-size",
                                 "row-repeated:items.walk", "row-repeated:messages.walk", "total-off-by-one:items.walk"]
    assert {f.breaks for f in _faults().values()} == {"demo.items.page-size", "demo.items.walk", "demo.messages.walk",
                                                      "demo.messages.profiles"}


def test_page_one_over_appends_a_copy_of_the_last_item_on_its_operation_only() -> None:
    sim = _faults()["page-one-over:items.page-size"].apply(Lists())
    assert [i["id"] for i in _get(sim, "/items")["results"]] == [0, 1, 2, 3, 4, 4]
    assert len(_get(sim, "/other")["results"]) == 5


def test_row_repeated_starts_each_later_page_with_the_last_item_before() -> None:
    sim = _faults()["row-repeated:items.walk"].apply(Lists())
    assert [i["id"] for i in _get(sim, "/items")["results"]] == [0, 1, 2, 3, 4]
    assert [i["id"] for i in _get(sim, "/items", 5)["results"]] == [4, 6, 7, 8, 9]
    fresh = _faults()["row-repeated:items.walk"].apply(Lists())  # one memory per simulator
    assert [i["id"] for i in _get(fresh, "/items", 5)["results"]] == [5, 6, 7, 8, 9]


def test_member_on_last_page_leads_to_a_page_of_no_items() -> None:
    sim = _faults()["member-on-last-page:messages.walk"].apply(Lists())
    assert _post(sim)["paging"] == {"next": "5"}  # pages with more data are unchanged
    last = _post(sim, "10")
    assert [i["id"] for i in last["data"]] == [10, 11] and last["paging"] == {"next": PAST_END}
    assert _post(sim, PAST_END) == {"data": []}


def test_next_on_last_page_leads_to_pages_of_no_items_each_naming_another() -> None:
    sim = _faults()["next-on-last-page:messages.walk"].apply(Lists())
    assert _post(sim)["paging"] == {"next": "5"}
    assert _post(sim, "10")["paging"] == {"next": PAST_END}
    assert _post(sim, PAST_END) == {"data": [], "paging": {"next": f"{PAST_END}-1"}}
    assert _post(sim, f"{PAST_END}-1") == {"data": [], "paging": {"next": f"{PAST_END}-2"}}


def test_total_off_by_one_states_one_more_than_held() -> None:
    sim = _faults()["total-off-by-one:items.walk"].apply(Lists())
    assert _get(sim, "/items")["count"] == len(ITEMS) + 1
    assert _get(sim, "/other")["count"] == len(ITEMS)


def test_count_accepted_serves_more_values_as_the_first_most() -> None:
    sim = _faults()["count-accepted:messages.profiles"].apply(Lists())
    sent = {"filters": ["profile.eq(1, 2, 3)", "day.eq(1)"]}
    answer = json.loads(sim.handle(Request.build("POST", "/messages", json_body=sent)).body)
    assert answer["filters"] == ["profile.eq(1, 2)", "day.eq(1)"]
