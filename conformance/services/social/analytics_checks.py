"""Scenario checks of post analytics: timezone filters and guid-cursor walking (the one-year period,
profile counts, the 10000-result cap, fields, sort and UTC output are core checks)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status
from conformance.checks.registry import named
from conformance.services.social.body_checks import customer_profiles
from conformance.services.social.support import POSTS, accepted, body, post, rows_of

__all__: list[str] = []

_FILTERS = {"type": "array", "items": {"type": "string"}}


def _stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@named("social/timezone-filters",
       params={"timezone": {"type": "string"}, "day": {"type": "string"}}, required=("timezone", "day"))
def timezone_filters(ctx: CheckContext) -> None:
    """The day in the zone against an independent selection from a wider UTC read."""
    zone, day = ZoneInfo(ctx.rule.params["timezone"]), date.fromisoformat(ctx.rule.params["day"])
    wide = [f"customer_profile_id.eq({ctx.credential('PROFILE_ID')})",
            f"created_time.in({(day - timedelta(days=1)).isoformat()}..{(day + timedelta(days=2)).isoformat()})"]
    every, _ = rows_of(ctx, POSTS, body(ctx, POSTS, filters=wide, sort=["created_time:asc"]), "the UTC read")
    want = {r["guid"] for r in every if _stamp(r["created_time"]).astimezone(zone).date() == day}
    # Whether '...' excludes the end in analytics ranges is not shown (gap analytics-range-dots):
    # a post at exactly midnight after the day may come back either way.
    end = datetime.combine(day + timedelta(days=1), datetime.min.time(), zone)
    either = {r["guid"] for r in every if _stamp(r["created_time"]) == end}
    narrow = [wide[0], f"created_time.in({day.isoformat()}...{(day + timedelta(days=1)).isoformat()})"]
    got, _ = rows_of(ctx, POSTS, body(ctx, POSTS, filters=narrow, timezone=ctx.rule.params["timezone"]),
                     f"{day} in {zone}")
    if not want:
        ctx.skip(f"no posts on {day} in {zone}: nothing to select")
    expect({r["guid"] for r in got} - either == want, ctx.rule.id, f"{len(got)} posts for {day} in {zone}, "
           f"{len(want)} expected from the UTC read", expected=f"the posts created on {day} in {zone}")


@named("social/guid-cursor",
       params={"cap": {"type": "integer", "minimum": 1}, "max_pages": {"type": "integer", "minimum": 1},
               "other_filters": _FILTERS}, required=("cap", "max_pages", "other_filters"))
def guid_cursor(ctx: CheckContext) -> None:
    params = ctx.rule.params
    ids = customer_profiles(ctx, 100)
    base = [f"customer_profile_id.eq({', '.join(ids)})", *params["other_filters"]]
    seen: list[str] = []
    last = ""
    for page in range(1, params["max_pages"] + 1):
        filters = base + ([f"guid.gt({last})"] if last else [])
        exchange = post(ctx, POSTS, body(ctx, POSTS, filters=filters, sort=["guid:asc"], fields=["guid"]))
        # The first answer is held to the schema; the rest only to 200 and rows with a guid
        # (validating two hundred pages would cost more than the walk).
        if page == 1:
            rows = accepted(ctx, exchange, POSTS, "request 1 of the guid walk")["data"]
        else:
            expect_status(ctx.rule.id, exchange, 200, f"request {page} of the guid walk")
            rows = (exchange.response.json() or {}).get("data")
            expect(isinstance(rows, list) and all(isinstance(r, dict) and "guid" in r for r in rows), ctx.rule.id,
                   f"request {page}: no rows with guids", exchange=exchange, expected="data: rows with guid")
        guids = [r["guid"] for r in rows]
        expect(guids == sorted(guids) and (not last or not guids or guids[0] > last), ctx.rule.id,
               f"request {page}: guids {guids[:3]}... after {last!r} are not ascending past the cursor",
               exchange=exchange, expected="guid:asc, all greater than the cursor")
        if not rows:
            break
        seen += guids
        last = guids[-1]
    else:
        # max_pages is this check's reading budget, not a bound the document gives.
        if len(seen) > params["cap"] and len(seen) == len(set(seen)):
            return  # read past the cap, no guid twice: what the rule claims was shown
        ctx.skip(f"the walk read {params['max_pages']} requests without reaching the cap or the end: "
                 "not exercised")
    expect(len(seen) == len(set(seen)), ctx.rule.id, "a guid came twice in the walk", expected="no post twice")
    if len(seen) <= params["cap"]:
        ctx.skip(f"the query has {len(seen)} posts, not more than the cap of {params['cap']}: not exercised")
