"""The social simulator's seeded world: customers, groups, profiles on all seven networks, tags,
users, a listening topic, and enough posts and messages to pass the 10000-result cap.

Built once per process (immutable tuples and dicts nobody mutates): every case gets a fresh
simulator, and regenerating twelve thousand posts per case would dominate the gate. Values are
derived from indices with a fixed hash, never from a random source or the clock.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Any

__all__ = ["CUSTOMER", "FOREIGN_PROFILE", "GROUPS", "MAIN_PROFILES", "NETWORKS", "OTHER_CUSTOMER",
           "OTHER_GROUP", "OTHER_GROUP_PROFILE", "PROFILES", "TAGS", "TOPIC", "USERS", "WORDS", "iso",
           "first_post_guid", "listening_messages", "messages", "number", "posts", "topics"]

CUSTOMER = 1001
OTHER_CUSTOMER = 2002
MAIN_GROUP, OTHER_GROUP = 11, 12
GROUPS = ({"group_id": MAIN_GROUP, "name": "Brand"}, {"group_id": OTHER_GROUP, "name": "Support"})

# network -> (guid code prefix, time zone of its daily activity). The document says four report
# in UTC and three in US Pacific time without naming them: SIM-CHOICE which ones.
NETWORKS: dict[str, tuple[str, str]] = {
    "twitter": ("tw", "UTC"), "facebook": ("fb", "America/Los_Angeles"),
    "instagram": ("ig", "America/Los_Angeles"), "linkedin": ("li", "UTC"), "youtube": ("yt", "UTC"),
    "tiktok": ("tt", "UTC"), "pinterest": ("pi", "America/Los_Angeles"),
}
_POST_TYPES = {"twitter": "TWEET", "facebook": "POST", "instagram": "MEDIA", "linkedin": "COMPANY_UPDATE",
               "youtube": "VIDEO", "tiktok": "VIDEO", "pinterest": "PIN"}

WORDS = ("coffee", "launch", "summer", "sale", "team", "travel", "music", "review", "update", "city")


def number(*parts: Any) -> int:
    """A stable pseudo-random number from ``parts`` (no random source: same world every run)."""
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:4], "big")


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _profile(pid: int, network: str, groups: list[int]) -> dict[str, Any]:
    return {"customer_profile_id": pid, "network_type": network, "name": f"Profile {pid}",
            "native_name": f"profile_{pid}", "native_id": str(880000 + pid), "groups": groups}


_NETS = list(NETWORKS)
MAIN_PROFILES = tuple(_profile(501 + i, net, [MAIN_GROUP]) for i, net in enumerate(_NETS))
OTHER_GROUP_PROFILE = _profile(508, "twitter", [OTHER_GROUP])
# Enough profiles that 100 (the per-request maximum) and 101 can be named.
_EXTRA = tuple(_profile(601 + i, _NETS[i % 7], [MAIN_GROUP]) for i in range(113))
PROFILES = MAIN_PROFILES + (OTHER_GROUP_PROFILE,) + _EXTRA
FOREIGN_PROFILE = _profile(9001, "twitter", [21])

TAGS = ({"tag_id": 1, "any_group": True, "active": True, "text": "launch", "type": "LABEL", "groups": []},
        {"tag_id": 2, "any_group": False, "active": True, "text": "summer-campaign", "type": "CAMPAIGN",
         "groups": [MAIN_GROUP]},
        # Archived tags are listed too (active false).
        {"tag_id": 3, "any_group": False, "active": False, "text": "old-campaign", "type": "CAMPAIGN",
         "groups": [MAIN_GROUP]})
USERS: tuple[dict[str, Any], ...] = ({"id": 71, "name": "Ada Admin"}, {"id": 72, "name": "Ben Editor"})
TOPIC = "t-brand"


def topics() -> list[dict[str, Any]]:
    return [{"id": TOPIC, "name": "Brand mentions", "topic_type": "BRAND", "description": "earned media",
             "group_id": MAIN_GROUP, "availability_time": "2025-06-01T00:00:00Z",
             "theme_groups": [{"name": "Products", "themes": [
                 {"id": "3f2a1c4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "name": "coffee"},
                 {"id": "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d", "name": "travel"}]}]}]


_YEAR_START = datetime(2026, 1, 1, tzinfo=UTC)
_POSTS_PER_PROFILE = 1600  # 7 x 1600 = 11200 posts: past the 10000 cap


# SIM-CHOICE: the users' own members (metadata/customer/users) are not shown; the members a
# post's sender carries (internal.sent_by.*) are listed as requestable, so posts carry them.
_SENDERS = tuple({"id": user["id"], "email": f"{user['name'].split()[0].lower()}@customer.example",
                  "first_name": user["name"].split()[0], "last_name": user["name"].split()[1]} for user in USERS)
_CITIES = ("Lisbon", "Austin", "Osaka", "Lagos")


def _authored(name: str, screen_name: str, *seed: Any) -> dict[str, Any]:
    """The documented requestable members every message has: author, place, category, media.
    SIM-CHOICE: their values (the document lists the names, and types only for visual_media)."""
    row: dict[str, Any] = {
        "from": {"name": name, "screen_name": screen_name,
                 "profile_picture": f"https://media.example/avatars/{screen_name}.jpg"},
        "location": {"city": _CITIES[number(*seed, "city") % len(_CITIES)]},
        "content_category": ("STANDARD", "LINK", "PHOTO")[number(*seed, "kind") % 3],
    }
    if number(*seed, "media") % 3 == 0:
        row["visual_media"] = [{"media_url": f"https://media.example/{screen_name}/{number(*seed) % 10_000}.jpg",
                                "media_type": "PHOTO"}]
    return row


def _text(*seed: Any) -> str:
    return " ".join(WORDS[number(*seed, k) % len(WORDS)] for k in range(3))


@lru_cache(maxsize=1)
def posts() -> tuple[dict[str, Any], ...]:
    """Posts of the seven main profiles (and the other group's profile), sorted by guid."""
    out = []
    for profile in (*MAIN_PROFILES, OTHER_GROUP_PROFILE):
        pid, network = profile["customer_profile_id"], profile["network_type"]
        code = NETWORKS[network][0]
        step = 365 * 86400 // _POSTS_PER_PROFILE
        for i in range(_POSTS_PER_PROFILE):
            moment = _YEAR_START + timedelta(seconds=i * step + number(pid, i) % step)
            likes = number(pid, i, "likes") % 500
            tags = [1 + number(pid, i, "tag") % 3] if i % 4 == 0 else []
            row = {
                "guid": f"{code}_{pid}{i:05d}", "customer_profile_id": pid, "created_time": iso(moment),
                "text": _text(pid, i), "perma_link": f"https://social.example/{code}/{pid}/{i}",
                "network": network.upper(), "post_type": f"{network.upper()}_{_POST_TYPES[network]}",
                "post_category": "POST", "profile_guid": f"{code}_{880000 + pid}", "language": "en",
                "hashtags": [f"#{WORDS[i % len(WORDS)]}"],
                "internal": {"tags": [{"id": t} for t in tags], "sent_by": _SENDERS[i % 2]},
                "tag_ids": tags,
                "metrics": {"impressions": likes * 9, "reactions": likes, "likes": likes,
                            "lifetime.impressions": likes * 11, "lifetime.reactions": likes + 3},
                **_authored(profile["name"], profile["native_name"], pid, i),
            }
            if likes:  # SIM-CHOICE: seconds from publishing to the first like (its unit is not shown)
                row["activity_metadata"] = {"first_like": {"time_elapsed": 60 + number(pid, i, "first") % 86_400}}
            out.append(row)
    return tuple(sorted(out, key=lambda p: p["guid"]))


def first_post_guid() -> str:
    """``posts()[0]["guid"]`` without building the year of posts (the seeded MESSAGE_ID: a
    replay, which runs no simulator, read it when the package was imported)."""
    return min(f"{NETWORKS[p['network_type']][0]}_{p['customer_profile_id']}{0:05d}"
               for p in (*MAIN_PROFILES, OTHER_GROUP_PROFILE))


@lru_cache(maxsize=1)
def messages() -> tuple[dict[str, Any], ...]:
    """Inbox messages: every post, plus messages received by the main profiles (newest first)."""
    received = []
    for profile in (*MAIN_PROFILES, OTHER_GROUP_PROFILE):
        pid, network = profile["customer_profile_id"], profile["network_type"]
        code = NETWORKS[network][0]
        for i in range(200):
            moment = _YEAR_START + timedelta(hours=i * 43 + number(pid, i, "m") % 40)
            received.append({
                "guid": f"{code}_in{pid}{i:04d}", "customer_profile_id": pid, "created_time": iso(moment),
                "text": _text(pid, i, "in"), "network": network.upper(),
                # Some received messages in another language, so a language filter changes the answer.
                "post_type": f"{network.upper()}_MENTION", "language": "es" if i % 6 == 1 else "en",
                "tag_ids": [2] if i % 5 == 0 else [], "metrics": {"likes": number(pid, i) % 40},
                **_authored(f"Fan {i}", f"fan_{pid}_{i}", pid, i)})
    rows = [dict(p) for p in posts()] + received
    for row in rows:
        created = datetime.fromisoformat(row["created_time"])  # ...Z is UTC; strptime took 0.1 s for these
        row["action_last_update_time"] = iso(created + timedelta(hours=1 + number(row["guid"]) % 48))
    return tuple(sorted(rows, key=lambda r: (r["created_time"], r["guid"]), reverse=True))


@lru_cache(maxsize=2)
def listening_messages(scale: int = 1) -> tuple[dict[str, Any], ...]:
    """Earned-media messages of the topic: 400 over 2026 (``scale`` times as many, as densely,
    for a longer topic), a few sharing a timestamp (range ends)."""
    out = []
    for i in range(400 * scale):
        moment = _YEAR_START + timedelta(minutes=(i // 2) * 43 * 60 // scale)  # pairs share a created_time
        network = _NETS[number("net", i) % 7]
        row: dict[str, Any] = {
            "guid": f"{NETWORKS[network][0]}_l{i:05d}", "created_time": iso(moment), "network": network.upper(),
            "text": _text("listen", i), "explicit_label": i % 9 == 0, "language": "en",
            "sentiment": ("positive", "neutral", "negative")[i % 3],
            "location": {"city": _CITIES[i % 4]},
            "from": {"name": f"Author {i}", "screen_name": f"author_{i}",
                     "profile_picture": f"https://media.example/avatars/author_{i}.jpg"},
            "metrics": {"likes": number("likes", i) % 300, "shares_count": i % 17},
        }
        if i % 3 == 0:
            row["visual_media"] = [{"media_url": f"https://media.example/{i}.jpg", "media_type": "PHOTO"}]
        out.append(row)
    return tuple(out)


def daily_metric(pid: int, day: date, metric: str) -> int:
    return number(pid, day.isoformat(), metric) % 1000
