"""The core check ``export-values`` against a tiny in-test export.

A server exporting listed statuses passes in CSV and newline-delimited JSON, whatever else its
rows carry (quoted cells, extra members, rows without the column: a conforming server that chose
differently); one exporting a status off the list fails in either format; no row carrying the
column leaves the rule unexercised; the derived fault ``export-value-off-list`` makes the
conforming server fail."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from conformance.checks.export_values import export_values
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.faults.export_values import OFF_LIST, export_value_faults, off_list
from conformance.transport.model import Request, Response
from tests.checks.server import context

STATUS = {"type": "string", "enum": ["approved", "pending"]}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "components": {"schemas": {"Row": {
    "type": "object", "properties": {"status": STATUS, "payout": {"type": "number"}}}}},
    "paths": {"/export": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"type": "object", "properties": {"format": {"type": "string", "enum": ["csv", "json"]}}},
        "example": {"format": "json"}}}}, "responses": {"200": {"description": "rows"}}}}}}
PARAMS = {"check": "export-values", "format_member": "format", "parsers": {"csv": "csv", "json": "ndjson"},
          "export_set": {"columns": ["id", "status"]},
          "columns": {"status": {"$ref": "#/components/schemas/Row/properties/status"}}}


class Server:
    """POST /export: rows with ``statuses`` (None: the row has no status), as the body's format asks."""

    def __init__(self, statuses: tuple[Any, ...] = ("approved", "pending", None)) -> None:
        self.statuses = statuses
        self.asked: list[dict[str, Any]] = []

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body)
        self.asked.append(body)
        rows = [{"id": f"c{n}", **({"status": s} if s is not None else {}), "note": "a, b"}
                for n, s in enumerate(self.statuses)]
        if body["format"] == "json":
            return Response(200, {"content-type": "application/x-ndjson"},
                            "".join(json.dumps(r) + "\n" for r in rows).encode())
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=["id", "status", "note"], quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(rows)
        return Response(200, {"content-type": "text/csv"}, out.getvalue().encode())


def _rule(params: dict[str, Any] = PARAMS) -> Rule:
    return Rule(id="demo.export.status", kind="enum", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /export", params=params)


def run(server: Any, params: dict[str, Any] = PARAMS) -> None:
    rule = _rule(params)
    export_values(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle))


def test_listed_values_in_either_format_pass() -> None:
    server = Server()
    run(server)
    assert [(b["format"], b["columns"]) for b in server.asked] == [("csv", ["id", "status"]),
                                                                   ("json", ["id", "status"])]


def test_a_value_off_the_list_fails() -> None:
    with pytest.raises(ContractFailure, match=r"the csv export: 1 values off .* row 2 status 'refunded'"):
        run(Server(("approved", "refunded")))


def test_rows_without_the_column_leave_the_rule_unexercised() -> None:
    with pytest.raises(RuleSkipped, match="no exported row carried status"):
        run(Server((None, None)))


def test_a_column_whose_schema_is_not_text_is_a_contract_error() -> None:
    with pytest.raises(ContractFileError, match="not a string one"):
        run(Server(), {**PARAMS, "columns": {"payout": {"$ref": "#/components/schemas/Row/properties/payout"}}})


def test_the_derived_fault_makes_a_conforming_server_fail() -> None:
    rule = _rule()
    [fault] = export_value_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("export-value-off-list:export.status", rule.id)
    with pytest.raises(ContractFailure, match=OFF_LIST):
        run(fault.apply(Server()))  # type: ignore[arg-type]


def test_off_list_edits_csv_cells_and_json_members_that_hold_a_value() -> None:
    assert off_list('{"status": "approved"}\n{"id": 1}\n', "status") == f'{{"status": "{OFF_LIST}"}}\n{{"id": 1}}\n'
    assert off_list("id,status\n1,approved\n2,\n", "status") == f"id,status\n1,{OFF_LIST}\n2,\n"
    assert off_list("id\n1\n", "status") == "id\n1\n"
