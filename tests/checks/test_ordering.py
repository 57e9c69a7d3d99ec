"""The core check ``rows-ordered`` against a tiny row server: it passes a server ordering its rows
as asked (also one that pages them by cursor, breaks ties its own way or spells UTC "+00:00"),
fails one that ignores the order asked for, puts one row out of place or comes oldest first by
default, and is not exercised where fewer than two rows carry the member. The derived fault
``rows-reversed`` makes the conforming server fail."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.ordering import order_keys, rows_ordered
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/rows": {"post": {
    "requestBody": {"content": {"application/json": {"schema": {"type": "object"},
                                                     "example": {"q": "all", "sort": ["t:asc"]}}}},
    "responses": {"200": {"description": "rows", "content": {"application/json": {
        "schema": {"type": "object", "required": ["data"]}}}}}}}}}
ROWS = [{"id": f"r{n}", "t": f"2026-03-{1 + n * 7 % 20:02d}T10:00:00Z"} for n in range(10)]
SORTED = {"check": "rows-ordered", "in": "body", "items_field": "data", "member": "t",
          "orders": [{"direction": "asc", "set": {"sort": ["t:asc"]}},
                     {"direction": "desc", "set": {"sort": ["t:desc"]}}]}
DEFAULT = {"check": "rows-ordered", "in": "body", "items_field": "data", "member": "t",
           "orders": [{"direction": "desc", "drop": ["sort"]}], "style": "cursor", "cursor_param": "page_cursor",
           "next_field": "paging.next_cursor", "max_pages": 10}


class Rows:
    """POST /rows {sort: ["t:asc" | "t:desc"]}, newest first without sort; ``choice`` a conforming
    alternative, ``break_`` one way to get the order wrong."""

    def __init__(self, *, choice: str = "", break_: str = "", rows: list[dict[str, Any]] = ROWS) -> None:
        self.choice, self.break_, self.rows = choice, break_, rows

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body)
        sort = (body.get("sort") or ["t:desc"])[0]
        if self.break_ == "ignored" or (self.break_ == "oldest-first" and "sort" not in body):
            sort = "t:asc"
        rows = sorted(self.rows, key=lambda r: r["t"], reverse=sort.endswith(":desc"))
        if self.break_ == "one-out":
            rows[2], rows[5] = rows[5], rows[2]
        if self.choice == "utc-offset":
            rows = [{**r, "t": r["t"].replace("Z", "+00:00")} if n % 2 else r for n, r in enumerate(rows)]
        if self.choice == "paged":
            start = int(body.get("page_cursor") or 0)
            more = {"paging": {"next_cursor": str(start + 3)}} if start + 3 < len(rows) else {}
            return Response.json_response(200, {"data": rows[start:start + 3], **more})
        return Response.json_response(200, {"data": rows})


def run(server: Any, params: dict[str, Any]) -> None:
    rule = Rule(id="demo.rows.order", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /rows", params=params)
    rows_ordered(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle))


TIES = [{"id": "a", "t": "2026-03-01T10:00:00Z"}, {"id": "b", "t": "2026-03-01T10:00:00Z"},
        {"id": "c", "t": "2026-03-02T10:00:00Z"}]


@pytest.mark.parametrize("params", [SORTED, DEFAULT], ids=["sorted", "default"])
@pytest.mark.parametrize("server", [Rows(), Rows(choice="paged"), Rows(choice="utc-offset"), Rows(rows=TIES)],
                         ids=["plain", "paged", "utc-offset", "ties"])
def test_a_server_ordering_its_rows_passes(params: dict[str, Any], server: Rows) -> None:
    run(server, params)


@pytest.mark.parametrize(("params", "break_"), [(SORTED, "ignored"), (SORTED, "one-out"), (DEFAULT, "oldest-first"),
                                                (DEFAULT, "one-out")])
def test_rows_out_of_order_fail(params: dict[str, Any], break_: str) -> None:
    with pytest.raises(ContractFailure, match="row [0-9]+ has"):
        run(Rows(break_=break_), params)


def test_fewer_than_two_rows_leave_the_rule_unexercised() -> None:
    with pytest.raises(RuleSkipped, match="not enough to order"):
        run(Rows(rows=ROWS[:1]), SORTED)


def test_a_failed_read_is_a_failure_not_an_order() -> None:
    class Crashing(Rows):
        def handle(self, request: Request) -> Response:
            return Response.json_response(500, {"message": "boom"})

    with pytest.raises(ContractFailure, match="got status 500"):
        run(Crashing(), SORTED)


@pytest.mark.parametrize("params", [SORTED, DEFAULT], ids=["sorted", "default"])
@pytest.mark.parametrize("choice", ["", "paged"])
def test_the_derived_rows_reversed_fault_makes_a_conforming_server_fail(params: dict[str, Any], choice: str) -> None:
    rule = Rule(id="demo.rows.order", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /rows", params=params)
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("rows-reversed:rows.order", rule.id)
    with pytest.raises(ContractFailure, match="row [0-9]+ has"):
        run(fault.apply(Rows(choice=choice)), params)  # type: ignore[arg-type]


def test_values_compare_as_instants_numbers_or_text() -> None:
    assert order_keys(["2026-03-01T10:00:00+01:00", "2026-03-01T09:30:00Z"])[0] < order_keys(
        ["2026-03-01T10:00:00+01:00", "2026-03-01T09:30:00Z"])[1]
    assert order_keys([10, 9.5]) == [10, 9.5]
    assert order_keys(["b", 1]) == ["b", "1"]
