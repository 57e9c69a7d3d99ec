"""The core checks ``filters-combine`` and ``omitted-is-default`` against a tiny paged report
server. filters-combine passes a server that ORs filters on one member and ANDs filters on
different members (also one stating its first page itself), fails one that ANDs within a member
or ORs across members, and is not exercised where the rows do not vary over two members.
omitted-is-default passes a server reading an omitted member as its schema default (also one
ordering the rows otherwise when it is sent), fails one reading it otherwise; the derived fault
``default-flipped`` makes the conforming server fail."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.combine import filters_combine, omitted_is_default
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/report": {"post": {
    "requestBody": {"content": {"application/json": {"example": {"days": 30}, "schema": {
        "type": "object", "properties": {"scrub": {"type": "boolean", "default": False},
                                         "vt": {"type": "boolean", "default": False}}}}}},
    "responses": {"200": {"description": "rows"}}}}}}
ROWS = [{"id": f"c{n}", "sub1": ["x", "y", "z"][n % 3], "coupon": ["A", "B"][n % 2], "other": None,
         "scrub": n % 4 == 0} for n in range(12)]
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
        if body.get("scrub", self.break_ == "scrub-default-true"):
            rows = [r for r in rows if r["scrub"]]
        if "scrub" in body and self.break_ == "reordered":
            rows = rows[::-1]
        paging = body.get("paging") or {}
        size, page = int(paging.get("size", 5)), int(paging.get("page", self.first))
        start = (page - self.first) * size
        return Response.json_response(200, {"rows": rows[start:start + size],
                                            "paging": {"page": page, "total": len(rows)}})


DEFAULTS = {**{k: v for k, v in PARAMS.items() if k not in ("members", "filter")}, "check": "omitted-is-default",
            "members": ["scrub", "vt"]}


def rule_of(params: dict[str, Any]) -> Rule:
    return Rule(id="demo.report.combine", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /report", params=params)


def run(server: Any, params: dict[str, Any] = PARAMS) -> None:
    rule = rule_of(params)
    check = filters_combine if params["check"] == "filters-combine" else omitted_is_default
    check(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle))


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


@pytest.mark.parametrize("break_", ["", "reordered"])
def test_a_server_reading_an_omitted_member_as_its_default_passes(break_: str) -> None:
    run(Report(break_=break_), DEFAULTS)


def test_a_server_reading_an_omitted_member_otherwise_fails() -> None:
    with pytest.raises(ContractFailure, match="omitting scrub gives 3 rows, scrub=False gives 12"):
        run(Report(break_="scrub-default-true"), DEFAULTS)


def test_a_member_without_a_default_is_a_contract_error() -> None:
    with pytest.raises(ContractFileError, match="states no default"):
        run(Report(), {**DEFAULTS, "members": ["days"]})


def test_the_derived_default_flipped_fault_makes_a_conforming_server_fail() -> None:
    rule = rule_of(DEFAULTS)
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("default-flipped:report.combine", rule.id)
    with pytest.raises(ContractFailure, match="omitting scrub"):
        run(fault.apply(Report()), DEFAULTS)  # type: ignore[arg-type]
