"""The affiliate simulator's seeded data: conversions, clicks and smart links.

Everything is generated from a fixed seed relative to the simulator's date at start, so two
simulators built on the same clock hold the same rows (replay and HTTP verdicts agree). The
numbers here are the simulator's own choices, not read from the contract.

Built once per anchor and process, as social's world is (rows nobody mutates: answers are built
from them, never written into them): every case gets a fresh simulator on the same simulated
start, and regenerating 430 conversions and 6,800 clicks per case cost about a second a gate.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = ["DAY", "HEAVY_EMAIL", "SeedData", "build_clicks", "build_conversions", "first_conversion_id"]

DAY = 86_400
HEAVY_EMAIL = "heavy@example.com"
STATUSES = ("approved", "pending", "rejected", "invalid")
# Enough recent raw clicks that the click cap bites within one day's window.
RECENT_CLICKS = 6_000

_SUB1 = ("alpha", "beta", "gamma")
_SUB2 = ("red", "green")
_SUB3 = ("north", "south", "east")
_SOURCES = ("s1", "s2", "s3", "s4")
_COUPONS = ("", "SAVE10", "SAVE20")
_ADV1 = ("a1", "a2")
_COUNTRIES = (("US", "United States"), ("DE", "Germany"), ("FR", "France"))


def _hex(*parts: object) -> str:
    return hashlib.md5("|".join(map(str, parts)).encode()).hexdigest()  # noqa: S324 (an id, not security)


def first_conversion_id() -> str:
    """The id of the first seeded conversion (the CONVERSION_ID setting)."""
    return _hex("conversion", 0)


def _conversion(i: int, ts: float, rng: random.Random, email: str) -> dict[str, Any]:
    code, country = rng.choice(_COUNTRIES)
    offer = rng.randint(1, 4)
    click_ts = ts - rng.randint(60, DAY // 2)
    row: dict[str, Any] = {
        "conversion_id": _hex("conversion", i),
        "conversion_unix_timestamp": int(ts),
        "sub1": rng.choice(_SUB1), "sub2": rng.choice(_SUB2), "sub3": rng.choice(_SUB3),
        "sub4": "", "sub5": "",
        "source_id": rng.choice(_SOURCES),
        "status": rng.choice(STATUSES),
        "payout_type": "cpa", "revenue_type": "rpa",
        "payout": float(rng.randint(1, 20)), "revenue": float(rng.randint(20, 40)),
        "sale_amount": float(rng.randint(0, 200)),
        "session_user_ip": f"198.51.100.{i % 250}", "conversion_user_ip": f"198.51.100.{i % 250}",
        "country": country, "region": "", "city": "", "dma": 0, "carrier": "", "platform": "Linux",
        "os_version": "", "device_type": "PC", "device_model": "", "brand": "", "browser": "Firefox",
        "language": "en", "http_user_agent": "Mozilla/5.0",
        "adv1": rng.choice(_ADV1), "adv2": "", "adv3": "", "adv4": "", "adv5": "",
        "is_event": rng.random() < 0.2, "event": "",
        "notes": "", "transaction_id": _hex("click", i), "click_unix_timestamp": int(click_ts),
        "error_code": 0, "error_message": "",
        "is_scrub": rng.random() < 0.1,
        "coupon_code": rng.choice(_COUPONS), "order_id": f"order-{i}", "url": "", "isp": "", "referer": "",
        "app_id": "", "idfa": "", "idfa_md5": "", "idfa_sha1": "", "google_ad_id": "",
        "google_ad_id_md5": "", "google_ad_id_sha1": "", "android_id": "", "android_id_md5": "",
        "android_id_sha1": "", "currency_id": "USD", "email": email,
        "is_view_through": rng.random() < 0.15,
        "previous_network_offer_id": 0, "network_offer_payout_revenue_id": 0,
        "relationship": {
            "offer": {"network_offer_id": offer, "name": f"Offer {offer}"},
            "advertiser": {"network_advertiser_id": 1, "name": "Advertiser"},
            "account_manager": {}, "affiliate": {"network_affiliate_id": 1 + i % 3, "name": "Partner"},
            "affiliate_manager": {}, "query_parameters": {}, "attribution_method": "last_touch",
            "usm_data": None,
        },
    }
    if rng.random() < 0.08:  # failed traffic
        row["error_code"], row["error_message"] = 3, "offer cap reached"
    row["country_code"] = code
    return row


@lru_cache(maxsize=4)
def _seeded(anchor: float) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    conversions = build_conversions(anchor)
    return tuple(conversions), tuple(build_clicks(anchor, conversions))


def build_conversions(anchor: float) -> list[dict[str, Any]]:
    """About 300 conversions over the last 400 days and 130 of one email in the last 60."""
    rng = random.Random(20270115)
    rows = []
    for i in range(300):
        rows.append(_conversion(i, anchor - rng.uniform(0.2, 400) * DAY, rng, f"buyer{i % 40}@example.com"))
    for i in range(300, 430):
        rows.append(_conversion(i, anchor - rng.uniform(0.2, 60) * DAY, rng, HEAVY_EMAIL))
    return rows


def build_clicks(anchor: float, conversions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The click of every conversion, raw clicks over the last 200 days, and a recent burst."""
    rng = random.Random(5000)
    clicks = []

    def click(tid: str, ts: float, converted: bool) -> dict[str, Any]:
        return {"transaction_id": tid, "is_unique": 1, "unix_timestamp": int(ts),
                "tracking_url": "https://track.example/c", "source_id": rng.choice(_SOURCES),
                "sub1": rng.choice(_SUB1), "sub2": "", "sub3": "", "sub4": "", "sub5": "",
                "revenue_type": "rpc", "revenue": 0.0, "referer": "", "error_code": 0, "error_message": "",
                "user_ip": "203.0.113.7", "converted": converted}

    for row in conversions:
        clicks.append(click(row["transaction_id"], row["click_unix_timestamp"], True))
    for i in range(400):
        clicks.append(click(_hex("raw", i), anchor - rng.uniform(0.1, 200) * DAY, False))
    # Three to two days back: inside a 14-day window ending today, outside the last day.
    start = anchor - 3 * DAY
    for i in range(RECENT_CLICKS):
        clicks.append(click(_hex("burst", i), start + i * (DAY / RECENT_CLICKS), False))
    clicks.sort(key=lambda c: c["unix_timestamp"])
    return clicks


@dataclass
class SeedData:
    anchor: float
    conversions: list[dict[str, Any]] = field(init=False)
    clicks: list[dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        conversions, clicks = _seeded(self.anchor)
        self.conversions, self.clicks = list(conversions), list(clicks)
