"""Report logic of the affiliate simulator: dates, windows, filters, paging, export.

Written from the document (volume 3, part C), independently of the contract: the simulator's
own reading of "previous 365 days" and "span at most one year"; the click stream's are in simulator.py.
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from conformance.simulators.base import SimError

__all__ = ["Rules", "check_bool", "check_number", "filter_rows", "parse_stamp", "render_export",
           "select_conversions"]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")
# What each show_only_* flag keeps, when true (the simulator's reading of the names: gap show-flags-meaning).
SHOW_ONLY: dict[str, Any] = {"show_only_scrub": lambda r: r["is_scrub"], "show_only_vt": lambda r: r["is_view_through"],
                             "show_only_ct": lambda r: not r["is_view_through"],
                             "show_only_fail_traffic": lambda r: bool(r["error_code"])}
DEFAULT_COLUMNS = ("conversion_id", "conversion_unix_timestamp", "status", "payout", "revenue")


class Rules:
    """The simulator's numbers and switches (reports, click stream, uploads, smart links); faults and
    variants patch these attributes."""

    window_days = 365      # "only the previous 365 days"
    calendar_year = False  # a variant reads "one year" as a calendar year
    click_keep_days = 90   # "3 months"
    email_archive_days = 365  # older conversions "may" be archived; a variant keeps them
    email_latest = True    # the email endpoint gives the latest 100; a fault gives the oldest
    converted_kept = True  # clicks with conversions outlive click_keep_days; a fault purges them
    clip_old_from = False  # a variant serves an older from clipped to the window (not shown)
    first_page = 1         # not shown; a variant counts pages from 0
    default_page_size = 50
    max_page_size = 1000
    # How filters combine: any within one resource type (OR), all across types (AND).
    same_type: Any = any
    across_types: Any = all
    newest_first = True    # the report's row order (not documented; a variant reverses it)
    conversion_shift = 0   # a fault serves the conversion this many rows after the one asked for
    single_use = True      # an upload url serves once (a variant reads it again)
    put_requires_all = False  # a variant refuses a PUT that omits a field ("all fields must be sent")


def _checked(body: dict[str, Any], name: str, required: bool, valid: Any, kind: str) -> Any:
    """The member ``name`` (None when absent and not ``required``); anything else is refused 400."""
    value = body.get(name)
    if value is None and required:
        raise SimError(400, f"{name} is required")
    if value is not None and not valid(value):
        raise SimError(400, f"{name} must be {kind}")
    return value


def check_bool(body: dict[str, Any], name: str, required: bool = False) -> bool:
    return bool(_checked(body, name, required, lambda v: isinstance(v, bool), "a boolean"))


def check_number(body: dict[str, Any], name: str, required: bool = False) -> float | None:
    value = _checked(body, name, required, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
                     "a number")
    return None if value is None else float(value)


def parse_stamp(body: dict[str, Any], name: str, *, time_required: bool, end: bool) -> datetime:
    """A from/to value as a UTC datetime; a bare date ending a range means the whole day."""
    value = body.get(name)
    if value is None:
        raise SimError(400, f"{name} is required")
    if not isinstance(value, str):
        raise SimError(400, f"{name} must be a string")
    try:
        if _STAMP.match(value):
            return datetime.strptime(value, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
        if _DATE.match(value) and not time_required:
            day = datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=UTC)
            return day + timedelta(days=1, seconds=-1) if end else day
    except ValueError:
        pass
    raise SimError(400, f"{name} is not in a documented date format")


def _year_back(today: date) -> date:
    try:
        return today.replace(year=today.year - 1)
    except ValueError:  # 29 February
        return today.replace(year=today.year - 1, day=28)


def conversion_window(body: dict[str, Any], today: date, rules: Rules) -> tuple[datetime, datetime]:
    start = parse_stamp(body, "from", time_required=False, end=False)
    stop = parse_stamp(body, "to", time_required=False, end=True)
    if stop < start:
        raise SimError(400, "to is before from")
    span = (stop.date() - start.date()).days
    # "span at most one year", read as 365 days (a variant reads a calendar year).
    limit = (today - _year_back(today)).days if rules.calendar_year else 365
    if span > limit:
        raise SimError(400, "the span is above the 365-day conversion range")
    earliest = _year_back(today) if rules.calendar_year else today - timedelta(days=rules.window_days)
    if start.date() < earliest:
        if not rules.clip_old_from:
            raise SimError(400, "from is outside the previous 365 days")
        start = datetime.combine(earliest, datetime.min.time(), start.tzinfo)
    return start, stop


def _filters(body: dict[str, Any]) -> dict[str, set[str]]:
    query = body.get("query")
    if query is None:
        return {}
    if not isinstance(query, dict):
        raise SimError(400, "query must be an object")
    filters = query.get("filters", [])
    if not isinstance(filters, list):
        raise SimError(400, "query.filters must be an array")
    grouped: dict[str, set[str]] = {}
    for item in filters:
        if not isinstance(item, dict):
            raise SimError(400, "a filter must be an object")
        value, kind = item.get("filter_id_value"), item.get("resource_type")
        if not isinstance(value, str) or not isinstance(kind, str):
            raise SimError(400, "a filter needs filter_id_value and resource_type strings")
        grouped.setdefault(kind, set()).add(value)
    return grouped


def _value_of(row: dict[str, Any], resource_type: str) -> str | None:
    """The row member named as the resource type: what an id-backed type (offer, affiliate, ...)
    or a click's s1-s5 filters on is not shown (gap filter-values), and the simulator does not invent it."""
    value = row.get(resource_type)
    return None if value is None or isinstance(value, (dict, list)) else str(value)


