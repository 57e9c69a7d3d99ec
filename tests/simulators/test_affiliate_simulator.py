"""The affiliate simulator's core on its own: windows, caps, filters, single-use uploads, PUT."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from conformance.services.affiliate.simulator import AffiliateSimulator
from conformance.simulators.base import Clock
from conformance.transport.model import Request, Response

KEY = AffiliateSimulator.credentials["API_KEY"]
TODAY = date.fromisoformat(AffiliateSimulator.credentials["TODAY"])
REPORT = "/v1/networks/reporting/conversions"


@pytest.fixture
def sim() -> AffiliateSimulator:
    return AffiliateSimulator(clock=Clock())


def call(sim: AffiliateSimulator, method: str, path: str, body: Any = None, key: str | None = KEY,
         query: list[tuple[str, str]] | None = None) -> Response:
    headers = {"content-type": "application/json"} if body is not None else {}
    if key is not None:
        headers["x-tracker-api-key"] = key
    raw = json.dumps(body).encode() if body is not None else b""
    return sim.handle(Request(method, path, query or [], headers, raw))


def report(first: date, last: date, **extra: Any) -> dict[str, Any]:
    return {"from": first.isoformat(), "to": last.isoformat(), "timezone_id": 90, "show_conversions": True,
            "show_events": True, **extra}


def test_today_is_the_clock_date(sim: AffiliateSimulator) -> None:
    assert sim.today() == TODAY


def test_key_required(sim: AffiliateSimulator) -> None:
    assert call(sim, "GET", "/v1/networks/campaigns", key=None).status == 401
    assert call(sim, "GET", "/v1/networks/campaigns").status == 200


@pytest.mark.parametrize(("back", "span", "status"), [(365, 7, 200), (366, 7, 400), (360, 365, 200), (360, 366, 400)])
def test_conversion_window_edges(sim: AffiliateSimulator, back: int, span: int, status: int) -> None:
    first = TODAY - timedelta(days=back)
    assert call(sim, "POST", REPORT, report(first, first + timedelta(days=span))).status == status


def test_filters_or_within_and_across(sim: AffiliateSimulator) -> None:
    body = report(TODAY - timedelta(days=30), TODAY, paging={"page": 1, "page_size": 1000})
    rows = json.loads(call(sim, "POST", REPORT, body).body)["conversions"]
    one = [{"filter_id_value": "alpha", "resource_type": "sub1"}, {"filter_id_value": "beta", "resource_type": "sub1"}]
    both = [*one, {"filter_id_value": "red", "resource_type": "sub2"}]
    for filters, keep in ((one, lambda r: r["sub1"] in ("alpha", "beta")),
                          (both, lambda r: r["sub1"] in ("alpha", "beta") and r["sub2"] == "red")):
        got = json.loads(call(sim, "POST", REPORT, {**body, "query": {"filters": filters}}).body)["conversions"]
        assert {r["conversion_id"] for r in got} == {r["conversion_id"] for r in rows if keep(r)}


def test_click_span_and_cap(sim: AffiliateSimulator) -> None:
    path = "/v1/affiliates/reporting/clicks/stream"
    body = {"from": f"{TODAY - timedelta(days=14)} 00:00:00", "to": f"{TODAY} 00:00:00", "timezone_id": 90}
    answer = call(sim, "POST", path, body)
    assert answer.status == 200 and len(json.loads(answer.body)["clicks"]) == 5000
    body["from"] = f"{TODAY - timedelta(days=15)} 00:00:00"
    assert call(sim, "POST", path, body).status == 400


def test_upload_url_serves_once(sim: AffiliateSimulator) -> None:
    answer = call(sim, "POST", "/v1/networks/uploads/temp", {"mime_type": "text/plain", "content_base64": "aGk="})
    url = json.loads(answer.body)["urls"][0]["url"]
    path = url.split("localhost", 1)[-1]
    assert call(sim, "GET", path, key=None).body == b"hi"
    assert call(sim, "GET", path, key=None).status == 404


def test_put_resets_omitted_fields(sim: AffiliateSimulator) -> None:
    base = {"campaign_name": "x", "redirect_routing_type": "priority",
            "redirects": [{"redirect_network_offer_id": 1, "routing_value": 1}]}
    created = json.loads(call(sim, "POST", "/v1/networks/campaigns", {**base, "labels": ["a"]}).body)
    path = f"/v1/networks/campaigns/{created['network_campaign_id']}"
    assert json.loads(call(sim, "PUT", path, base).body)["labels"] == []


def test_kpi_needs_its_fields(sim: AffiliateSimulator) -> None:
    body = {"campaign_name": "k", "redirect_routing_type": "kpi", "run_frequency": "24_hours", "metric": "cvr",
            "optimization_goal": 1, "data_lookback_window": "12_hours"}
    assert call(sim, "POST", "/v1/networks/campaigns", body).status == 400
    assert call(sim, "POST", "/v1/networks/campaigns", {**body, "data_collection_threshold": 5}).status == 200


def test_hostile_dates_are_400(sim: AffiliateSimulator) -> None:
    for value in ("2027-13-45", "yesterday", 20270101, None):
        body = report(TODAY, TODAY)
        body["from"] = value
        assert call(sim, "POST", REPORT, body).status == 400


def test_first_page_and_old_from_follow_the_rules(sim: AffiliateSimulator) -> None:
    body = report(TODAY - timedelta(days=30), TODAY)
    assert call(sim, "POST", REPORT, {**body, "paging": {"page_size": 5}}).json()["paging"]["page"] == 1
    assert call(sim, "POST", REPORT, {**body, "paging": {"page": 0}}).status == 400
    sim.rules.first_page = 0
    zero = call(sim, "POST", REPORT, {**body, "paging": {"page": 0, "page_size": 5}}).json()
    assert zero["paging"]["page"] == 0 and len(zero["conversions"]) == 5
    old = report(TODAY - timedelta(days=375), TODAY - timedelta(days=365))
    assert call(sim, "POST", REPORT, old).status == 400
    sim.rules.clip_old_from = True
    edge = datetime.combine(TODAY - timedelta(days=365), datetime.min.time(), UTC).timestamp()
    rows = call(sim, "POST", REPORT, {**old, "paging": {"page_size": 1000}}).json()["conversions"]
    assert all(r["conversion_unix_timestamp"] >= edge for r in rows)


def test_put_requires_all_fields_when_told(sim: AffiliateSimulator) -> None:
    link = call(sim, "GET", "/v1/networks/campaigns/1").json()
    writable = {k: v for k, v in link.items() if k not in ("network_campaign_id", "network_id", "time_created",
                                                          "time_saved", "encoded_value")}
    sim.rules.put_requires_all = True
    assert call(sim, "PUT", "/v1/networks/campaigns/1", writable).status == 200
    without = {k: v for k, v in writable.items() if k != "labels"}
    assert call(sim, "PUT", "/v1/networks/campaigns/1", without).status == 400
