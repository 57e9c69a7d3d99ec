"""The generic paging walk, style by style, against a tiny list server: it passes a correct
list, skips a list of one page, and fails each way a list can break (an item twice, a total that
is not met, no end, items after the claimed end, a short page before the last, a cap exceeded)."""

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

OPERATION = "GET /items"
ITEMS = [{"id": f"i{n}"} for n in range(23)]

# style -> params of the walk check
STYLES: dict[str, dict[str, Any]] = {
    "cursor": {"style": "cursor", "cursor_param": "after", "next_field": "nextCursor", "more_field": "hasMore"},
    "cursor-no-flag": {"style": "cursor", "cursor_param": "page_cursor", "next_field": "paging.next_cursor",
                       "items_field": "data"},
    "page-total": {"style": "page", "page_param": "page", "first_page": 1, "total_field": "total",
                   "page_size": 10, "full_pages": True, "items_field": "results"},
    "page-pages": {"style": "page", "page_param": "page", "first_page": 1, "total_pages_field": "total_pages",
                   "page_size": 10, "items_field": "results"},
    "page-more": {"style": "page", "page_param": "page", "first_page": 1, "more_field": "more", "page_size": 10,
                  "items_field": "results"},
    "offset": {"style": "offset", "offset_param": "offset", "limit_param": "limit", "limit": 10,
               "count_field": "count", "items_field": "results"},
    "key": {"style": "key", "cursor_param": "starting_after", "page_size": 10, "items_field": "data"},
}

Server = Callable[[httpx.Request], httpx.Response]


def _page_of(items: list[dict[str, Any]], start: int, size: int) -> list[dict[str, Any]]:
    return items[start:start + size]


