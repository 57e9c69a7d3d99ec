"""The core page-size, param-default, page-past-end and same-total checks against a tiny list
server (httpx MockTransport): each passes a conforming list, including one that chose
differently where the document is silent, fails each deviation it names, and skips (never
passes) where the answer shows no more data follows."""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from conformance.checks.context import CheckContext
from conformance.checks.page_size import count_limit, page_past_end, page_size, param_default, result_cap, same_total
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.targets.base import Capabilities
from conformance.transport.session import Session

ITEMS = [{"id": f"i{n}"} for n in range(23)]
_LIST = {"type": "object"}
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/items": {"get": {
            "parameters": [
                {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 10, "minimum": 5,
                                                             "maximum": 20}},
                {"name": "offset", "in": "query", "schema": {"type": "integer", "default": 0, "maximum": 15}},
                {"name": "page", "in": "query", "schema": {"type": "integer", "default": 1}}],
            "responses": {"200": {"description": "a page", "content": {"application/json": {"schema": _LIST}}}}}},
        "/items/count": {"get": {"responses": {"200": {"description": "a count"}}}},
        "/profiles": {"get": {"responses": {"200": {"description": "the customer's profiles"}}}},
        "/search": {"post": {
            "requestBody": {"content": {"application/json": {
                "schema": {"type": "object", "properties": {"limit": {"type": "integer", "default": 10},
                                                            "page": {"type": "integer"}}},
                "example": {"query": "all", "limit": 4}}}},
            "responses": {"200": {"description": "a page"}, "400": {"description": "refused"}}}},
    },
}

Server = Callable[[httpx.Request], httpx.Response]


