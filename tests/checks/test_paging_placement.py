"""paging-walk with its page members in the request body (``in: body``, ``body_member``), member
names and numbers from target settings, a budget read from the stated page count, the first page
the target states (``first_page_field``), and ``present_only_when_more`` checked both ways (the
pages it announced also where the budget ends the walk)."""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from conformance.checks.context import CheckContext
from conformance.checks.paging import paging_walk
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.targets.base import Capabilities
from conformance.transport.session import Session

ITEMS = [{"guid": f"g{n}"} for n in range(23)]
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {"/report": {"post": {
        "requestBody": {"content": {"application/json": {
            "schema": {"type": "object"}, "example": {"filters": ["all"], "paging": {}}}}},
        "responses": {"200": {"description": "a page"}}}}},
}

Server = Callable[[httpx.Request], httpx.Response]


def body_server(*, first: int = 1, size: int = 10, holder: str = "", break_: str = "") -> Server:
    """Pages by number (``page``/``size`` in ``holder`` or the body) or by cursor (``cursor``);
    ``paging`` present only when more data exists."""

    def handle(request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content or b"{}")
        assert sent.get("filters") == ["all"], "the example body travels with every page"
        members = sent.get(holder, {}) if holder else sent
        if "cursor" in members:
            start = int(members["cursor"])
        else:
            start = (int(members.get("page", first)) - first) * int(members.get("size", size))
        step = int(members.get("size", size))
        rows = ITEMS[start:start + step]
        body: dict[str, Any] = {"data": rows, "page": int(members.get("page", first)),
                                "total_pages": -(-len(ITEMS) // step)}
        if start + step < len(ITEMS) or (break_ == "member-on-last" and rows) or break_ == "member-always":
            body["paging"] = {"next": str(start + step)}
        return httpx.Response(200, json=body)

    return handle


def run(server: Server, params: dict[str, Any], settings: dict[str, str] | None = None) -> None:
    contract = Contract("demo", "demo", OPENAPI, [], [], [], {"defaults": settings or {}})
    rule = Rule(id="demo.report.walk", kind="paging", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /report", params={"check": "paging-walk", "in": "body", **params})
    target = SimpleNamespace(name="sim", capabilities=Capabilities(), credential=lambda name: None)
    client = httpx.Client(base_url="http://demo.invalid", transport=httpx.MockTransport(server))
    session = Session(client, base_url="http://demo.invalid", sleep=lambda s: None)
    paging_walk(CheckContext(contract, rule, target, session))  # type: ignore[arg-type]


NUMBERED = {"style": "page", "page_param": "page", "first_page": 1, "total_pages_field": "total_pages",
            "items_field": "data", "id_field": "guid", "page_size": 10, "full_pages": True}
CURSOR = {"style": "cursor", "cursor_param": "cursor", "next_field": "paging.next", "items_field": "data",
          "id_field": "guid", "max_pages": 8, "present_only_when_more": "paging"}


def test_a_numbered_walk_in_the_body_reads_as_many_pages_as_stated() -> None:
    run(body_server(), NUMBERED)  # no max_pages: page 1's total_pages is the budget


def test_page_members_in_a_body_object_named_by_settings_from_a_stated_first_page() -> None:
    params = {**NUMBERED, "body_member": "paging", "page_param": "{PAGE_MEMBER}", "limit_param": "{SIZE_MEMBER}",
              "first_page": "{FIRST_PAGE}", "first_page_field": "page", "page_size": 5}
    run(body_server(first=0, size=10, holder="paging"), params, {"PAGE_MEMBER": "page", "SIZE_MEMBER": "size"})
    # the FIRST_PAGE setting, where given, wins over what the target states
    run(body_server(first=0, size=10, holder="paging"), params,
        {"PAGE_MEMBER": "page", "SIZE_MEMBER": "size", "FIRST_PAGE": "0"})
    with pytest.raises(ContractFailure):  # a first page the target does not use
        run(body_server(first=0, size=10, holder="paging"), params,
            {"PAGE_MEMBER": "page", "SIZE_MEMBER": "size", "FIRST_PAGE": "1"})


def test_a_member_present_only_when_more_passes_both_ways() -> None:
    run(body_server(), CURSOR)


def test_the_member_on_the_last_page_fails() -> None:
    with pytest.raises(ContractFailure, match="holds no items|still carries paging"):
        run(body_server(break_="member-on-last"), CURSOR)


def test_the_member_on_every_page_fails_although_the_budget_ends_the_walk() -> None:
    # A cursor past the data on every empty page: the walk never ends within max_pages, yet the
    # pages the member announced hold nothing, which fails (it read as a long list before).
    with pytest.raises(ContractFailure, match="page 4, announced by the previous page's paging, holds no items"):
        run(body_server(break_="member-always"), CURSOR)
    # A conforming list longer than the budget (12 pages of 2) is still not exercised, never failed.
    with pytest.raises(RuleSkipped, match="reading budget"):
        run(body_server(size=2), {**CURSOR, "set": {"size": 2}})


def test_one_page_carrying_the_member_fails_one_page_without_it_skips() -> None:
    with pytest.raises(RuleSkipped, match="not exercised"):
        run(body_server(size=30), {**CURSOR, "set": {"size": 30}})
    with pytest.raises(ContractFailure, match="holds no items"):
        run(body_server(size=30, break_="member-on-last"), {**CURSOR, "set": {"size": 30}})


def test_a_walk_without_a_page_count_or_budget_is_a_contract_error() -> None:
    params = {k: v for k, v in NUMBERED.items() if k != "total_pages_field"}
    with pytest.raises(Exception, match="needs max_pages"):
        run(body_server(), params)


def named_server(*, break_: str = "") -> Server:
    """POST /report: the example's filter lists every item (10 a page); ``id.eq(...)`` only those
    items, ``size`` a page by cursor, paging present only when more data exists."""

    def handle(request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content or b"{}")
        [entry] = sent["filters"]
        rows = ITEMS if entry == "all" else [i for i in ITEMS if i["guid"] in entry[6:-1].split(", ")]
        start, step = int(sent.get("cursor", 0)), int(sent.get("size", 10))
        body: dict[str, Any] = {"data": rows[start:start + step]}
        if start + step < len(rows) or (break_ == "member-on-last" and rows[start:start + step]):
            body["paging"] = {"next": str(start + step)}
        return httpx.Response(200, json=body)

    return handle


def test_values_read_by_the_operations_example_body_make_a_list_the_walk_ends() -> None:
    # Five items named by id, two a page: the end is reached whatever the whole list holds.
    named = {**CURSOR, "set": {"size": 2, "filters": ["id.eq({values})"]},
             "values_from": {"operation": "POST /report", "items_field": "data", "member": "guid", "count": 5}}
    run(named_server(), named)
    with pytest.raises(ContractFailure, match="page 4, announced by the previous page's paging, holds no items"):
        run(named_server(break_="member-on-last"), named)