def list_server(style: str, items: list[dict[str, Any]], *, size: int = 10, break_: str = "") -> Server:
    """A correct list in ``style``; ``break_`` names one way to get it wrong."""

    def handle(request: httpx.Request) -> httpx.Response:
        q = dict(request.url.params)
        if style.startswith("cursor"):
            start = int(q.get("after") or q.get("page_cursor") or 0)
        elif style.startswith("page"):
            start = (int(q.get("page", 1)) - 1) * size
        elif style == "offset":
            start = int(q.get("offset", 0))
        else:
            after = q.get("starting_after")
            start = next(i for i, it in enumerate(items) if it["id"] == after) + 1 if after else 0
        page = _page_of(items, start, size)
        following = start + size
        more = following < len(items)
        if break_ == "duplicate" and start > 0:
            page = [items[0], *page[1:]]
        if break_ == "endless":
            more, following = True, start  # always another page, always the same
        if break_ == "short-page" and start == 0:
            page = page[:-1]
        if break_ == "past-end" and start >= len(items):
            page = items[:1]
        total = len(items) + (5 if break_ == "wrong-total" else 0)
        body: dict[str, Any]
        if style == "cursor":
            body = {"data": page, "hasMore": more, "nextCursor": str(following) if more else None}
        elif style == "cursor-no-flag":
            body = {"data": page, "paging": {"next_cursor": str(following)} if more else {}}
        elif style == "page-total":
            body = {"results": page, "total": total + (start if break_ == "drifting-total" else 0)}
        elif style == "page-pages":
            body = {"results": page, "total_pages": -(-len(items) // size) + (9 if break_ == "endless" else 0)}
        elif style == "page-more":
            body = {"results": page, "more": more}
        elif style == "offset":
            body = {"results": page, "count": total}
        else:
            body = {"data": page}
        return httpx.Response(200, json=body)

    return handle


def run_walk(server: Server, params: dict[str, Any]) -> None:
    contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": {"/items": {"get": {"responses": {}}}}},
                        [], [], [], {})
    rule = Rule(id="demo.list.walk", kind="paging", statement="s", source=None,  # type: ignore[arg-type]
                operation=OPERATION, params={"check": "paging-walk", "max_pages": 8, **params})
    target = SimpleNamespace(name="sim", capabilities=Capabilities(), credential=lambda name: None)
    client = httpx.Client(base_url="http://demo.invalid", transport=httpx.MockTransport(server))
    session = Session(client, base_url="http://demo.invalid", sleep=lambda s: None)
    paging_walk(CheckContext(contract, rule, target, session))  # type: ignore[arg-type]


@pytest.mark.parametrize("style", STYLES)
def test_a_correct_list_passes(style: str) -> None:
    run_walk(list_server(style, ITEMS), STYLES[style])


@pytest.mark.parametrize("style", STYLES)
def test_a_list_of_one_page_is_skipped_not_passed(style: str) -> None:
    with pytest.raises(RuleSkipped, match="not exercised"):
        run_walk(list_server(style, ITEMS[:4]), STYLES[style])


@pytest.mark.parametrize("style", STYLES)
def test_an_item_twice_fails(style: str) -> None:
    with pytest.raises(ContractFailure, match="already on page"):
        run_walk(list_server(style, ITEMS, break_="duplicate"), STYLES[style])


@pytest.mark.parametrize("style", ["cursor", "cursor-no-flag", "page-pages", "page-more"])
def test_a_list_without_end_fails(style: str) -> None:
    with pytest.raises(ContractFailure, match="did not end|already on page|still says|pages; the walk found"):
        run_walk(list_server(style, ITEMS, break_="endless"), STYLES[style])


@pytest.mark.parametrize("style", ["cursor", "cursor-no-flag", "key"])
def test_a_list_longer_than_the_reading_budget_is_not_exercised(style: str) -> None:
    # max_pages is the harness's budget, not the document's: 20 fresh pages of a 200-item list
    # without a stated total are no proof the list never ends.
    many = [{"id": f"i{n}"} for n in range(200)]
    with pytest.raises(RuleSkipped, match="reading budget"):
        run_walk(list_server(style, many), STYLES[style])


@pytest.mark.parametrize("style", ["page-total", "offset"])
def test_a_stated_total_not_met_fails(style: str) -> None:
    with pytest.raises(ContractFailure, match="target states|did not end|full page"):
        run_walk(list_server(style, ITEMS, break_="wrong-total"), STYLES[style])


def test_a_total_that_changes_between_pages_fails() -> None:
    with pytest.raises(ContractFailure, match="same total on every page"):
        run_walk(list_server("page-total", ITEMS, break_="drifting-total"), STYLES["page-total"])


def test_a_short_page_before_the_last_fails() -> None:
    with pytest.raises(ContractFailure, match="full page"):
        run_walk(list_server("page-total", ITEMS, break_="short-page"), STYLES["page-total"])


@pytest.mark.parametrize("style", ["page-more", "key"])
def test_items_after_the_claimed_end_fail(style: str) -> None:
    # 20 items in pages of 10: the last page is full, so the walk probes the next one.
    # (a key walk reaches that page itself, as its last page was full: it sees an item twice)
    with pytest.raises(ContractFailure, match="next page has|already on page"):
        run_walk(list_server(style, ITEMS[:20], break_="past-end"), STYLES[style])


def test_a_cap_is_respected() -> None:
    with pytest.raises(ContractFailure, match="more than the cap"):
        run_walk(list_server("key", ITEMS), {**STYLES["key"], "cap": 15})


def test_a_list_longer_than_max_pages_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="more than max_pages"):
        run_walk(list_server("page-total", ITEMS * 5), STYLES["page-total"])


def test_body_shapes_are_plain_json() -> None:
    response = list_server("cursor", ITEMS)(httpx.Request("GET", "http://demo.invalid/items"))
    assert json.loads(response.content)["hasMore"] is True


def test_a_key_walk_follows_the_targets_own_cursor_where_the_first_page_has_one() -> None:
    # A key walk naming the target's cursor member: a list giving it is walked as a cursor list
    # (a target choosing either way where the document does not say conforms)...
    run_walk(list_server("cursor", ITEMS), {"style": "key", "cursor_param": "after", "next_field": "nextCursor",
                                            "page_size": 10})
    # ...and a list without it by the last item's id
    run_walk(list_server("key", ITEMS), {**STYLES["key"], "next_field": "nextCursor"})
    with pytest.raises(ContractFailure, match="already on page"):
        run_walk(list_server("cursor", ITEMS, break_="duplicate"),
                 {"style": "key", "cursor_param": "after", "next_field": "nextCursor", "page_size": 10})
