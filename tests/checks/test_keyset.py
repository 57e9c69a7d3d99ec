"""The core checks ``filter-cursor-walk``, ``limit-above-default`` and ``walked-count-limit``
against a tiny post server.

filter-cursor-walk passes a server whose "id greater than" filter reads past the cap to an empty
page (also with the filter's profile ids listed by another operation), fails one including the
cursor's own row or answering out of order, and is not exercised where the list is no longer than
the cap or the budget ends first; the derived fault ``cursor-ignored`` makes the server fail.
limit-above-default passes (observing which) a server honouring a limit above the default and one
cutting it to the default, fails one answering another count on a page followed by more, and is
not exercised where the rows are too few or the limit is refused (observed as neither).
walked-count-limit passes a server taking at most 4 ids read from its own pages and refusing 5,
fails one taking 5 (or answering 5xx), and is not exercised where 4 are refused too (the control)
or the pages read hold too few ids."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.context import CheckContext
from conformance.checks.keyset import filter_cursor_walk, limit_above_default, walked_count_limit
from conformance.contract import Conflict, Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

_BODY = {"type": "object", "properties": {"limit": {"type": "integer", "default": 5}}}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/posts": {"post": {"requestBody": {"content": {"application/json": {"schema": _BODY,
                                                                         "example": {"fields": ["id"]}}}},
                        "responses": {"200": {"description": "posts"}}}},
    "/profiles": {"get": {"responses": {"200": {"description": "profiles"}}}},
}}
WALK = {"check": "filter-cursor-walk", "in": "body", "items_field": "data", "id_field": "id", "cap": 5,
        "max_pages": 10, "cursor": {"append": "filters", "entry": "id.gt({$value})"},
        "set": {"filters": ["kind.eq(post)"], "sort": ["id:asc"]}}
PROFILES = {**WALK, "values_from": {"operation": "GET /profiles", "items_field": "data", "member": "pid", "count": 2},
            "set": {"filters": ["profile.eq({values})"], "sort": ["id:asc"]}}
LIMIT = {"check": "limit-above-default", "observes": "demo.conflict.limit", "over": 8, "in": "body",
         "items_field": "data", "total_pages_field": "paging.total_pages"}
CONFLICT = Conflict("demo.conflict.limit", "s", None, ("5 is a default", "5 is a cap"))  # type: ignore[arg-type]


class Posts:
    """POST /posts: ``rows`` posts, 3 a page by "id.gt(x)" (or ``limit`` a page, by page)."""

    def __init__(self, *, rows: int = 10, choice: str = "", break_: str = "") -> None:
        self.ids = [f"p{n:02d}" for n in range(rows)]
        self.choice, self.break_ = choice, break_
        self.filters: list[list[str]] = []

    def handle(self, request: Request) -> Response:
        if request.path == "/profiles":
            return Response.json_response(200, {"data": [{"pid": 1.0}, {"pid": 2.0}, {"pid": 3.0}]})
        body = json.loads(request.body)
        if "limit" in body:
            if self.break_ == "refused":
                return Response.json_response(400, {"message": "limit too high"})
            size = min(body["limit"], 5) if self.choice == "cap" else body["limit"]
            size = 4 if self.break_ == "other-count" else size
            return Response.json_response(200, {"data": [{"id": i} for i in self.ids[:size]],
                                                "paging": {"total_pages": -(-len(self.ids) // size)}})
        filters = body.get("filters") or []
        named = [f[len("id.eq("):-1].split(", ") for f in filters if f.startswith("id.eq(")]
        if named:
            most = {"take-five": 5, "take-three": 3}.get(self.break_, 4)
            status = 500 if self.break_ == "crash" and len(named[0]) > 4 else 400
            return Response.json_response(200 if len(named[0]) <= most else status, {"data": []})
        if "cursor" in body or self.choice == "cursor-walk":
            start = int(body.get("cursor") or 0)
            more = {"paging": {"next": str(start + 3)}} if start + 3 < len(self.ids) else {}
            return Response.json_response(200, {"data": [{"id": i} for i in self.ids[start:start + 3]], **more})
        self.filters.append(filters)
        after = next((f[len("id.gt("):-1] for f in filters if f.startswith("id.gt(")), "")
        ids = [i for i in self.ids if i > after or (self.break_ == "inclusive" and i == after)]
        page = ids[:3][::-1] if self.break_ == "unsorted" else ids[:3]
        return Response.json_response(200, {"data": [{"id": i} for i in page]})


COUNT = {"check": "walked-count-limit", "most": 4, "member": "id", "in": "body", "style": "cursor",
         "cursor_param": "cursor", "next_field": "paging.next", "items_field": "data", "max_pages": 3,
         "probe": {"filters": ["id.eq({values})"]}}


def run(server: Posts, params: dict[str, Any]) -> CheckContext:
    rule = Rule(id="demo.posts.walk", kind="paging", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /posts", where="body.limit", params=params)
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [CONFLICT], {}), rule, server.handle)
    {"filter-cursor-walk": filter_cursor_walk, "limit-above-default": limit_above_default,
     "walked-count-limit": walked_count_limit}[params["check"]](ctx)
    return ctx


def test_a_key_filter_reading_past_the_cap_passes() -> None:
    server = Posts()
    run(server, WALK)
    assert server.filters[0] == ["kind.eq(post)"] and server.filters[1] == ["kind.eq(post)", "id.gt(p02)"]


def test_listed_values_fill_the_filters_once() -> None:
    server = Posts()
    run(server, PROFILES)
    assert server.filters[-1] == ["profile.eq(1, 2)", "id.gt(p09)"]


@pytest.mark.parametrize("break_", ["inclusive", "unsorted"])
def test_a_key_filter_off_the_cursor_fails(break_: str) -> None:
    with pytest.raises(ContractFailure, match="not ascending past the cursor"):
        run(Posts(break_=break_), WALK)


def test_the_derived_cursor_ignored_fault_makes_a_conforming_server_fail() -> None:
    rule = Rule(id="demo.posts.walk", kind="paging", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /posts", params=WALK)
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("cursor-ignored:posts.walk", rule.id)
    with pytest.raises(ContractFailure, match="not ascending past the cursor"):
        run(fault.apply(Posts()), WALK)  # type: ignore[arg-type]


@pytest.mark.parametrize(("params", "message"), [({**WALK, "cap": 20}, "not more than the cap"),
                                                 ({**WALK, "max_pages": 1}, "without passing the cap")])
def test_a_walk_that_cannot_pass_the_cap_is_not_exercised(params: dict[str, Any], message: str) -> None:
    with pytest.raises(RuleSkipped, match=message):
        run(Posts(), params)


@pytest.mark.parametrize(("choice", "reading"), [("", "5 is a default"), ("cap", "5 is a cap")])
def test_a_limit_above_the_default_honoured_or_cut_passes(choice: str, reading: str) -> None:
    assert run(Posts(choice=choice), LIMIT).observations == {"demo.conflict.limit": reading}


def test_another_count_on_a_page_followed_by_more_fails() -> None:
    with pytest.raises(ContractFailure, match="limit 8 gave 4 rows on a page followed by more"):
        run(Posts(break_="other-count"), LIMIT)


@pytest.mark.parametrize(("server", "message"), [(Posts(rows=3), "too few to tell"),
                                                 (Posts(break_="refused"), "neither reading shown")])
def test_too_few_rows_or_a_refusal_is_not_exercised(server: Posts, message: str) -> None:
    with pytest.raises(RuleSkipped, match=message):
        run(server, LIMIT)


def test_ids_read_from_the_list_four_taken_five_refused_passes() -> None:
    run(Posts(choice="cursor-walk"), COUNT)


@pytest.mark.parametrize(("break_", "message"), [("take-five", "5 values: got status 200"),
                                                 ("take-three", "control request not accepted"),
                                                 ("crash", "got status 500")])
def test_a_count_off_the_limit_fails_or_shows_nothing(break_: str, message: str) -> None:
    with pytest.raises((ContractFailure, RuleSkipped), match=message) as raised:
        run(Posts(choice="cursor-walk", break_=break_), COUNT)
    assert raised.type is (RuleSkipped if break_ == "take-three" else ContractFailure)


def test_too_few_ids_read_are_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="5 cannot be named"):
        run(Posts(rows=4, choice="cursor-walk"), COUNT)
