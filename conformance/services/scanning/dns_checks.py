"""Scanning checks of DNS: which IPs resolve gave reverse answers (a gap, observed). Domain paging,
the resolve and reverse shapes, the organization's shape and its members added and removed are
core checks (paging-walk, read-after-write, response-shape)."""

from __future__ import annotations

import ipaddress
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.errors import SkipKind
from conformance.services.scanning.checks import (
    HOST,
    expect_ok,
    expect_shape,
    sample_hosts,
)
from conformance.transport.model import Exchange

__all__: list[str] = []

RESOLVE = "GET /dns/resolve"
REVERSE = "GET /dns/reverse"
_COUNT = {"type": "integer", "minimum": 1}
_MAX_HOSTS = {"max_hosts": _COUNT}


# -- resolve and reverse ----------------------------------------------------------------
def _hostnames(ctx: CheckContext) -> list[str]:
    """Hostnames of the sample hosts, read from their host lookups."""
    names: list[str] = []
    for ip in sample_hosts(ctx, ctx.rule.params["max_hosts"]):
        exchange = ctx.call(HOST, path_values={"ip": ip})
        body = expect_ok(ctx, exchange, f"host lookup of {ip}")
        names += [n for n in (body or {}).get("hostnames") or [] if isinstance(n, str) and n not in names]
    if not names:
        ctx.skip("no sample host has hostnames on this target; set settings.sample_query")
    return names


def _is_ip(value: Any) -> bool:
    try:
        ipaddress.ip_address(value)
        return True
    except (TypeError, ValueError):
        return False


def _resolve(ctx: CheckContext, names: list[str]) -> tuple[Exchange, dict[str, Any]]:
    exchange = ctx.call(RESOLVE, params={"hostnames": ",".join(names)})
    body = expect_shape(ctx, exchange, RESOLVE, "resolve")
    # The answer for a name without DNS data is not shown (gap dns-lookup-params): a host
    # record's hostname need not resolve, so an empty answer, or a name answered null, is no failure.
    known = {name: ip for name, ip in body.items() if ip is not None}
    for name, ip in known.items():
        expect(_is_ip(ip), ctx.rule.id, f"resolve mapped {name!r} to {ip!r}", exchange=exchange,
               expected="hostname to an IP address")
    return exchange, known


@named("scanning/resolve-reverse-round-trip", params=_MAX_HOSTS, required=("max_hosts",))
def resolve_reverse_round_trip(ctx: CheckContext) -> None:
    """Not shown (gaps dns-round-trip, dns-lookup-params): which IPs resolve gave reverse answers,
    and whether with the original hostname, is recorded, never judged. Only the shapes are held."""
    names = _hostnames(ctx)
    _, resolved = _resolve(ctx, names)
    if not resolved:
        ctx.skip(f"resolve knew none of {names}: no IP to ask reverse about")
    ips = sorted({str(ip) for ip in resolved.values()})
    exchange = ctx.call(REVERSE, params={"ips": ",".join(ips)})
    body = expect_shape(ctx, exchange, REVERSE, "reverse of the resolved IPs")
    answered = [ip for ip in ips if isinstance(body.get(ip), list)]
    back = [name for name, ip in resolved.items() if name in (body.get(str(ip)) or [])]
    ctx.skip(f"gap scanning.gap.dns-round-trip observed, not judged: reverse answered {len(answered)} of the "
             f"{len(ips)} IPs resolve gave, naming the original hostname for {len(back)} of {len(resolved)}",
             SkipKind.GAP_OBSERVED)