def filter_rows(rows: list[dict[str, Any]], body: dict[str, Any], rules: Rules) -> list[dict[str, Any]]:
    """OR within one resource type, AND across types (as ``rules`` say)."""
    grouped = _filters(body)
    if not grouped:
        return list(rows)
    return [r for r in rows if rules.across_types(
        rules.same_type(_value_of(r, kind) == v for v in values) for kind, values in grouped.items())]


def select_conversions(rows: list[dict[str, Any]], body: dict[str, Any], today: date,
                       rules: Rules) -> list[dict[str, Any]]:
    start, stop = conversion_window(body, today, rules)
    check_number(body, "timezone_id", required=True)
    conversions = check_bool(body, "show_conversions", required=True)
    events = check_bool(body, "show_events", required=True)
    shown = [keeps for name, keeps in SHOW_ONLY.items() if check_bool(body, name)]
    lo, hi = start.timestamp(), stop.timestamp()
    chosen = [r for r in rows if lo <= r["conversion_unix_timestamp"] <= hi
              and (events if r["is_event"] else conversions) and all(keeps(r) for keeps in shown)]
    chosen = filter_rows(chosen, body, rules)
    order = -1 if rules.newest_first else 1
    return sorted(chosen, key=lambda r: (order * r["conversion_unix_timestamp"], r["conversion_id"]))


def page_of(rows: list[dict[str, Any]], body: dict[str, Any], rules: Rules) -> dict[str, Any]:
    paging = body.get("paging") or {}
    if not isinstance(paging, dict):
        raise SimError(400, "paging must be an object")
    page, size = paging.get("page", rules.first_page), paging.get("page_size", rules.default_page_size)
    for name, value, least in (("page", page, rules.first_page), ("page_size", size, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise SimError(400, f"paging.{name} must be an integer of at least {least}")
    size = min(size, rules.max_page_size)
    skip = (page - rules.first_page) * size
    chunk = rows[skip: skip + size]
    return {"conversions": chunk, "paging": {"page": page, "page_size": size, "total_count": len(rows)}}


def render_export(rows: list[dict[str, Any]], body: dict[str, Any]) -> tuple[str, bytes]:
    fmt = body.get("format")
    if fmt not in ("csv", "json"):
        raise SimError(400, "format must be csv or json")
    columns = body.get("columns", list(DEFAULT_COLUMNS))
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise SimError(400, "columns must be an array of names")
    picked = [{c: r.get(c, "") for c in columns} for r in rows]
    if fmt == "json":
        return "application/x-ndjson", "".join(json.dumps(p) + "\n" for p in picked).encode()
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(picked)
    return "text/csv", out.getvalue().encode()
