"""Scenario check of conversions by email (the conversion id's length is the core ``id-length``, the
export's rows the core ``export-matches``)."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.affiliate.common import EMAIL, PAGED, ok, read_report, window
from conformance.transport.model import Exchange

__all__: list[str] = []


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
