"""The simulator's reading of the filter language: ``field.op(values)``, all entries must hold.

eq (comma-separated, any may match), neq, gt, gte, lt, lte, in (``a..b`` inclusive of the end,
``a...b`` exclusive; dates and timestamps), exists (true/false), match (all terms must match;
``OR`` between terms for any). A bare date means midnight, in the request's timezone when one is
given (the timezone affects date filters only). The check module has its own evaluator: this one
is the simulator's, and the two are compared by property tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from conformance.simulators.base import SimError

__all__ = ["Filter", "Predicate", "Reading", "WORDS", "compile_filters", "parse_filter", "parse_moment", "zone"]

OPS = ("eq", "neq", "gt", "gte", "lt", "lte", "in", "exists", "match")
_FILTER = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*)\.(" + "|".join(OPS) + r")\((.*)\)$", re.S)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CANONICAL = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")

Predicate = Callable[[dict[str, Any]], bool]


@dataclass(frozen=True)
class Filter:
    field: str
    op: str
    values: tuple[str, ...]  # for in: (start, end, "..") or (start, end, "...")


def zone(name: str | None) -> tzinfo:
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise SimError(400, f"unknown timezone {name!r}") from None


def parse_filter(text: Any) -> Filter:
    if not isinstance(text, str):
        raise SimError(400, "each filter is a string")
    match = _FILTER.match(text.strip())
    if not match:
        raise SimError(400, f"malformed filter {text[:80]!r}")
    field, op, inner = match.groups()
    if op == "in":
        exclusive = "..." in inner
        start, sep, end = inner.partition("..." if exclusive else "..")
        if not sep or not start.strip() or not end.strip():
            raise SimError(400, f"in needs start..end or start...end: {text[:80]!r}")
        return Filter(field, op, (start.strip(), end.strip(), "..." if exclusive else ".."))
    values = tuple(v.strip() for v in inner.split(",")) if op != "match" else (inner.strip(),)
    if not values or any(v == "" for v in values):
        raise SimError(400, f"empty value in {text[:80]!r}")
    if op == "exists" and values[0] not in ("true", "false"):
        raise SimError(400, "exists takes true or false")
    return Filter(field, op, values)


def parse_moment(text: str, tz: tzinfo = UTC) -> datetime:
    """A date (midnight in ``tz``) or an ISO 8601 timestamp (UTC when it names no offset)."""
    try:
        if _DATE.match(text):
            return datetime.fromisoformat(text).replace(tzinfo=tz)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SimError(400, f"not a date or timestamp: {text[:40]!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def value_of(row: dict[str, Any], field: str) -> Any:
    """A row member by dotted name: the member itself, a metric (likes), or a nested member (location.city)."""
    if field in row:
        return row[field]
    metrics = row.get("metrics") or {}
    if field in metrics:
        return metrics[field]
    node: Any = row
    for part in field.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _scalar(value: Any, text: str, tz: tzinfo) -> tuple[Any, Any]:
    """Both sides made comparable: numbers as numbers, timestamps as moments, else strings."""
    if isinstance(value, bool):
        return str(value).lower(), text.lower()
    if isinstance(value, (int, float)):
        try:
            return value, float(text)
        except ValueError:
            raise SimError(400, f"{text[:40]!r} is not a number") from None
    if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}(T|$)", value):
        return parse_moment(value), parse_moment(text, tz)
    return str(value).lower(), text.lower()


def _words(value: Any) -> set[str]:
    return set(re.findall(r"[\w#@']+", str(value or "").lower()))


@dataclass(frozen=True)
class Reading:
    """Readings where the document is silent (SIM-CHOICE defaults; allowed variants choose others):
    match by whole words or by substrings, the spelling of OR between terms, and whether an empty
    array (or text) counts as existing."""

    match_substrings: bool = False
    match_or: str = r"\s+OR\s+"
    empty_exists: bool = False


WORDS = Reading()


def _compile(flt: Filter, tz: tzinfo, reading: Reading = WORDS) -> Predicate:
    field, op, values = flt.field, flt.op, flt.values
    if op == "exists":
        want = values[0] == "true"
        absent: tuple[Any, ...] = (None,) if reading.empty_exists else (None, [], "")
        return lambda row: (value_of(row, field) not in absent) == want
    if op == "match":
        groups = [[t.lower() for t in part.split()] for part in re.split(reading.match_or, values[0])]
        if reading.match_substrings:
            return lambda row: any(all(t in str(value_of(row, field) or "").lower() for t in g) for g in groups if g)
        return lambda row: any(all(t in _words(value_of(row, field)) for t in g) for g in groups if g)
    if op == "in":
        start_text, end_text, dots = values
        start, end = parse_moment(start_text, tz), parse_moment(end_text, tz)
        exclusive = dots == "..."

        low, high = _stamp(start), _stamp(end)

        def within(row: dict[str, Any]) -> bool:
            value = value_of(row, field)
            if not isinstance(value, str):
                return False
            # Stored stamps are canonical UTC (YYYY-mm-DDTHH:MM:SSZ): they order as strings,
            # which keeps a 10000-row scan cheap.
            if len(value) != 20 or value[19] != "Z" or not _CANONICAL.match(value):
                value = _stamp(parse_moment(value))
            return low <= value and (value < high if exclusive else value <= high)

        return within

    def test(row: dict[str, Any]) -> bool:
        value = value_of(row, field)
        if value is None:
            return op == "neq"
        items = value if isinstance(value, list) else [value]
        pairs = [_scalar(item, text, tz) for item in items for text in values]
        if op == "eq":
            return any(a == b for a, b in pairs)
        if op == "neq":
            return all(a != b for a, b in pairs)
        compare = {"gt": lambda a, b: a > b, "gte": lambda a, b: a >= b,
                   "lt": lambda a, b: a < b, "lte": lambda a, b: a <= b}[op]
        try:
            return any(compare(a, b) for a, b in pairs)
        except TypeError:
            raise SimError(400, f"{field}.{op} compares unlike values") from None

    return test


def compile_filters(filters: list[Filter], tz: tzinfo = UTC, reading: Reading = WORDS) -> Predicate:
    tests = [_compile(f, tz, reading) for f in filters]
    if len(tests) == 1:
        return tests[0]

    def every(row: dict[str, Any]) -> bool:
        for test in tests:
            if not test(row):
                return False
        return True

    return every
