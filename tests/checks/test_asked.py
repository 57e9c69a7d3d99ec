"""The core check ``columns-returned`` (what an export was asked for, compared with what came back)
against a tiny export server.

It passes a server answering the asked columns, and one that chose to add its default columns
beside them (whether only the asked come back is not shown); it fails one that ignores the
columns member and answers its default set, and one losing an asked column in one format only.
Where every listed column is among the default ones and the answer equals the default, or no
JSON line shows a column, it is not exercised. The derived ``naming-ignored`` fault makes the
conforming server fail, and is derived for ``fields-returned`` where the member is optional, or
required with names every row carries (the member then names only those)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from conformance.checks.asked import columns_returned
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

_BODY = {"type": "object", "properties": {"format": {"enum": ["csv", "json"]}, "columns": {"type": "array"}}}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/export": {"post": {"requestBody": {"content": {"application/json": {"schema": _BODY, "example": {"days": 3}}}},
                         "responses": {"200": {"description": "the export"}}}},
    "/rows": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"type": "object", "required": ["filters"]}, "example": {"filters": []}}}},
        "responses": {"200": {"description": "rows"}}}},
}}
DEFAULT = ["id", "status", "payout"]
ROWS = [{"id": f"c{n}", "status": "ok", "payout": n, "offer": f"o{n}", "affiliate": f"a{n % 2}"} for n in range(4)]
PARAMS = {"check": "columns-returned", "format_member": "format", "columns_member": "columns",
          "parsers": {"csv": "csv", "json": "ndjson"}, "columns": ["{ID_COLUMN}", "status", "offer", "affiliate"]}


class Exporter:
    def __init__(self, *, choice: str = "", break_: str = "", rows: list[dict[str, Any]] = ROWS,
                 default: list[str] = DEFAULT) -> None:
        self.choice, self.break_, self.rows, self.default = choice, break_, rows, default
        self.asked: list[Any] = []

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body)
        self.asked.append(body.get("columns"))
        columns = list(self.default if self.break_ == "ignores" else body.get("columns", self.default))
        if self.choice == "adds-default":
            columns += [c for c in self.default if c not in columns]
        if self.break_ == "json-loses-one" and body["format"] == "json" and "columns" in body:
            columns = columns[:-1]
        if body["format"] == "json":
            text = "".join(json.dumps({c: r.get(c, "") for c in columns}) + "\n" for r in self.rows)
        else:
            out = io.StringIO()
            writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
            writer.writeheader()
            writer.writerows(self.rows)
            text = out.getvalue()
        return Response(200, {"content-type": "text/plain"}, text.encode())


def rule_of(params: dict[str, Any] = PARAMS) -> Rule:
    return Rule(id="demo.export.columns", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /export", params=params)


def run(server: Any, params: dict[str, Any] = PARAMS) -> None:
    rule = rule_of(params)
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {"defaults": {"ID_COLUMN": "id"}})
    columns_returned(context(contract, rule, server.handle))


@pytest.mark.parametrize("choice", ["", "adds-default"])
def test_an_export_answering_the_asked_columns_passes(choice: str) -> None:
    server = Exporter(choice=choice)
    run(server)
    # Per format: once without columns (the default), once with the id column and two the default lacks.
    assert server.asked == [None, ["id", "offer", "affiliate"]] * 2


@pytest.mark.parametrize(("break_", "message"), [
    ("ignores", r"the csv export asked for columns \['id', 'offer', 'affiliate'\] lacks \['offer', 'affiliate'\]"),
    ("json-loses-one", r"the json export asked for columns .* lacks \['affiliate'\]")])
def test_an_export_off_the_asked_columns_fails(break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Exporter(break_=break_))


def test_columns_all_in_the_default_and_answered_alike_are_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="every column asked .* is among the default ones"):
        run(Exporter(default=["id", "status", "offer", "affiliate"], choice="adds-default"))
    # The same columns, answered as asked (a subset of the default): the member was read.
    run(Exporter(default=["id", "status", "offer", "affiliate"]))


def test_an_export_without_rows_shows_no_json_columns_and_is_not_exercised_there() -> None:
    run(Exporter(rows=[]))  # the CSV header still shows the columns
    with pytest.raises(RuleSkipped, match="json: the export without columns shows no columns"):
        run(Exporter(rows=[]), {**PARAMS, "parsers": {"csv": "ndjson", "json": "ndjson"}})


def test_the_derived_naming_ignored_fault_makes_a_conforming_server_fail() -> None:
    rule = rule_of()
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("naming-ignored:export.columns", rule.id)
    with pytest.raises(ContractFailure, match="lacks"):
        run(fault.apply(Exporter()))  # type: ignore[arg-type]


@pytest.mark.parametrize(("member", "every_row", "derived"), [
    ("fields", [], ["field-missing", "naming-ignored"]),
    ("filters", ["guid"], ["field-missing", "naming-ignored"]),
    ("filters", [], ["field-missing"])])
def test_naming_ignored_is_derived_for_fields_returned_where_a_server_can_ignore_the_member(
        member: str, every_row: list[str], derived: list[str]) -> None:
    # An optional member is taken out; a required one (filters, here) named with what every row carries.
    rule = Rule(id="demo.rows.fields", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /rows", params={"check": "fields-returned", "in": "body", "items_field": "data",
                                                "member": member, "fields": ["guid", "text"], "every_row": every_row})
    faults = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert [f.name.split(":")[0] for f in faults] == derived
