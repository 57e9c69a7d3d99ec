"""The scanning simulator's query language: free text plus filter:value terms, and facets.

SIM-CHOICE throughout: the document names the filters and facets but not the grammar.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from conformance.services.scanning.data import FACETS, FILTERS
from conformance.simulators.base import SimError, Simulator
from conformance.transport.model import JSON_TYPE, Request

__all__ = [
    "FACET_VALUES", "Query", "QueryError", "facet_counts", "facet_spec", "matches", "parse_query",
    "scan_targets",
]


# -- the query language ----------------------------------------------------------------
# SIM-CHOICE: bounds and a default the document does not give (hostile input stays cheap).
MAX_QUERY_CHARS = 1000
DEFAULT_FACET_COUNT = 5
MAX_FACET_COUNT = 1000


class QueryError(ValueError):
    """A malformed search query; answered with 400 and the message."""


@dataclass
class Query:
    text: list[str] = field(default_factory=list)
    filters: list[tuple[str, list[str]]] = field(default_factory=list)


def _tokens(query: str) -> list[tuple[str | None, str]]:
    """Split into (filter name or None, value); quotes group spaces in values and phrases."""
    out: list[tuple[str | None, str]] = []
    i, n = 0, len(query)
    while i < n:
        if query[i].isspace():
            i += 1
            continue
        buf: list[str] = []
        name: str | None = None
        while i < n and not query[i].isspace():
            if query[i] == '"':
                end = query.find('"', i + 1)
                if end < 0:
                    raise QueryError("unterminated quote in query")
                buf.append(query[i + 1:end])
                i = end + 1
            elif query[i] == ":" and name is None and buf:
                name, buf = "".join(buf), []
                i += 1
            else:
                buf.append(query[i])
                i += 1
        out.append((name, "".join(buf)))
    return out


def parse_query(query: str) -> Query:
    """Free text plus filter:value terms (comma = any of several values); QueryError if bad."""
    if len(query) > MAX_QUERY_CHARS:
        raise QueryError(f"query is longer than {MAX_QUERY_CHARS} characters")
    parsed = Query()
    for name, value in _tokens(query):
        if name is None:
            if value:
                parsed.text.append(value.lower())
            continue
        if name.lower() not in FILTERS:
            raise QueryError(f"unknown filter '{name}'")
        values = [v for v in value.split(",") if v]
        if not values:
            raise QueryError(f"filter '{name}' has no value")
        parsed.filters.append((name.lower(), values))
    if not parsed.text and not parsed.filters:
        raise QueryError("query is empty")
    return parsed


def _eq(field_name: str) -> Callable[[dict[str, Any], str], bool]:
    return lambda b, v: str(b.get(field_name) or "").lower() == v.lower()


def _loc(field_name: str) -> Callable[[dict[str, Any], str], bool]:
    return lambda b, v: str(b["location"].get(field_name) or "").lower() == v.lower()


def _port(banner: dict[str, Any], value: str) -> bool:
    if not re.fullmatch(r"[0-9]{1,5}", value):  # ASCII digits only: int() of '²' would raise
        raise QueryError(f"port must be a number, got '{value}'")
    return int(banner["port"]) == int(value)


def _net(banner: dict[str, Any], value: str) -> bool:
    try:
        return ipaddress.ip_address(banner["ip_str"]) in ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise QueryError(f"net must be an IP or CIDR netblock, got '{value}'") from None


def _ip(banner: dict[str, Any], value: str) -> bool:
    try:
        return ipaddress.ip_address(banner["ip_str"]) == ipaddress.ip_address(value)
    except ValueError:
        raise QueryError(f"ip must be an IP address, got '{value}'") from None


_MATCHERS: dict[str, Callable[[dict[str, Any], str], bool]] = {
    "asn": _eq("asn"), "isp": _eq("isp"), "org": _eq("org"), "os": _eq("os"),
    "product": _eq("product"), "version": _eq("version"), "transport": _eq("transport"),
    "country": _loc("country_code"), "city": _loc("city"), "port": _port, "net": _net, "ip": _ip,
    # SIM-CHOICE: hostname matches by suffix, domain and tag by membership.
    "hostname": lambda b, v: any(h.lower().endswith(v.lower()) for h in b["hostnames"]),
    "domain": lambda b, v: v.lower() in (d.lower() for d in b["domains"]),
    "tag": lambda b, v: v.lower() in b["tags"],
}
def _member(name: str) -> Callable[[dict[str, Any]], list[str]]:
    return lambda banner: [str(banner[name])] if banner.get(name) is not None else []


FACET_VALUES: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    **{f: _member(f) for f in ("asn", "isp", "org", "os", "port", "product", "version", "transport")},
    "country": lambda b: [b["location"]["country_code"]],
    "city": lambda b: [b["location"]["city"]],
    "domain": lambda b: list(b["domains"]),
    "tag": lambda b: list(b["tags"]),
}


def matches(banner: dict[str, Any], query: Query) -> bool:
    # SIM-CHOICE: free text must occur in the banner data, product or HTTP title.
    title = banner.get("http", {}).get("title", "")
    hay = " ".join([banner["data"], banner["product"], title]).lower()
    if not all(term in hay for term in query.text):
        return False
    return all(any(_MATCHERS[name](banner, v) for v in values) for name, values in query.filters)



def facet_spec(raw: str) -> list[tuple[str, int]]:
    """``property`` or ``property:count`` entries, comma-separated; QueryError if bad."""
    spec = []
    for entry in (e.strip() for e in raw.split(",")):
        if not entry:
            continue
        name, _, count = entry.partition(":")
        if name not in FACETS:
            raise QueryError(f"unknown facet '{name}'")
        if count and not (re.fullmatch(r"[0-9]{1,4}", count)
                          and 1 <= int(count) <= MAX_FACET_COUNT):
            raise QueryError(f"facet count must be 1 to {MAX_FACET_COUNT}, got '{count[:20]}'")
        spec.append((name, int(count) if count else DEFAULT_FACET_COUNT))
    return spec


def facet_counts(hits: list[dict[str, Any]], spec: list[tuple[str, int]]) -> dict[str, Any]:
    out = {}
    for name, count in spec:
        tally = Counter(v for b in hits for v in FACET_VALUES[name](b))
        ranked = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))[:count]
        out[name] = [{"count": n, "value": v} for v, n in ranked]
    return out



# -- scan targets ----------------------------------------------------------------------
def scan_targets(request: Request) -> list[str]:
    """The scan targets of a request: a comma-separated string, or an object of IP to services."""
    ctype = (request.header("content-type") or "").split(";")[0].strip().lower()
    # SIM-CHOICE: the body encoding is not documented; JSON and form bodies are accepted.
    if ctype == "application/x-www-form-urlencoded":
        try:
            ips: Any = request.form().get("ips", "")
        except UnicodeDecodeError:
            raise SimError(400, "body is not valid form data") from None
        if ips.lstrip().startswith("{"):
            try:
                ips = json.loads(ips)
            except ValueError:
                raise SimError(400, "ips is not valid JSON") from None
    elif ctype == JSON_TYPE:
        body = Simulator.json_body(request)
        # SIM-CHOICE (see the ips-object conflict): {ips: ...} or the mapping as the body.
        if "ips" in body:
            if set(body) != {"ips"}:
                extra = sorted(set(body) - {"ips"})
                raise SimError(400, f"unknown parameters: {extra}")
            ips = body["ips"]
        else:
            ips = body
    else:
        raise SimError(400, "send ips as JSON or form data")
    if isinstance(ips, str):
        parts = ips.split(",")
        if not ips.strip() or any(not p.strip() for p in parts):
            raise SimError(400, "ips must be comma-separated IPs or netblocks")
        return parts
    if not isinstance(ips, dict) or not ips:
        raise SimError(400, "ips must be a string or an object of IP to services")
    for target, services in ips.items():
        if not isinstance(services, list) or not all(
            isinstance(s, list) and len(s) == 2 and type(s[0]) is int and 1 <= s[0] <= 65535
            and isinstance(s[1], str) and s[1] for s in services
        ):
            raise SimError(400, f"{target[:60]!r} needs [port, protocol] pairs")
    return list(ips)
