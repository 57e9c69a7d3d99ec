"""The simulator's reads: profile and post analytics, inbox messages, listening messages/metrics.

Analytics and listening page by number (``paging {current_page, total_pages}``, 400 above the
last page); messages page by cursor (``paging {next_cursor}`` only when more data exists, 400
for a cursor the simulator did not issue). Analytics answers are cut at 10000 results.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import json
from datetime import timedelta
from functools import lru_cache
from typing import Any

from conformance.services.social import data
from conformance.services.social.filters import (
    WORDS,
    Filter,
    Reading,
    compile_filters,
    parse_filter,
    parse_moment,
    value_of,
    zone,
)
from conformance.simulators.base import SimError
from conformance.transport.model import Response

__all__ = ["Reports"]

CAP = 10_000
MAX_PROFILES = 100
PROFILE_PAGE, POST_PAGE, MESSAGE_PAGE, MESSAGE_MAX, LISTENING_PAGE = 1000, 50, 50, 100, 50
MAX_MESSAGE_IDS = 100
DIMENSIONS = ("created_time.by(day)", "created_time.by(month)", "visual_media.media_type", "distribution_type",
              "network", "sentiment", "language", "explicit_label", "location.city", "location.province",
              "location.country")
# Messages filters name some row members differently.
_MESSAGE_FIELDS = {"tag_id": "tag_ids", "language_code": "language", "message_id": "guid"}


def _strings(body: dict[str, Any], key: str, required: bool) -> list[str]:
    value = body.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise SimError(400, f"{key} must be a non-empty array of strings")
    return value


def _int(body: dict[str, Any], key: str, default: int, high: int | None = None) -> int:
    value = body.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1 or (high is not None and value > high):
        raise SimError(400, f"{key} must be an integer from 1" + (f" to {high}" if high else ""))
    return value


def _pick(node: Any, parts: list[str]) -> Any:
    """The member at ``parts`` below ``node`` (through arrays, element by element), or _NONE."""
    if not parts:
        return node
    if isinstance(node, list):
        picked = [_pick(item, parts) for item in node]
        return [item for item in picked if item is not _NONE]
    if isinstance(node, dict) and parts[0] in node:
        return _pick(node[parts[0]], parts[1:])
    return _NONE


def _shape(node: Any, parts: list[str]) -> Any:
    """``node`` cut down to the member at ``parts``, keeping the objects and arrays around it."""
    if not parts:
        return node
    if isinstance(node, list):
        kept = [_shape(item, parts) for item in node]
        return [item for item in kept if item is not _NONE]
    if isinstance(node, dict) and parts[0] in node:
        inner = _shape(node[parts[0]], parts[1:])
        return _NONE if inner is _NONE else {parts[0]: inner}
    return _NONE


def _merge(into: Any, value: Any) -> Any:
    """Two cut-down copies of one row as one (objects member by member, arrays item by item)."""
    if isinstance(into, dict) and isinstance(value, dict):
        return {**into, **{k: _merge(into[k], v) if k in into else v for k, v in value.items()}}
    if isinstance(into, list) and isinstance(value, list) and len(into) == len(value):
        return [_merge(a, b) for a, b in zip(into, value)]
    return value


_NONE = object()


def _project(row: dict[str, Any], fields: list[str], metrics: list[str]) -> dict[str, Any]:
    """Requested fields as top-level keys (internal.* nested), plus the metrics object.

    "Post rows: requested fields as top-level keys (nested for internal.*)": a dotted field
    other than internal.* (location.city, from.name) is one key named as requested. SIM-CHOICE:
    message and topic rows, whose shape the document leaves to "the requested fields", alike."""
    out: dict[str, Any] = {}
    for name in fields:
        wanted = ["internal.tags.id", "internal.sent_by.id"] if name == "internal" else [name]
        for field in wanted:
            parts = field.split(".")
            if field in row and not field.startswith("internal"):
                out[field] = row[field]
                continue
            if parts[0] == "internal":
                shape = _shape(row, parts)
                if shape is not _NONE:
                    out = _merge(out, shape)
                continue
            value = _pick(row, parts)
            if value is not _NONE:
                out[field] = value
    if metrics:
        out["metrics"] = {m: row["metrics"][m] for m in metrics if m in row.get("metrics", {})}
    return out


def _page(rows: list[Any], page: int, size: int) -> tuple[list[Any], dict[str, int]]:
    total_pages = -(-len(rows) // size)
    if page > max(total_pages, 1):
        raise SimError(400, f"page {page} is above total_pages {total_pages}")
    return rows[(page - 1) * size: page * size], {"current_page": page, "total_pages": total_pages}


def _sorted(rows: list[dict[str, Any]], sort: list[str]) -> list[dict[str, Any]]:
    for entry in reversed(sort):
        name, _, direction = entry.partition(":")
        if direction not in ("asc", "desc"):
            raise SimError(400, f"sort entries are field:asc or field:desc, not {entry[:40]!r}")
        rows = sorted(rows, key=lambda r: (value_of(r, name) is None, value_of(r, name) or 0),
                      reverse=direction == "desc")
    return rows


def _ids(flt: Filter | None, what: str) -> list[str]:
    if flt is None or flt.op != "eq":
        raise SimError(400, f"{what}.eq(...) is required")
    return list(flt.values)


class Reports:
    """Mixed into the simulator (which supplies ``ok``); handlers take the parsed body. The
    numbers are attributes so that a fault can change one on one simulator."""

    cap = CAP
    max_profiles = MAX_PROFILES
    profile_page, post_page, message_page, message_max = PROFILE_PAGE, POST_PAGE, MESSAGE_PAGE, MESSAGE_MAX
    listening_page = LISTENING_PAGE
    max_message_ids = MAX_MESSAGE_IDS
    post_limit_caps = True  # SIM-CHOICE: "50 rows per page" read as a cap (conflict posts-limit)
    filter_reading: Reading = WORDS  # SIM-CHOICE readings of match and exists (gaps match-terms, filter-values)
    empty_media = False  # SIM-CHOICE: a message without media has no visual_media member (not an empty array)
    topic_scale = 1  # how many times the seeded topic's 400 messages (a variant serves a longer topic)
    cap_states_uncut = False  # SIM-CHOICE: total_pages counts the cut answer (gap: not shown)

    def ok(self, rows: list[Any], paging: dict[str, Any] | None = None) -> Response:
        raise NotImplementedError

    def _own_profiles(self, ids: list[str]) -> list[int]:
        if len(ids) > self.max_profiles:
            raise SimError(400, f"at most {self.max_profiles} profiles per request")
        own = {str(p["customer_profile_id"]) for p in data.PROFILES}
        for pid in ids:
            if pid not in own:
                raise SimError(403, f"profile {pid[:20]} data not allowed")
        return [int(pid) for pid in ids]

    # -- analytics ----------------------------------------------------------------------
    def profiles(self, body: dict[str, Any]) -> Response:
        filters = {f.field: f for f in map(parse_filter, _strings(body, "filters", True))}
        metrics = _strings(body, "metrics", True)
        pids = self._own_profiles(_ids(filters.get("customer_profile_id"), "customer_profile_id"))
        period = filters.get("reporting_period")
        if period is None or period.op != "in":
            raise SimError(400, "reporting_period.in(start...end) is required")
        first = parse_moment(period.values[0]).date()
        last = parse_moment(period.values[1]).date() - timedelta(days=1 if period.values[2] == "..." else 0)
        try:
            year_later = first.replace(year=first.year + 1)
        except ValueError:  # 29 February
            year_later = first.replace(year=first.year + 1, day=28)
        if last >= year_later:
            raise SimError(400, "reporting_period is at most one year")
        days = max((last - first).days + 1, 0)
        size = min(_int(body, "limit", self.profile_page), self.profile_page)
        total = min(days * len(pids), self.cap)  # extra results are cut
        page = _int(body, "page", 1)
        total_pages = -(-(days * len(pids) if self.cap_states_uncut else total) // size)
        if page > max(total_pages, 1):
            raise SimError(400, f"page {page} is above total_pages {total_pages}")
        rows = []
        for index in range((page - 1) * size, min(page * size, total)):
            day, pid = first + timedelta(days=index // len(pids)), pids[index % len(pids)]
            rows.append({"dimensions": {"reporting_period.by(day)": day.isoformat(), "customer_profile_id": pid},
                         "metrics": {m: data.daily_metric(pid, day, m) for m in metrics}})
        return self.ok(rows, {"current_page": page, "total_pages": total_pages})

    def posts(self, body: dict[str, Any]) -> Response:
        parsed = [parse_filter(f) for f in _strings(body, "filters", True)]
        metrics = _strings(body, "metrics", True)
        by_field = {f.field: f for f in parsed}
        pids = set(self._own_profiles(_ids(by_field.get("customer_profile_id"), "customer_profile_id")))
        if "created_time" not in by_field:
            raise SimError(400, "created_time.in(start..end) is required")
        if "timezone" in body and not isinstance(body["timezone"], str):
            raise SimError(400, "timezone is a string (a tz database name)")
        zone(body.get("timezone"))
        sort = _strings(body, "sort", False)
        fields = _strings(body, "fields", False) or ["guid"]
        rest = tuple(f for f in parsed if f.field != "customer_profile_id")
        after = next((f for f in parsed if f.field == "guid" and f.op == "gt"), None)
        by_guid = not sort or sort == ["guid:asc"]
        if after is not None and by_guid:
            rest = tuple(f for f in rest if f is not after)
        tz_name = body.get("timezone") if isinstance(body.get("timezone"), str) else None
        matched, guids = _matching(frozenset(pids), rest, tz_name)
        if after is not None and by_guid:
            # Held sorted by guid: a guid.gt cursor is a bisection, not a scan.
            matched = matched[bisect.bisect_right(guids, after.values[0]):]
        rows = list(matched[:self.cap]) if by_guid else _sorted(list(matched), sort)[:self.cap]  # extra results are cut
        size = _int(body, "limit", self.post_page)
        size = min(size, self.post_page) if self.post_limit_caps else size
        chunk, paging = _page(rows, _int(body, "page", 1), size)
        return self.ok([_project(r, fields, metrics) for r in chunk], paging)

    # -- inbox messages -----------------------------------------------------------------
    def messages(self, body: dict[str, Any]) -> Response:
        parsed = [parse_filter(f) for f in _strings(body, "filters", True)]
        by_field = {f.field: f for f in parsed}
        if len(by_field) != len(parsed):
            raise SimError(400, "one filter per field")
        if "page" in body:
            raise SimError(400, "index paging is not supported; use page_cursor")
        size = _int(body, "limit", self.message_page, self.message_max)
        tz = zone(body.get("timezone") if isinstance(body.get("timezone"), str) else None)
        if "message_id" in by_field:
            if len(parsed) > 1:
                raise SimError(400, "message_id cannot be combined with any other filter")
            if len(by_field["message_id"].values) > self.max_message_ids:
                raise SimError(400, f"at most {self.max_message_ids} message ids")
            wanted = set(by_field["message_id"].values)
            rows = [r for r in data.messages() if r["guid"] in wanted]
        else:
            rows = self._inbox(by_field, tz)
        sort = _strings(body, "sort", False) or ["created_time:desc"]
        if any(not s.startswith("created_time:") for s in sort):
            raise SimError(400, "messages sort by created_time")
        if sort != ["created_time:desc"]:
            rows = list(reversed(rows))
        key = _query_key(body)
        offset = 0
        if "page_cursor" in body:
            offset = _read_cursor(body["page_cursor"], key)
        fields = _strings(body, "fields", False) or ["guid"]
        chunk = rows[offset: offset + size]
        paging = {"next_cursor": _cursor(offset + size, key)} if offset + size < len(rows) else None
        return self.ok([_project(r, fields, []) for r in chunk], paging)

    def _inbox(self, by_field: dict[str, Filter], tz: Any) -> list[dict[str, Any]]:
        groups = _ids(by_field.get("group_id"), "group_id")
        if len(groups) != 1:
            raise SimError(400, "exactly one group")
        group = int(groups[0]) if groups[0].isdigit() else -1
        members = {p["customer_profile_id"] for p in data.PROFILES if group in p["groups"]}
        if not members:
            raise SimError(403, "group data not allowed")
        if "customer_profile_id" in by_field:
            pids = {int(p) if p.isdigit() else -1 for p in _ids(by_field["customer_profile_id"], "customer_profile_id")}
            if not pids <= members:
                raise SimError(400, "profiles must belong to the group")
            members = pids
        created = by_field.get("created_time")
        if created is None or created.op != "in":
            raise SimError(400, "created_time.in(...) is required")
        action = by_field.get("action_last_update_time")
        if action is not None:
            if action.op != "in":
                raise SimError(400, "action_last_update_time takes in")
            if parse_moment(action.values[0], tz) < parse_moment(created.values[0], tz):
                raise SimError(400, "action_last_update_time is before the created_time range")
        allowed = {"group_id", "customer_profile_id", "created_time", "action_last_update_time", "post_type",
                   "tag_id", "language_code"}
        if set(by_field) - allowed:
            raise SimError(400, f"unknown filter {sorted(set(by_field) - allowed)[0][:40]}")
        rest = [Filter(_MESSAGE_FIELDS.get(f.field, f.field), f.op, f.values) for f in by_field.values()
                if f.field not in ("group_id", "customer_profile_id")]
        keep = compile_filters(rest, tz)
        return [r for r in data.messages() if r["customer_profile_id"] in members and keep(r)]

    # -- listening ----------------------------------------------------------------------
    def _topic_rows(self, body: dict[str, Any], topic_id: str) -> list[dict[str, Any]]:
        if topic_id != data.TOPIC:
            raise SimError(403, "topic data not allowed")
        tz = zone(body.get("timezone") if isinstance(body.get("timezone"), str) else None)
        keep = compile_filters([parse_filter(f) for f in _strings(body, "filters", False)], tz, self.filter_reading)
        rows = data.listening_messages(self.topic_scale)
        if self.empty_media:
            rows = tuple({**r, "visual_media": r.get("visual_media", [])} for r in rows)
        return _sorted([r for r in rows if keep(r)], _strings(body, "sort", False))

    def topic_messages(self, body: dict[str, Any], topic_id: str) -> Response:
        fields = _strings(body, "fields", True)
        metrics = _strings(body, "metrics", False)
        rows = self._topic_rows(body, topic_id)
        chunk, paging = _page(rows, _int(body, "page", 1), _int(body, "limit", self.listening_page))
        return self.ok([_project(r, fields, metrics) for r in chunk], paging)

    def topic_metrics(self, body: dict[str, Any], topic_id: str) -> Response:
        metrics = _strings(body, "metrics", False) or ["likes"]
        _strings(body, "fields", False)  # a string array (the listening body), unused by aggregates
        dimensions = _strings(body, "dimensions", False)
        for name in dimensions:
            if name not in DIMENSIONS:
                raise SimError(400, f"dimension {name[:40]!r} is not allowed")
        groups: dict[str, dict[str, Any]] = {}
        for row in self._topic_rows(body, topic_id):
            dims = {d: _dimension(row, d) for d in dimensions}
            entry = groups.setdefault(json.dumps(dims, sort_keys=True), {"dimensions": dims, "metrics": {}})
            for m in metrics:
                entry["metrics"][m] = entry["metrics"].get(m, 0) + (row["metrics"].get(m) or 0)
        rows = list(groups.values())
        if dimensions:
            return self.ok(rows, {})
        chunk, paging = _page(rows, _int(body, "page", 1), _int(body, "limit", self.listening_page))
        return self.ok(chunk, paging)


def _dimension(row: dict[str, Any], name: str) -> Any:
    if name == "created_time.by(day)":
        return row["created_time"][:10]
    if name == "created_time.by(month)":
        return row["created_time"][:7]
    if name == "visual_media.media_type":
        return (row.get("visual_media") or [{}])[0].get("media_type")
    return value_of(row, name)


@lru_cache(maxsize=64)
def _matching(pids: frozenset[int], filters: tuple[Filter, ...],
              tz_name: str | None) -> tuple[tuple[dict[str, Any], ...], list[str]]:
    """The posts of ``pids`` passing ``filters``, sorted by guid, and their guids. Cached: the
    data never changes, and a guid-cursor walk repeats one query two hundred times."""
    keep = compile_filters(list(filters), zone(tz_name))
    rows = tuple(r for r in data.posts() if r["customer_profile_id"] in pids and keep(r))
    return rows, [r["guid"] for r in rows]


def _query_key(body: dict[str, Any]) -> str:
    """What a cursor is bound to: the request without its cursor (another query's cursor is invalid)."""
    rest = {k: v for k, v in body.items() if k != "page_cursor"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _cursor(offset: int, key: str) -> str:
    return base64.urlsafe_b64encode(f"{offset}:{key}".encode()).decode()


def _read_cursor(cursor: Any, key: str) -> int:
    try:
        offset, _, bound = base64.urlsafe_b64decode(str(cursor).encode()).decode().partition(":")
        if bound != key or not offset.isdigit():
            raise ValueError
        return int(offset)
    except (ValueError, UnicodeDecodeError):
        raise SimError(400, "invalid page_cursor") from None
