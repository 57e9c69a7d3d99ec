"""Scenario checks of the export and of conversions by email (the conversion id's length is the core
``id-length``)."""

from __future__ import annotations

import csv
import io
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.affiliate.common import (
    EMAIL,
    EXPORT,
    PAGED,
    REPORT,
    ok,
    read_report,
    setting,
    window,
)
from conformance.transport.jsonbody import loads
from conformance.transport.model import Exchange

__all__: list[str] = []


def _export_ids(ctx: CheckContext, exchange: Exchange, fmt: str, column: str) -> list[str]:
    text = exchange.response.body.decode("utf-8", errors="replace")
    if fmt == "json":
        ids = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = loads(line)
            except ValueError:
                expect(False, ctx.rule.id, f"line {number} of the json export is not JSON", exchange=exchange,
                       expected="newline-delimited JSON")
            expect(isinstance(row, dict) and column in row, ctx.rule.id, f"line {number} has no {column}",
                   exchange=exchange, expected=f"one object per line with {column}")
            ids.append(str(row[column]))
        return ids
    reader = csv.DictReader(io.StringIO(text))
    expect(column in (reader.fieldnames or []), ctx.rule.id, f"the CSV header has no {column} column",
           exchange=exchange, expected=f"a {column} column (it was asked for)")
    return [row[column] for row in reader]


@named("affiliate/export-rows-match", params=PAGED, required=("days_back", "page_size", "max_pages"))
def export_rows_match(ctx: CheckContext) -> None:
    params = ctx.rule.params
    body = window(ctx, params["days_back"])
    rows = read_report(ctx, body, params["page_size"], params["max_pages"])
    if not rows:
        ctx.skip("the report window holds no rows: nothing to compare")
    wanted = sorted(r["conversion_id"] for r in rows)
    # The CSV header names are not shown (gap export-media-types): the column asked for and read
    # back is the EXPORT_ID_COLUMN setting (default conversion_id, one of the documented names).
    column = setting(ctx, "EXPORT_ID_COLUMN")
    for fmt in ctx.contract.where_schema(EXPORT, "body.format")["enum"]:
        exchange = ctx.call(EXPORT, json_body=window(ctx, params["days_back"], EXPORT, format=fmt,
                                                     columns=[column, "status"]))
        ok(ctx, exchange, EXPORT, f"the {fmt} export")
        got = sorted(_export_ids(ctx, exchange, fmt, column))
        expect(got == wanted, ctx.rule.id, f"the {fmt} export holds {len(got)} rows, the report {len(wanted)} "
               f"({len(set(wanted) - set(got))} missing, {len(set(got) - set(wanted))} extra)",
               exchange=exchange, expected="the report's rows")


def _some_conversion(ctx: CheckContext) -> dict[str, Any]:
    data = ok(ctx, ctx.call(REPORT, json_body=window(ctx, ctx.rule.params["days_back"])), REPORT, "the report")
    if not data["conversions"]:
        ctx.skip("the report window holds no conversion to fetch")
    row: dict[str, Any] = data["conversions"][0]
    return row


def _email_rows(ctx: CheckContext) -> tuple[Exchange, list[dict[str, Any]]]:
    exchange = ctx.call(EMAIL, json_body={"email": ctx.credential("EMAIL")})
    return exchange, ok(ctx, exchange, EMAIL, "conversions of the email")["conversions"]


@named("affiliate/email-latest", params=PAGED, required=("days_back", "page_size", "max_pages"))
def email_latest(ctx: CheckContext) -> None:
    params = ctx.rule.params
    exchange, rows = _email_rows(ctx)
    cap = ctx.contract.response_schema(EMAIL, 200)["properties"]["conversions"]["maxItems"]  # type: ignore[index]
    email = ctx.credential("EMAIL")
    year = [r for r in read_report(ctx, window(ctx, params["days_back"]), params["page_size"], params["max_pages"])
            if r.get("email") == email]
    year.sort(key=lambda r: -r["conversion_unix_timestamp"])
    got = {r["conversion_id"] for r in rows}
    if len(year) >= cap:
        newest = {r["conversion_id"] for r in year[:cap]}
        expect(got == newest, ctx.rule.id, f"{len(got - newest)} of the {len(got)} conversions are not among "
               f"the latest {cap} of the report", exchange=exchange, expected=f"the latest {cap}")
    else:
        missing = {r["conversion_id"] for r in year} - got
        expect(not missing, ctx.rule.id, f"{len(missing)} of the email's {len(year)} conversions of the "
               "previous year are missing", exchange=exchange, expected="every conversion of the last year")
        ctx.skip(f"the email has {len(year)} conversions in the report, fewer than {cap}: the cap is not exercised")
