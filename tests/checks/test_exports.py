"""The core checks ``export-matches`` and ``latest-rows`` against a tiny paged list with an export
and a lookup.

export-matches passes a server
whose every listed export format holds the list's rows (also one ordering them otherwise, adding
columns, or ending its lines with a blank one), fails one losing a row, one whose CSV header lacks
the id column asked for, and one writing a line that is not JSON; no rows: not exercised; a
listed format without a parser is a contract error. The derived fault ``export-row-lost`` makes
the conforming server fail.

latest-rows passes a lookup answering the newest rows of the list that match, at most its
documented maxItems (every one, and then not exercised, where fewer match), fails one answering the
oldest or losing one; ``lookup-row-lost`` makes the conforming lookup fail."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.exports import export_matches, latest_rows
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

_LATEST = {"type": "object", "properties": {"rows": {"type": "array", "maxItems": 3}}}
_BODY = {"type": "object", "properties": {"format": {"enum": ["csv", "json"]}}}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/list": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object"},
                                                                        "example": {"days": 3}}}},
                       "responses": {"200": {"description": "rows"}}}},
    "/lookup": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object"},
                                                                          "example": {"email": "x@example.com"}}}},
                         "responses": {"200": {"description": "the latest", "content": {"application/json": {
                             "schema": _LATEST}}}}}},
    "/export": {"post": {"requestBody": {"content": {"application/json": {"schema": _BODY,
                                                                          "example": {"days": 3}}}},
                         "responses": {"200": {"description": "the export"}}}},
}}
ROWS = [{"id": f"c{n}", "status": "ok", "email": "a@example.com" if n % 4 else "b@example.com", "at": 100 - n * 7 % 10}
        for n in range(7)]
PARAMS = {"check": "export-matches", "list": "POST /list", "style": "page", "page_param": "page", "limit_param": "size",
          "page_size": 3, "first_page": 1, "max_pages": 10, "total_field": "paging.total", "items_field": "rows",
          "id_field": "id", "in": "body", "body_member": "paging", "format_member": "format",
          "parsers": {"csv": "csv", "json": "ndjson"}, "id_column": "{ID_COLUMN}",
          "export_set": {"columns": ["{ID_COLUMN}", "status"]}}


class Exporter:
    def __init__(self, *, choice: str = "", break_: str = "", rows: list[dict[str, Any]] = ROWS) -> None:
        self.choice, self.break_, self.rows = choice, break_, rows

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body)
        if request.path == "/list":
            paging = body.get("paging") or {}
            start = (int(paging.get("page", 1)) - 1) * int(paging.get("size", 3))
            return Response.json_response(200, {"rows": self.rows[start:start + int(paging.get("size", 3))],
                                                "paging": {"total": len(self.rows)}})
        if request.path == "/lookup":
            mine = sorted((r for r in self.rows if r["email"] == body["email"]), key=lambda r: -r["at"])
            picked = mine[-3:] if self.break_ == "oldest" else mine[:3]
            return Response.json_response(200, {"rows": picked[1:] if self.break_ == "loses-one" else picked})
        rows = self.rows[::-1] if self.choice == "reversed" else list(self.rows)
        if self.break_ == "loses-one" and body["format"] == "json":
            rows = rows[1:]
        columns = list(body["columns"]) + (["extra"] if self.choice == "extra-column" else [])
        if body["format"] == "csv":
            header = [c if not (self.break_ == "no-id-column" and c == "id") else "ID" for c in columns]
            text = "\n".join([",".join(header)] + [",".join(str(r.get(c, "x")) for c in columns) for r in rows])
        else:
            text = "\n".join(json.dumps({c: r.get(c, "x") for c in columns}) for r in rows)
            if self.break_ == "not-json":
                text += "\nnot json"
            if self.choice == "blank-line":
                text += "\n\n"
        return Response(200, {"content-type": "text/plain"}, text.encode())


def rule_of(params: dict[str, Any]) -> Rule:
    return Rule(id="demo.export.rows", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /export", params=params)


def run(server: Any, params: dict[str, Any] = PARAMS) -> None:
    rule = rule_of(params)
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {"defaults": {"ID_COLUMN": "id"}})
    export_matches(context(contract, rule, server.handle))


@pytest.mark.parametrize("choice", ["", "reversed", "extra-column", "blank-line"])
def test_an_export_holding_the_lists_rows_passes(choice: str) -> None:
    run(Exporter(choice=choice))


@pytest.mark.parametrize(("break_", "message"), [("loses-one", "the json export holds 6 rows, the list 7"),
                                                 ("no-id-column", "the CSV header has no id column"),
                                                 ("not-json", "line 8 is no JSON object")])
def test_an_export_off_the_list_fails(break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Exporter(break_=break_))


def test_an_empty_list_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="holds no rows"):
        run(Exporter(rows=[]))


def test_a_listed_format_without_a_parser_is_a_contract_error() -> None:
    with pytest.raises(ContractFileError, match="parsers must name every listed format"):
        run(Exporter(), {**PARAMS, "parsers": {"csv": "csv"}})


def test_the_derived_export_row_lost_fault_makes_a_conforming_server_fail() -> None:
    rule = rule_of(PARAMS)
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("export-row-lost:export.rows", rule.id)
    with pytest.raises(ContractFailure, match="the csv export holds 6 rows, the list 7"):
        run(fault.apply(Exporter()), PARAMS)  # type: ignore[arg-type]


LATEST = {**{k: v for k, v in PARAMS.items() if k not in ("check", "format_member", "parsers", "id_column",
                                                          "export_set")},
          "check": "latest-rows", "lookup_set": {"email": "{EMAIL}"}, "answer_items": "rows", "newest_by": "at",
          "match": {"member": "email", "value": "{EMAIL}"}}


def latest(server: Any, email: str) -> None:
    rule = Rule(id="demo.lookup.latest", kind="limit", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /lookup", params=LATEST)
    latest_rows(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle, {"EMAIL": email}))


def test_a_lookup_answering_the_latest_rows_passes() -> None:
    latest(Exporter(), "a@example.com")


def test_fewer_rows_than_the_cap_are_checked_then_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="fewer than 3"):
        latest(Exporter(), "b@example.com")


@pytest.mark.parametrize(("break_", "email", "message"), [("oldest", "a@example.com", "not the latest 3"),
                                                          ("loses-one", "b@example.com", "1 of the 2 rows")])
def test_a_lookup_off_the_latest_rows_fails(break_: str, email: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        latest(Exporter(break_=break_), email)


def test_the_derived_lookup_row_lost_fault_makes_a_conforming_lookup_fail() -> None:
    rule = Rule(id="demo.lookup.latest", kind="limit", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /lookup", params=LATEST)
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("lookup-row-lost:lookup.latest", rule.id)
    with pytest.raises(ContractFailure, match="not the latest 3"):
        latest(fault.apply(Exporter()), "a@example.com")  # type: ignore[arg-type]
