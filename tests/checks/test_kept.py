"""The core check ``kept-rows`` (checks/kept.py) against a tiny click stream and conversion report.
It passes a server keeping the clicks of conversions in an old window, read in UTC or in a zone
five hours west or fourteen east (the window's zone is not shown: a conversion counts only where
its click lies inside the window in every zone), and one keeping clicks without conversions too;
it fails one purging them, or answering the window 5xx; it is not exercised where no conversion's
click falls in the window, and a window inside the retention is a contract error."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from conformance.checks.kept import kept_rows
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/clicks": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"type": "object"}, "example": {"from": "x", "to": "y", "timezone_id": 90}}}},
        "responses": {"200": {"description": "clicks"}}}},
    "/report": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"type": "object"}, "example": {"from": "x", "to": "y"}}}},
        "responses": {"200": {"description": "rows"}}}},
}}
TODAY = datetime(2026, 3, 10, tzinfo=UTC)
PARAMS = {"check": "kept-rows", "members": ["from", "to"], "window_days": 14, "end_days_back": 120,
          "beyond_days": 93, "rows_field": "clicks", "key": "transaction_id", "source": "POST /report",
          "source_members": ["from", "to"], "source_days_after": 2, "stamp": "click_unix_timestamp",
          "items_field": "rows", "style": "page", "page_size": 5, "max_pages": 20, "total_field": "paging.total",
          "in": "body", "body_member": "paging", "page_param": "page", "limit_param": "size", "first_page": 1}
WINDOW_START = TODAY - timedelta(days=134)
# A conversion every 7 hours through the window and two days around it; its click an hour before.
CONVERSIONS = [{"conversion_id": f"c{n}", "transaction_id": f"t{n}",
                "click_unix_timestamp": (WINDOW_START + timedelta(hours=7 * n - 49)).timestamp()} for n in range(60)]


class Tracker:
    """POST /clicks {from, to} (local times ``zone`` hours from UTC): the clicks of conversions in
    that window, plus one raw click; POST /report: the conversions, paged."""

    def __init__(self, *, zone: int = 0, break_: str = "", conversions: list[dict[str, Any]] = CONVERSIONS) -> None:
        self.zone, self.break_, self.conversions = zone, break_, conversions

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body)
        if request.path == "/clicks":
            if self.break_ == "crash":
                return Response.json_response(500, {"message": "boom"})
            low, high = (datetime.strptime(body[m], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
                         - timedelta(hours=self.zone) for m in ("from", "to"))
            clicks = [{"transaction_id": c["transaction_id"]} for c in self.conversions
                      if low.timestamp() <= c["click_unix_timestamp"] <= high.timestamp()]
            if self.break_ == "purged":  # one from the middle of the window
                clicks.pop(len(clicks) // 2)
            return Response.json_response(200, {"clicks": [*clicks, {"transaction_id": "raw-click"}]})
        paging = body.get("paging") or {}
        size, page = int(paging.get("size", 5)), int(paging.get("page", 1))
        rows = self.conversions[(page - 1) * size:page * size]
        return Response.json_response(200, {"rows": rows, "paging": {"page": page, "total": len(self.conversions)}})


def run(server: Tracker, params: dict[str, Any] = PARAMS) -> None:
    rule = Rule(id="demo.clicks.retention", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /clicks", params=params)
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {"today": TODAY.date().isoformat()})
    kept_rows(context(contract, rule, server.handle))


@pytest.mark.parametrize("zone", [0, -5, 14, -12])
def test_a_server_keeping_the_clicks_of_conversions_passes_in_any_zone(zone: int) -> None:
    run(Tracker(zone=zone))


@pytest.mark.parametrize(("break_", "message"), [("purged", "1 of the .* rows POST /report lists are gone"),
                                                 ("crash", "got status 500")])
def test_a_server_purging_them_or_crashing_fails(break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Tracker(break_=break_))


def test_no_conversion_in_the_window_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="not exercised"):
        run(Tracker(conversions=CONVERSIONS[:3]))  # all before the window


def test_a_window_inside_the_retention_is_a_contract_error() -> None:
    with pytest.raises(ContractFileError, match="more than 93 days back"):
        run(Tracker(), {**PARAMS, "end_days_back": 60})
