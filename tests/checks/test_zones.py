"""The core check ``zoned-days`` against a tiny post server whose ``t.in(a..b)`` / ``t.in(a...b)``
filters read bare dates as midnight in the request's ``tz`` (else in the server's own zone).

With a zone: a server reading the days in it passes (also one paging its rows by cursor), one
ignoring the zone fails, and days without rows are not exercised. Without one: a server reading
bare dates at midnight of any one offset passes (UTC, -05:00, +05:45), one reading a bare end date
as the end of that day fails."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from conformance.checks.zones import zoned_days
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.transport.model import Request, Response
from tests.checks.server import context

_EXAMPLE = {"filters": ["p.eq(1)", "t.in(2026-01-01..2026-02-01)"]}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/posts": {"post": {
    "requestBody": {"content": {"application/json": {"schema": {"type": "object"}, "example": _EXAMPLE}}},
    "responses": {"200": {"description": "posts"}}}}}}
START = datetime(2026, 3, 8, tzinfo=UTC)
ROWS = [{"id": f"r{n}", "t": (START + timedelta(hours=5 * n + 1)).strftime("%Y-%m-%dT%H:%M:%SZ")} for n in range(30)]
ZONED = {"check": "zoned-days", "in": "body", "items_field": "data", "member": "t", "id_field": "id",
         "append": "filters", "days": ["2026-03-10", "2026-03-11"], "wide": "t.in({$from}..{$to})", "wide_form": "date",
         "narrow": "t.in({$from}...{$to})", "zone": {"member": "tz", "value": "America/Los_Angeles"}}
BARE = {**{k: v for k, v in ZONED.items() if k not in ("zone", "wide_form")}, "days": ["2026-03-10", "2026-03-12"],
        "narrow": "t.in({$from}..{$to})"}
_RANGE = re.compile(r"^t\.in\((.+?)(\.\.\.?)(.+)\)$")


class Posts:
    def __init__(self, *, own: tzinfo = UTC, break_: str = "", paged: bool = False,
                 rows: list[dict[str, Any]] = ROWS) -> None:
        self.own, self.break_, self.paged, self.rows = own, break_, paged, rows

    def _moment(self, text: str, zone: tzinfo, end: bool) -> datetime:
        if "T" in text:
            return datetime.fromisoformat(text.replace("Z", "+00:00"))
        clock = time(23, 59, 59) if end and self.break_ == "whole-day" else time()
        return datetime.combine(date.fromisoformat(text), clock, zone)

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body)
        zone = ZoneInfo(body["tz"]) if "tz" in body and self.break_ != "zone-ignored" else self.own
        rows = list(self.rows)
        for entry in body.get("filters") or []:
            found = _RANGE.match(entry)
            if found:
                low, dots, high = found.group(1), found.group(2), found.group(3)
                a, b = self._moment(low, zone, False), self._moment(high, zone, True)
                rows = [r for r in rows if a <= (m := datetime.fromisoformat(r["t"].replace("Z", "+00:00")))
                        and (m < b if dots == "..." else m <= b)]
        if not self.paged:
            return Response.json_response(200, {"data": rows})
        start = int(body.get("cursor") or 0)
        more = {"paging": {"next": str(start + 4)}} if start + 4 < len(rows) else {}
        return Response.json_response(200, {"data": rows[start:start + 4], **more})


def run(server: Posts, params: dict[str, Any]) -> None:
    rule = Rule(id="demo.posts.days", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /posts", params=params)
    zoned_days(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle))


PAGED = {"style": "cursor", "cursor_param": "cursor", "next_field": "paging.next", "max_pages": 20}


@pytest.mark.parametrize("paged", [False, True])
def test_a_server_reading_the_days_in_the_zone_passes(paged: bool) -> None:
    run(Posts(paged=paged), {**ZONED, **(PAGED if paged else {})})


def test_a_server_ignoring_the_zone_fails() -> None:
    with pytest.raises(ContractFailure, match="expected from the wide read"):
        run(Posts(break_="zone-ignored"), ZONED)


def test_days_without_rows_are_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="nothing to select"):
        run(Posts(rows=ROWS[:2]), ZONED)


@pytest.mark.parametrize("own", [UTC, timezone(timedelta(hours=-5)), timezone(timedelta(hours=5, minutes=45))])
def test_bare_dates_at_midnight_of_any_one_offset_pass(own: tzinfo) -> None:
    run(Posts(own=own, paged=True), {**BARE, **PAGED})


def test_a_bare_end_date_read_as_the_whole_day_fails() -> None:
    with pytest.raises(ContractFailure, match="no midnight-to-midnight range of one UTC offset"):
        run(Posts(break_="whole-day"), BARE)
