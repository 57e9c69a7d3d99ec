"""The core check ``fields-returned`` against a tiny row server: it passes a server answering the
fields asked for (also one leaving a member out of the row that has no value for it, or the
metrics object out of rows when only the id is asked for), fails one that ignores fields, answers
every member without fields, spells a nested field as a dotted key, leaves a nested field's object
out of every row, or drops a member every row must carry, and is not exercised when no rows come
back. The derived faults ``field-missing``, ``nested-field-missing``, ``naming-ignored`` (fields
taken out of the request) and ``field-extra`` make the conforming server fail."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.selection import fields_returned
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/posts": {"post": {
    "requestBody": {"content": {"application/json": {"schema": {"type": "object"},
                                                     "example": {"q": "all", "fields": ["guid", "text"]}}}},
    "responses": {"200": {"description": "rows"}}}}}}
ROWS = [{"guid": f"g{n}", "text": f"post {n}", "created_time": "2026-03-01T10:00:00Z", "tags": [n]} for n in range(4)]
ONLY_ID = {"check": "fields-returned", "in": "body", "items_field": "data", "member": "fields",
           "every_row": ["guid"], "only": ["guid", "metrics"]}
ASKED = {"check": "fields-returned", "in": "body", "items_field": "data", "member": "fields",
         "every_row": ["guid", "metrics"], "fields": ["guid", "created_time", "text", "internal.tags.id"]}


class Posts:
    """POST /posts {fields: [...]}: the fields asked for (internal.* under internal) and metrics;
    without fields, guid and metrics only."""

    def __init__(self, *, choice: str = "", break_: str = "", rows: list[dict[str, Any]] = ROWS) -> None:
        self.choice, self.break_, self.rows = choice, break_, rows

    def handle(self, request: Request) -> Response:
        asked = json.loads(request.body).get("fields")
        if asked is None:
            asked = ["guid", "created_time", "text"] if self.break_ == "default-all" else ["guid"]
        if self.break_ == "ignored":
            asked = ["guid"]
        out = []
        for n, row in enumerate(self.rows):
            shown: dict[str, Any] = {name: row[name] for name in asked if name in row}
            if "internal.tags.id" in asked:
                if self.break_ == "dotted":
                    shown["internal.tags.id"] = row["tags"]
                elif self.break_ == "no-internal":
                    pass  # the nested field ignored: no internal object on any row
                elif self.choice == "tags-elsewhere":  # nested under internal, otherwise than tags[].id
                    shown["internal"] = {"tag_ids": row["tags"]}
                else:
                    shown["internal"] = {"tags": [{"id": t} for t in row["tags"]]}
            if self.choice == "no-value" and n == 0:
                shown.pop("text", None)
            if not (self.choice == "no-metrics" and asked == ["guid"]):
                shown["metrics"] = {"likes": n}
            if self.break_ == "no-guid" and n == 1:
                shown.pop("guid")
            out.append(shown)
        return Response.json_response(200, {"data": out})


def run(server: Any, params: dict[str, Any]) -> None:
    rule = Rule(id="demo.posts.fields", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /posts", params=params)
    fields_returned(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle))


@pytest.mark.parametrize("params", [ONLY_ID, ASKED], ids=["only-id", "asked"])
@pytest.mark.parametrize("choice", ["", "no-value", "no-metrics", "tags-elsewhere"])
def test_a_server_answering_the_fields_asked_passes(params: dict[str, Any], choice: str) -> None:
    run(Posts(choice=choice), params)


@pytest.mark.parametrize(("params", "break_", "message"), [
    (ONLY_ID, "default-all", r"rows carry \['created_time', 'text'\]"),
    (ASKED, "ignored", "no row carries created_time"),
    (ASKED, "dotted", "came back as a dotted key"),
    (ASKED, "no-internal", r"no row carries internal \(asked for internal.tags.id\)"),
    (ASKED, "no-guid", "1 of 4 rows lack guid"),
    (ONLY_ID, "no-guid", "1 of 4 rows lack guid"),
])
def test_a_server_getting_the_fields_wrong_fails(params: dict[str, Any], break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Posts(break_=break_), params)


def test_no_rows_leave_the_rule_unexercised() -> None:
    with pytest.raises(RuleSkipped, match="no rows came back"):
        run(Posts(rows=[]), ASKED)


@pytest.mark.parametrize(("params", "family", "message"), [(ASKED, "field-missing", "no row carries created_time"),
                                                           (ASKED, "nested-field-missing", "no row carries internal"),
                                                           (ASKED, "naming-ignored", "no row carries created_time"),
                                                           (ONLY_ID, "field-extra", "conformance_extra")])
def test_the_derived_faults_make_a_conforming_server_fail(params: dict[str, Any], family: str, message: str) -> None:
    rule = Rule(id="demo.posts.fields", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /posts", params=params)
    [fault] = [f for f in read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
               if f.name.startswith(f"{family}:")]
    assert (fault.name, fault.breaks) == (f"{family}:posts.fields", rule.id)
    with pytest.raises(ContractFailure, match=message):
        run(fault.apply(Posts()), params)  # type: ignore[arg-type]
