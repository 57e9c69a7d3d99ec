"""The core check ``filters-combine`` against a tiny paged report server: it passes a server that
ORs filters on one member and ANDs filters on different members (also one paging by two rows or
stating its first page itself), fails one that ANDs within a member or ORs across members, and is
not exercised where the rows do not vary over two members."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.combine import filters_combine
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/report": {"post": {
    "requestBody": {"content": {"application/json": {"schema": {"type": "object"}, "example": {"days": 30}}}},
    "responses": {"200": {"description": "rows"}}}}}}
ROWS = [{"id": f"c{n}", "sub1": ["x", "y", "z"][n % 3], "coupon": ["A", "B"][n % 2], "other": None} for n in range(12)]
PARAMS = {"check": "filters-combine", "members": ["sub1", "coupon", "other"],
          "filter": {"append": "query.filters", "entry": {"value": "{$value}", "type": "{$member}"}},
          "id_field": "id", "items_field": "rows", "style": "page", "page_size": 5, "max_pages": 10,
          "total_field": "paging.total", "in": "body", "body_member": "paging", "page_param": "page",
          "limit_param": "size", "first_page": 1}


class Report:
    """POST /report {paging: {page, size}, query: {filters: [{type, value}]}}."""

    def __init__(self, *, break_: str = "", rows: list[dict[str, Any]] = ROWS, first: int = 1) -> None:
        self.break_, self.rows, self.first = break_, rows, first

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body)
        chosen: dict[str, set[str]] = {}
        for entry in (body.get("query") or {}).get("filters") or []:
            chosen.setdefault(entry["type"], set()).add(entry["value"])
        within = all if self.break_ == "and-within" else any
        across = any if self.break_ == "or-across" else all
        rows = [r for r in self.rows if not chosen or across(
            within(str(r.get(t)) == v for v in values) for t, values in chosen.items())]
        paging = body.get("paging") or {}
        size, page = int(paging.get("size", 5)), int(paging.get("page", self.first))
        start = (page - self.first) * size
        return Response.json_response(200, {"rows": rows[start:start + size],
                                            "paging": {"page": page, "total": len(rows)}})


def run(server: Report, params: dict[str, Any] = PARAMS) -> None:
    rule = Rule(id="demo.report.combine", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /report", params=params)
    filters_combine(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle))


def test_a_server_combining_filters_as_documented_passes() -> None:
    run(Report())


def test_a_server_stating_its_own_first_page_passes() -> None:
    params = {k: v for k, v in PARAMS.items() if k != "first_page"}
    run(Report(first=0), {**params, "first_page_field": "paging.page"})


@pytest.mark.parametrize("break_", ["and-within", "or-across"])
def test_a_server_combining_filters_otherwise_fails(break_: str) -> None:
    with pytest.raises(ContractFailure, match=r"filters \[.*rows, [0-9]+ expected"):
        run(Report(break_=break_))


def test_rows_that_do_not_vary_leave_the_rule_unexercised() -> None:
    with pytest.raises(RuleSkipped, match="do not vary over two"):
        run(Report(rows=[{"id": f"c{n}", "sub1": "x", "coupon": "A"} for n in range(4)]))


def test_a_read_longer_than_its_budget_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="more than max_pages 2"):
        run(Report(), {**PARAMS, "max_pages": 2})