def list_server(items: list[dict[str, Any]] = ITEMS, *, default: int = 10, break_: str = "",
                signal: str = "total") -> Server:
    """A correct list: ``limit``/``offset``/``page`` in the query (GET) or the body (POST);
    ``signal`` says how it shows more data (total, count, more, pages, none); ``break_`` one way
    to get it wrong."""

    def handle(request: httpx.Request) -> httpx.Response:
        nonlocal items  # a capped or uncut list: the same on every request
        sent = dict(request.url.params)
        if request.method == "POST":
            sent = {k: str(v) if not isinstance(v, list) else v[0] for k, v in
                    json.loads(request.content or b"{}").items()}
        if request.url.path.endswith("/profiles"):
            return httpx.Response(200, json={"data": [{"pid": float(n)} for n in range(1, 8)]})
        if "filters" in sent:  # at most 5 profiles named
            named = sent["filters"].split("eq(")[1].split(")")[0].split(", ")
            status = 400 if len(named) > 5 or break_ == "refuse-all" else 200
            if break_ == "take-any":
                status = 200
            return httpx.Response(status, json={"named": named})
        if request.url.path.endswith("/count"):
            return httpx.Response(200, json={"total": len(items) + (1 if break_ == "count-off" else 0)})
        size = int(sent.get("limit", default + (1 if break_ == "default-over" else 0)))
        if break_ == "capped":
            size = min(size, 7)
        if signal == "none" and "limit" not in sent:
            size = len(items)  # a list without paging members: everything
        page = int(sent.get("page", 2 if break_ == "default-page-2" else 1))
        if break_ == "uncut":
            items = ITEMS * 3
        elif request.method == "POST" and "cap" in break_:
            items = items[:int(break_.split("-")[1])]
        if break_ == "past-end-served" and page > -(-len(items) // size):
            page = 1
        start = int(sent.get("offset", 0)) + (page - 1) * size
        if break_ == "offset-default-one" and "offset" not in sent:
            start += 1
        rows = items[start:start + size]
        if break_ == "short-last" and page == -(-len(items) // size):
            rows = []
        body: dict[str, Any] = {"results": rows}
        more = start + size < len(items)
        if signal == "total":
            body["total"] = len(items) + (start if break_ == "drifting-total" else 0)
        elif signal == "more":
            body["more"] = more
        elif signal == "pages":
            body["paging"] = {"total_pages": -(-len(items) // size)}
        if request.method == "POST" and page > -(-len(items) // size):
            return httpx.Response(400, json={"message": "no such page"})
        return httpx.Response(200, json=body)

    return handle


def run(check: Callable[[CheckContext], None], server: Server, params: dict[str, Any], *,
        operation: str = "GET /items", where: str | None = "query.limit", violation: dict[str, Any] | None = None,
        ) -> None:
    contract = Contract("demo", "demo", OPENAPI, [], [], [], {})
    rule = Rule(id="demo.list.rule", kind="paging", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, where=where, params=params, violation=violation)
    target = SimpleNamespace(name="sim", capabilities=Capabilities(), credential=lambda name: None)
    client = httpx.Client(base_url="http://demo.invalid", transport=httpx.MockTransport(server))
    session = Session(client, base_url="http://demo.invalid", sleep=lambda s: None)
    check(CheckContext(contract, rule, target, session))  # type: ignore[arg-type]


TOTAL = {"items_field": "results", "total_field": "total"}


# -- page-size ----------------------------------------------------------------------------
@pytest.mark.parametrize("params", [
    TOTAL,
    {"items_field": "results", "more_field": "more"},
    {"items_field": "results", "total_pages_field": "paging.total_pages"},
], ids=["stated-total", "more-flag", "page-count"])
def test_the_default_page_passes_whatever_signal_shows_more(params: dict[str, Any]) -> None:
    signal = {"total_field": "total", "more_field": "more", "total_pages_field": "pages"}
    run(page_size, list_server(signal=signal[next(k for k in params if k != "items_field")]), params)


def test_a_default_page_one_over_fails() -> None:
    with pytest.raises(ContractFailure, match="11 items on one page"):
        run(page_size, list_server(break_="default-over"), TOTAL)


def test_a_short_page_followed_by_more_fails() -> None:
    with pytest.raises(ContractFailure, match="7 items of a stated total 23"):
        run(page_size, list_server(break_="capped"), TOTAL)
    with pytest.raises(ContractFailure, match="followed by more"):
        run(page_size, list_server(break_="capped", signal="more"), {"items_field": "results", "more_field": "more"})


def test_a_list_of_one_page_is_not_exercised_never_passed() -> None:
    with pytest.raises(RuleSkipped, match="not exercised"):
        run(page_size, list_server(ITEMS[:6]), TOTAL)
    # no signal at all: nothing shows more data follows the default page
    with pytest.raises(RuleSkipped, match="not exercised"):
        run(page_size, list_server(ITEMS[:8], signal="none"), {"items_field": "results"})
    with pytest.raises(RuleSkipped, match="not exercised"):
        run(page_size, list_server(ITEMS[:5], signal="none"), {"items_field": "results", "sizes": [5]})


def test_a_cap_reached_with_no_paging_signal_is_exercised() -> None:
    # "returns at most 10": no signal shows more data, but a page of exactly 10 met the bound
    run(page_size, list_server(ITEMS[:10], signal="none"), {"items_field": "results", "page_size": 10},
        where=None)
    with pytest.raises(ContractFailure, match="11 items"):
        run(page_size, list_server(ITEMS[:11], signal="none"), {"items_field": "results", "page_size": 10},
            where=None)


def test_without_a_signal_the_list_without_a_size_shows_more() -> None:
    run(page_size, list_server(signal="none"), {"items_field": "results", "sizes": [5]})
    with pytest.raises(ContractFailure, match="followed by more"):
        run(page_size, list_server(signal="none", break_="capped"), {"items_field": "results", "sizes": [8]})


def test_sizes_from_the_schema_and_offsets_up_to_the_count() -> None:
    params = {**TOTAL, "sizes": ["minimum", "between", "maximum"], "offset_param": "offset"}
    run(page_size, list_server(), params)
    with pytest.raises(ContractFailure, match="limit': 12.*7 items"):
        run(page_size, list_server(break_="capped"), params)


def test_only_total_holds_the_total_alone() -> None:
    params = {**TOTAL, "sizes": ["minimum", "maximum"], "offset_param": "offset", "only_total": True}
    run(page_size, list_server(break_="capped"), params)  # page sizes are another rule's
    with pytest.raises(ContractFailure, match="the same total"):
        run(page_size, list_server(break_="drifting-total"), params)


def test_page_members_in_the_body() -> None:
    params = {"in": "body", "items_field": "results", "total_field": "total"}
    run(page_size, list_server(), params, operation="POST /search", where="body.limit")
    with pytest.raises(ContractFailure, match="11 items"):
        run(page_size, list_server(break_="default-over"), params, operation="POST /search", where="body.limit")


# -- param-default ------------------------------------------------------------------------
def test_a_parameter_left_out_answers_its_default() -> None:
    run(param_default, list_server(), {"items_field": "results"}, where="query.offset")
    run(param_default, list_server(), {"items_field": "results", "id_field": "id"}, where="query.page")
    with pytest.raises(ContractFailure, match="offset=0"):
        run(param_default, list_server(break_="offset-default-one"), {"items_field": "results"}, where="query.offset")
    with pytest.raises(ContractFailure, match="page=1"):
        run(param_default, list_server(break_="default-page-2"), {"items_field": "results"}, where="query.page")
    with pytest.raises(RuleSkipped, match="holds nothing"):
        run(param_default, list_server([]), {"items_field": "results"}, where="query.page")


# -- page-past-end ------------------------------------------------------------------------
PAST = {"in": "body", "page_param": "page", "total_pages_field": "paging.total_pages", "items_field": "results"}


def test_the_page_after_the_last_is_refused() -> None:
    run(page_past_end, list_server(signal="pages"), PAST, operation="POST /search", where=None,
        violation={"status": 400})
    with pytest.raises(ContractFailure, match="page 7 of 6"):
        run(page_past_end, list_server(signal="pages", break_="past-end-served"), PAST, operation="POST /search",
            where=None, violation={"status": 400})
    with pytest.raises(ContractFailure, match="holds no items"):
        run(page_past_end, list_server(signal="pages", break_="short-last"), PAST, operation="POST /search",
            where=None, violation={"status": 400})


# -- same-total ---------------------------------------------------------------------------
def test_a_count_states_the_total_of_its_list() -> None:
    params = {"listed_by": "GET /items", "total_field": "total"}
    run(same_total, list_server(), params, operation="GET /items/count", where=None)
    with pytest.raises(ContractFailure, match="states total 24"):
        run(same_total, list_server(break_="count-off"), params, operation="GET /items/count", where=None)


# -- count-limit --------------------------------------------------------------------------
COUNT = {"most": 5, "values_from": {"operation": "GET /profiles", "items_field": "data", "member": "pid"},
         "set": {"filters": ["profile.eq({values})"]}}


def test_most_listed_values_accepted_one_more_refused() -> None:
    run(count_limit, list_server(), COUNT, operation="POST /search", where=None)
    with pytest.raises(ContractFailure, match="6 values: got status 200"):
        run(count_limit, list_server(break_="take-any"), COUNT, operation="POST /search", where=None)
    with pytest.raises(RuleSkipped, match="control request not accepted"):
        run(count_limit, list_server(break_="refuse-all"), COUNT, operation="POST /search", where=None)
    with pytest.raises(RuleSkipped, match="cannot be named"):
        run(count_limit, list_server(), {**COUNT, "most": 7}, operation="POST /search", where=None)


# -- result-cap ---------------------------------------------------------------------------
CAP = {"in": "body", "cap": 20, "page_param": "page", "total_pages_field": "paging.total_pages",
       "items_field": "results"}


def test_a_paged_answer_is_cut_at_the_cap() -> None:
    # 23 results cut at 20: pages of 4, the page holding result 20 full, the next refused or empty
    run(result_cap, list_server(signal="pages", break_="cap-20"), CAP, operation="POST /search", where=None)
    with pytest.raises(ContractFailure, match="hold 24 results"):
        run(result_cap, list_server(signal="pages", break_="uncut"), CAP, operation="POST /search", where=None)
    with pytest.raises(RuleSkipped, match="fewer than the cap"):
        run(result_cap, list_server(signal="pages", break_="cap-13"), CAP, operation="POST /search", where=None)
    with pytest.raises(RuleSkipped, match="fits one page"):
        run(result_cap, list_server(ITEMS[:3], signal="pages"), CAP, operation="POST /search", where=None)
