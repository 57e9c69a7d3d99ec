"""The core filter checks against a tiny row server: filter-applies passes a server that filters
(in a query parameter, a body member, an appended body-array entry, one narrowing an entry the
read sends, or a member's whole value replaced; also one that orders its
rows otherwise or pages them), fails one that ignores the filter, answers nothing, or lets rows
through that do not carry the value, and skips (not exercised) where no value splits the rows.
filter-values-accepted fails a server that refuses one listed value. The derived faults
filter-ignored, filter-refused and listed-value-refused are shown caught."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from conformance.checks.context import CheckContext
from conformance.checks.filters import filter_applies, filter_values_accepted
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.effects import effect_faults
from conformance.targets.base import Capabilities
from conformance.transport.model import Request, Response
from conformance.transport.session import Session

ROWS = [{"guid": f"g{n}", "kind": ["post", "reply", "post"][n % 3], "tags": [1] if n % 4 == 0 else []}
        for n in range(12)]
SCHEMA = {"type": "object", "properties": {"query": {"type": "object", "properties": {"filters": {
    "type": "array", "items": {"type": "object", "properties": {"type": {"enum": ["kind", "tag"]}}}}}}}}
PATHS = {"/rows": {"get": {"responses": {}}},
         "/search": {"post": {"requestBody": {"content": {"application/json": {"schema": SCHEMA}}}, "responses": {}}}}


class RowServer:
    """GET /rows?kind=...; POST /search {kind: ...} or {filters: ["kind.eq(x)", ...]} or
    {query: {filters: [{type, value}]}}; ``break_`` names one way to get a filter wrong."""

    def __init__(self, break_: str = "", choice: str = "", rows: list[dict[str, Any]] | None = None) -> None:
        self.break_, self.choice, self.rows = break_, choice, rows if rows is not None else ROWS

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body) if request.body else {}
        wanted: dict[str, str] = dict(request.query)
        if "kind" in body:
            wanted["kind"] = body["kind"]
        for entry in body.get("filters") or []:
            name, _, value = entry.partition(".eq(")
            wanted[name] = value.rstrip(")")
        for entry in (body.get("query") or {}).get("filters") or []:
            if entry.get("type") == "tag" and self.break_ == "tag-refused":
                return Response.json_response(400, {"message": "unknown type"})
        rows = [r for r in self.rows if all(_has(r, k, v) for k, v in wanted.items())]
        if self.break_ == "ignored":
            rows = self.rows
        if self.break_ == "empty" and wanted:
            rows = []
        if self.break_ == "one-stray" and wanted:
            rows = [*rows, next(r for r in self.rows if r not in rows)]
        if self.break_ == "drops-one" and wanted:
            rows = rows[1:]
        if self.choice == "reversed":
            rows = rows[::-1]
        answer: dict[str, Any] = {"data": rows}
        if self.choice == "paged" and len(rows) > 3:
            answer = {"data": rows[:3], "paging": {"next_cursor": "3"}}
        return Response.json_response(200, answer)

    def transport(self) -> httpx.MockTransport:
        return _transport(self)


def _has(row: dict[str, Any], member: str, value: str) -> bool:
    got = row.get(member)
    values = value.split(", ")  # eq(a, b): any may match
    return any(v in [str(g) for g in got] for v in values) if isinstance(got, list) else str(got) in values


def _transport(server: Any) -> httpx.MockTransport:
    def send(request: httpx.Request) -> httpx.Response:
        answer = server.handle(Request(request.method, request.url.path, list(request.url.params.multi_items()),
                                       dict(request.headers), request.content))
        return httpx.Response(answer.status, headers=answer.headers, content=answer.body)

    return httpx.MockTransport(send)


QUERY = {"check": "filter-applies", "read": {"call": "GET /rows"}, "rows": "data", "member": "kind",
         "filter": {"query": "kind"}, "exact": {"id": "guid", "more": "paging"}}
MEMBER = {"check": "filter-applies", "read": {"call": "POST /search", "body": {}}, "rows": "data", "member": "kind",
          "filter": {"member": "kind"}}
APPENDED = {"check": "filter-applies", "read": {"call": "POST /search", "body": {"filters": []}}, "rows": "data",
            "member": "tags", "values": {"read": {"call": "GET /rows"}, "at": "data", "member": "guid"},
            "filter": {"append": "filters", "entry": "tags.eq({$value})"}}
TAGS = {**APPENDED, "values": None}
# The read must send an entry the filter narrows: kind.eq(post, reply) to kind.eq(post).
NARROWED = {"check": "filter-applies", "read": {"call": "POST /search", "body": {"filters": ["kind.eq(post, reply)"]}},
            "rows": "data", "member": "kind", "filter": {"append": "filters", "entry": "kind.eq({$value})",
                                                         "replaces": "kind.eq("}}
# A filter that cannot combine: it replaces the read's whole filter list (guid.eq(g) alone).
REPLACED = {"check": "filter-applies", "read": {"call": "POST /search", "body": {"filters": ["kind.eq(post, reply)"]}},
            "rows": "data", "member": "guid", "filter": {"member": "filters", "entry": ["guid.eq({$value})"]},
            "exact": {"id": "guid", "more": "paging"}}
VALUES = {"check": "filter-values-accepted", "read": {"call": "POST /search", "body": {}},
          "values_at": "body.query.filters[].type", "filter": {"append": "query.filters",
                                                               "entry": {"type": "{$value}", "value": "x"}}}


def run(server: Any, params: dict[str, Any], check: Any = filter_applies) -> None:
    params = {k: v for k, v in params.items() if v is not None}
    contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": PATHS}, [], [], [], {})
    rule = Rule(id="demo.rows.filter", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation=params["read"]["call"], params=params)
    target = SimpleNamespace(name="sim", capabilities=Capabilities(), credential=lambda name: None)
    client = httpx.Client(base_url="http://demo.invalid", transport=server.transport())
    session = Session(client, base_url="http://demo.invalid", sleep=lambda s: None)
    check(CheckContext(contract, rule, target, session))  # type: ignore[arg-type]


@pytest.mark.parametrize("params", [QUERY, MEMBER, TAGS, NARROWED, REPLACED],
                         ids=["query", "member", "appended", "narrowed", "replaced"])
@pytest.mark.parametrize("choice", ["", "reversed", "paged"])
def test_a_server_that_filters_passes(params: dict[str, Any], choice: str) -> None:
    run(RowServer(choice=choice), params)


@pytest.mark.parametrize("params", [QUERY, MEMBER, TAGS], ids=["query", "member", "appended"])
@pytest.mark.parametrize(("break_", "message"), [("ignored", "do not carry it"), ("empty", "no rows"),
                                                 ("one-stray", "1 of")])
def test_a_filter_that_changes_nothing_fails(params: dict[str, Any], break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(RowServer(break_), params)


def test_a_complete_answer_must_keep_every_row_with_the_value() -> None:
    # exact: the unfiltered answer carries no paging, so it is complete; one matching row lost fails.
    with pytest.raises(ContractFailure, match="of the complete unfiltered answer"):
        run(RowServer("drops-one"), QUERY)
    run(RowServer("drops-one"), MEMBER)  # without exact, a subset of the matching rows is not judged


def test_no_value_that_splits_the_rows_is_not_exercised() -> None:
    same = [{"guid": f"g{n}", "kind": "post"} for n in range(5)]
    with pytest.raises(RuleSkipped, match="cannot change this answer"):
        run(RowServer(rows=same), QUERY)


def test_candidates_from_another_read_none_splitting_is_not_exercised() -> None:
    # The candidates are row ids, which no row carries in its tags: nothing to filter by.
    with pytest.raises(RuleSkipped, match="cannot change this answer"):
        run(RowServer(), APPENDED)


def test_every_listed_value_accepted() -> None:
    run(RowServer(), VALUES, filter_values_accepted)
    with pytest.raises(ContractFailure, match=r"tag \(400\)"):
        run(RowServer("tag-refused"), VALUES, filter_values_accepted)


@pytest.mark.parametrize("params", [QUERY, MEMBER, TAGS, NARROWED, REPLACED],
                         ids=["query", "member", "appended", "narrowed", "replaced"])
def test_the_derived_fault_filter_ignored_is_caught(params: dict[str, Any]) -> None:
    params = {k: v for k, v in params.items() if v is not None}
    contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": PATHS},
                        [Rule(id="demo.rows.filter", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                              params=params)], [], [], {})
    ignored, refused = effect_faults(contract)
    assert (ignored.name, refused.name) == ("filter-ignored:rows.filter", "filter-refused:rows.filter")
    with pytest.raises(ContractFailure, match="do not carry it"):
        run(SimpleNamespace(transport=lambda: _transport(ignored.apply(RowServer()))), params)  # type: ignore[arg-type]
    with pytest.raises(ContractFailure, match="got status 400"):
        run(SimpleNamespace(transport=lambda: _transport(refused.apply(RowServer()))), params)  # type: ignore[arg-type]


def test_the_derived_fault_listed_value_refused_is_caught() -> None:
    rule = Rule(id="demo.rows.types", kind="enum", statement="s", source=None,  # type: ignore[arg-type]
                params=VALUES)
    contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": PATHS}, [rule], [], [], {})
    (fault,) = effect_faults(contract)
    assert fault.name == "listed-value-refused:rows.types"
    with pytest.raises(ContractFailure, match=r"tag \(400\)"):
        run(SimpleNamespace(transport=lambda: _transport(fault.apply(RowServer()))), VALUES,  # type: ignore[arg-type]
            filter_values_accepted)
