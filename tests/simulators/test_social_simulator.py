"""The social simulator on its own: paging styles, filters, limits, rates and hostile input."""

from __future__ import annotations

from typing import Any

from conformance.services.social.simulator import SocialSimulator
from conformance.transport.model import Request, Response

TOKEN = SocialSimulator.credentials["ACCESS_TOKEN"]
CUSTOMER = SocialSimulator.credentials["CUSTOMER_ID"]
PROFILE = SocialSimulator.credentials["PROFILE_ID"]
GROUP = SocialSimulator.credentials["GROUP_ID"]


def call(sim: SocialSimulator, method: str, path: str, body: Any = None, **headers: str) -> Response:
    sent = {"Authorization": f"Bearer {TOKEN}", **headers}
    return sim.handle(Request.build(method, f"/v1/{CUSTOMER}{path}" if not path.startswith("/v1") else path,
                                    headers=sent, json_body=body))


def posts(sim: SocialSimulator, *filters: str, **extra: Any) -> Response:
    body = {"filters": [f"customer_profile_id.eq({PROFILE})", *filters], "metrics": ["likes"], **extra}
    return call(sim, "POST", "/analytics/posts", body)


def test_envelope_and_headers_on_success_and_error() -> None:
    sim = SocialSimulator()
    ok, refused = call(sim, "GET", "/v1/metadata/client"), call(sim, "GET", "/v1/2002/metadata/customer")
    assert ok.status == 200 and ok.json() == {"data": [{"customer_id": int(CUSTOMER)}]}
    assert refused.status == 403 and refused.json()["data"] == [] and "error" in refused.json()
    for res in (ok, refused):
        assert (res.header("x-svc-api-version") or "").startswith("1.")
        assert len((res.header("x-svc-server-version") or "").split(".")) == 3
        assert len(res.header("x-svc-request-id") or "") == 36


def test_page_above_total_is_400_and_cap_cuts_at_10000() -> None:
    sim = SocialSimulator()
    first = posts(sim, "created_time.in(2026-03-01..2026-03-31)")
    total = first.json()["paging"]["total_pages"]
    assert posts(sim, "created_time.in(2026-03-01..2026-03-31)", page=total).status == 200
    assert posts(sim, "created_time.in(2026-03-01..2026-03-31)", page=total + 1).status == 400
    everyone = ", ".join(str(501 + i) for i in range(7))
    body = {"filters": [f"customer_profile_id.eq({everyone})", "created_time.in(2026-01-01..2027-01-01)"],
            "metrics": ["likes"]}
    assert call(sim, "POST", "/analytics/posts", body).json()["paging"]["total_pages"] == 10_000 // 50


def test_messages_cursor_ends_without_paging_and_refuses_forged_cursors() -> None:
    sim = SocialSimulator()
    body = {"filters": [f"group_id.eq({GROUP})", f"customer_profile_id.eq({PROFILE})",
                        "created_time.in(2026-03-01..2026-03-31)"], "limit": 100}
    seen: list[str] = []
    res = call(sim, "POST", "/messages", body)
    while "paging" in res.json():
        seen += [r["guid"] for r in res.json()["data"]]
        res = call(sim, "POST", "/messages", {**body, "page_cursor": res.json()["paging"]["next_cursor"]})
    seen += [r["guid"] for r in res.json()["data"]]
    assert len(seen) == len(set(seen)) > 100
    assert call(sim, "POST", "/messages", {**body, "page_cursor": "forged"}).status == 400
    assert call(sim, "POST", "/messages", {**body, "page": 2}).status == 400


def test_range_ends_and_match_terms() -> None:
    sim = SocialSimulator()

    def guids(*filters: str) -> set[str]:
        res = call(sim, "POST", "/listening/topics/t-brand/messages",
                   {"filters": list(filters), "fields": ["guid", "text"], "limit": 500})
        assert res.status == 200, res.body
        return {r["guid"] for r in res.json()["data"]}

    inclusive = guids("created_time.in(2026-01-01T00:00:00Z..2026-01-02T19:00:00Z)")
    exclusive = guids("created_time.in(2026-01-01T00:00:00Z...2026-01-02T19:00:00Z)")
    assert len(inclusive) == len(exclusive) + 2  # two messages share the end stamp
    both, either = guids("text.match(coffee sale)"), guids("text.match(coffee OR sale)")
    assert both < either


