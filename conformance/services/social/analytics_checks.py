"""Scenario check of post analytics: timezone filters (the one-year period, profile counts, the
10000-result cap, the guid walk past it, fields, sort and UTC output are core checks)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.social.support import POSTS, body, rows_of

__all__: list[str] = []


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
