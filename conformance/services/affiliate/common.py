"""What the affiliate checks share: operation names, dated windows and a report reader."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, setting, today
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.transport.model import Exchange

__all__ = ["CLICKS", "EMAIL", "PAGED", "REPORT", "dated_body", "first_page", "ok",
           "paging_members", "read_report", "stamp_text", "today", "window"]

REPORT = "POST /v1/networks/reporting/conversions"
EMAIL = "POST /v1/networks/reporting/conversions/email"
CLICKS = "POST /v1/affiliates/reporting/clicks/stream"

# Declared params of report readers.
PAGED = {"days_back": {"type": "integer", "minimum": 0}, "page_size": {"type": "integer", "minimum": 1},
         "max_pages": {"type": "integer", "minimum": 1}}


def paging_members(ctx: CheckContext) -> tuple[str, str]:
    """The request's paging members (page number, page size): the document names the body's
    paging member without its fields (gap request-paging), so they are the target settings
    REPORT_PAGE_MEMBER and REPORT_PAGE_SIZE_MEMBER (defaults: the response's paging names)."""
    return setting(ctx, "REPORT_PAGE_MEMBER"), setting(ctx, "REPORT_PAGE_SIZE_MEMBER")


def dated_body(ctx: CheckContext, operation: str, **members: Any) -> dict[str, Any]:
    """The operation's example re-dated from the target's today (``checks/examples.py``), with
    ``members`` set on top."""
    return {**example_body(ctx, operation), **members}


def stamp_text(day: date, clock: str = "00:00:00") -> str:
    return f"{day.isoformat()} {clock}"


def window(ctx: CheckContext, days_back: int, operation: str = REPORT, end: date | None = None,
           **members: Any) -> dict[str, Any]:
    """The operation's dated example over ``days_back`` days ending today (or ``end``)."""
    last = end or today(ctx)
    dates = {"from": (last - timedelta(days=days_back)).isoformat(), "to": last.isoformat()}
    return dated_body(ctx, operation, **{**dates, **members})


def ok(ctx: CheckContext, exchange: Exchange, operation: str, why: str) -> Any:
    """A success with a body valid under the operation's schema for that status."""
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    if schema is not None and schema != {}:
        return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why)
    return exchange.response.json()


def first_page(ctx: CheckContext, body: dict[str, Any], page_size: int | None) -> int:
    """The report's first page number (gap first-page): the REPORT_FIRST_PAGE setting, else the
    paging.page the target states for a request that names no page."""
    first = ctx.optional("REPORT_FIRST_PAGE")
    if first is None:
        paging = {paging_members(ctx)[1]: page_size} if page_size else {}
        data = ok(ctx, ctx.call(REPORT, json_body={**body, "paging": paging}), REPORT, "the report without a page")
        first = str((data.get("paging") or {}).get("page"))
    if not first.lstrip("-").isdigit():
        ctx.skip(f"the first page number is unknown ({first!r}): set REPORT_FIRST_PAGE")
    return int(first)


def read_report(ctx: CheckContext, body: dict[str, Any], page_size: int, max_pages: int) -> list[dict[str, Any]]:
    """Every row of the report for ``body``, page by page from the first page the target names
    (the walk itself is its own rule)."""
    rows: list[dict[str, Any]] = []
    start = first_page(ctx, body, page_size)
    number, size = paging_members(ctx)
    for page in range(start, start + max_pages):
        exchange = ctx.call(REPORT, json_body={**body, "paging": {number: page, size: page_size}})
        data = ok(ctx, exchange, REPORT, f"page {page} of the report")
        rows += data["conversions"]
        total = data["paging"]["total_count"]
        if len(rows) >= total or not data["conversions"]:
            expect(len(rows) == total, ctx.rule.id, f"read {len(rows)} rows of a stated {total}",
                   exchange=exchange, expected="total_count rows")
            return rows
    ctx.skip(f"the report needs more than {max_pages} pages of {page_size}: not read to the end")