def test_rate_limit_on_the_clock() -> None:
    sim = SocialSimulator()
    statuses = [call(sim, "GET", "/v1/metadata/client").status for _ in range(61)]
    assert statuses[:60] == [200] * 60 and statuses[60] == 429
    sim.clock.advance(60)
    assert call(sim, "GET", "/v1/metadata/client").status == 200


def test_body_and_accept_not_json_are_415() -> None:
    sim = SocialSimulator()
    text = sim.handle(Request.build("POST", f"/v1/{CUSTOMER}/analytics/posts", content=b"{}",
                                    headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "text/plain"}))
    assert text.status == 415
    assert call(sim, "GET", "/v1/metadata/client", Accept="text/html").status == 415


def test_optional_message_filters_narrow_and_a_wrongly_typed_timezone_or_fields_is_400() -> None:
    sim = SocialSimulator()
    base = [f"group_id.eq({GROUP})", f"customer_profile_id.eq({PROFILE})", "created_time.in(2026-03-01..2026-03-15)"]

    def guids(*extra: str) -> dict[str, str]:
        query = {"filters": [*base, *extra], "fields": ["guid", "post_type"], "limit": 100}
        res = call(sim, "POST", "/messages", query)
        assert res.status == 200 and "paging" not in res.json()  # one page holds them all
        return {r["guid"]: r["post_type"] for r in res.json()["data"]}

    every = guids()
    kind = next(iter(every.values()))
    assert guids(f"post_type.eq({kind})") == {g: t for g, t in every.items() if t == kind}
    assert set(guids("tag_id.eq(2)")) < set(every) and set(guids("language_code.eq(en)")) <= set(every)
    assert posts(sim, "created_time.in(2026-03-01..2026-03-31)", timezone={"zone": "UTC"}).status == 400
    metrics = call(sim, "POST", "/listening/topics/t-brand/metrics", {"metrics": ["likes"], "fields": 5})
    assert metrics.status == 400


# Every member the document lists as requestable ("Message/post fields that can be requested").
REQUESTABLE = ["guid", "customer_profile_id", "created_time", "text", "perma_link", "network", "post_type",
               "post_category", "profile_guid", "content_category", "hashtags", "language", "location.city",
               "visual_media", "from.name", "from.profile_picture", "from.screen_name",
               "activity_metadata.first_like.time_elapsed", "internal.tags.id", "internal.sent_by.id",
               "internal.sent_by.email", "internal.sent_by.first_name", "internal.sent_by.last_name"]


def test_every_requestable_member_comes_back_on_some_post() -> None:
    sim = SocialSimulator()
    rows = posts(sim, "created_time.in(2026-01-01..2026-12-31)", fields=REQUESTABLE).json()["data"]
    seen: set[str] = set()
    for row in rows:
        seen |= {k for k in row if k not in ("internal", "metrics")}
        internal = row.get("internal", {})
        if any("id" in tag for tag in internal.get("tags", [])):
            seen.add("internal.tags.id")
        seen |= {f"internal.sent_by.{k}" for k in internal.get("sent_by", {})}
    assert set(REQUESTABLE) - seen == set()
    one = next(row for row in rows if row.get("visual_media"))
    assert set(one["visual_media"][0]) == {"media_url", "media_type"}
    assert isinstance(one["internal"]["sent_by"]["id"], int)
    # The shorthand: internal is internal.tags.id and internal.sent_by.id, and nothing more.
    short = posts(sim, "created_time.in(2026-01-01..2026-12-31)", fields=["internal"]).json()["data"][0]
    assert set(short["internal"]["sent_by"]) == {"id"} and set(short) == {"internal", "metrics"}


def test_media_upload_takes_a_body_under_50_mb_other_routes_keep_the_shared_cap() -> None:
    from conformance.simulators.base import MAX_BODY_BYTES

    sim = SocialSimulator()
    big = b'{"media": "' + b"a" * (MAX_BODY_BYTES + 1024) + b'"}'
    headers = {"Authorization": f"Bearer {TOKEN}", "content-type": "application/json"}
    upload = sim.handle(Request.build("POST", f"/v1/{CUSTOMER}/media/", headers=headers, content=big))
    assert upload.status == 200, upload.summary()
    other = sim.handle(Request.build("POST", f"/v1/{CUSTOMER}/publishing/posts", headers=headers, content=big))
    assert other.status == 413
    too_big = b"a" * 50_000_000
    assert sim.handle(Request.build("POST", f"/v1/{CUSTOMER}/media/", headers=headers, content=too_big)).status == 413
