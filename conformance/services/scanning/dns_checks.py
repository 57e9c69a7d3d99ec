"""Scanning checks of DNS (domain paging, resolve and reverse) and the organization."""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import for_rule
from conformance.services.scanning.checks import (
    HOST,
    call_as,
    expect_ok,
    expect_shape,
    sample_hosts,
)
from conformance.transport.model import Exchange

__all__: list[str] = []

RESOLVE = "GET /dns/resolve"
REVERSE = "GET /dns/reverse"
ORG = "GET /org"
ADD = "PUT /org/member/{user}"
REMOVE = "DELETE /org/member/{user}"


# -- domain paging ----------------------------------------------------------------------
@for_rule("scanning.dns.paging-more")
def dns_paging_more(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.operation
    p = rule.params
    size = p["page_size"]
    seen: dict[str, int] = {}
    last: Exchange | None = None
    for page in range(1, p["max_pages"] + 1):
        last = ctx.call(rule.operation, path_values=p["path_values"], params={"page": page})
        body = expect_shape(ctx, last, rule.operation, f"DNS page {page}")
        data = body["data"]
        expect(len(data) <= size, ctx.rule.id, f"DNS page {page} holds {len(data)} entries",
               exchange=last, expected=f"at most {size} a page")
        for entry in data:
            ident = json.dumps([entry.get(k) for k in ("subdomain", "type", "value")])
            expect(ident not in seen, ctx.rule.id,
                   f"entry {ident} on page {page} was already on page {seen.get(ident)}",
                   exchange=last, expected="no entry twice in one walk")
            seen[ident] = page
        if body["more"]:
            expect(len(data) == size, ctx.rule.id,
                   f"page {page} says more but holds {len(data)} entries", exchange=last,
                   expected=f"a full page of {size} while more is true")
            continue
        if page == 1 and len(data) < size:
            ctx.skip(f"{p['path_values']} has one partial page here: paging (more=true) is not "
                     "exercised")
        if len(data) == size:
            # A full last page: if the next page has entries, more=false was wrong. (What a
            # page past the last answers is a gap, so only entries found there count.)
            probe = ctx.call(rule.operation, path_values=p["path_values"], params={"page": page + 1})
            extra = (probe.response.json() or {}).get("data") if probe.response.status == 200 else None
            expect(not extra, ctx.rule.id,
                   f"page {page} said more=false, yet page {page + 1} holds {len(extra or [])}",
                   exchange=probe, expected="more true while a further page exists")
            if page == 1:
                # One full page, more=false and nothing after it: a domain of exactly one page
                # and a server that never pages look the same. A one-page walk never passes.
                ctx.skip(f"{p['path_values']} has one full page and nothing after it here: "
                         "paging (more=true) is not exercised")
        return
    expect(False, ctx.rule.id, f"more was still true after {p['max_pages']} pages", exchange=last,
           expected=f"the walk ends within max_pages {p['max_pages']}")


# -- resolve and reverse ----------------------------------------------------------------
def _hostnames(ctx: CheckContext) -> list[str]:
    """Hostnames of the sample hosts, read from their host lookups (params.hostname_source)."""
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
    for name, ip in body.items():
        expect(_is_ip(ip), ctx.rule.id, f"resolve mapped {name!r} to {ip!r}", exchange=exchange,
               expected="hostname to an IP address")
    # The names are the target's own: its host records list them for its sample hosts. An
    # unknown name's answer is a gap, but a resolve that knows none of them answers nothing.
    expect(bool(body), ctx.rule.id,
           f"resolve answered {{}} for {names}, the hostnames of the target's own host records",
           exchange=exchange, expected="at least one of them mapped to an IP")
    return exchange, body


@for_rule("scanning.dns.resolve-shape")
def resolve_shape(ctx: CheckContext) -> None:
    names = _hostnames(ctx)
    exchange, body = _resolve(ctx, names)
    stray = sorted(set(body) - set(names))
    expect(not stray, ctx.rule.id, f"resolve answered names it was not asked: {stray}",
           exchange=exchange, expected=f"keys among {names}")


@for_rule("scanning.dns.reverse-shape")
def reverse_shape(ctx: CheckContext) -> None:
    ips = sample_hosts(ctx, ctx.rule.params["max_hosts"])
    exchange = ctx.call(REVERSE, params={"ips": ",".join(ips)})
    body = expect_shape(ctx, exchange, REVERSE, "reverse")
    extra = sorted(set(body or {}) - set(ips))
    expect(not extra, ctx.rule.id, f"reverse answered IPs it was not asked: {extra}", exchange=exchange,
           expected=f"keys among {ips}")
    if not body:
        # An empty answer for the target's own hosts is caught by the round-trip rule.
        ctx.skip(f"reverse knew none of {ips} here: no entry to check (unknown IPs are a gap)")


@for_rule("scanning.dns.resolve-reverse-round-trip")
def resolve_reverse_round_trip(ctx: CheckContext) -> None:
    _, resolved = _resolve(ctx, _hostnames(ctx))
    ips = sorted({str(ip) for ip in resolved.values()})  # not empty: _resolve requires one
    exchange = ctx.call(REVERSE, params={"ips": ",".join(ips)})
    body = expect_shape(ctx, exchange, REVERSE, "reverse of the resolved IPs")
    for ip in ips:
        expect(isinstance(body.get(ip), list), ctx.rule.id,
               f"reverse does not answer {ip}, which resolve gave", exchange=exchange,
               expected=f"{ip}: [hostnames]")


# -- organization -----------------------------------------------------------------------
@for_rule("scanning.org.shape")
def org_shape(ctx: CheckContext) -> None:
    exchange = call_as(ctx, ctx.rule.params["credential"], ORG)
    expect_shape(ctx, exchange, ORG, "the organization")


def _members(ctx: CheckContext, admin: str) -> tuple[Exchange, list[Any]]:
    exchange = call_as(ctx, admin, ORG)
    body = expect_shape(ctx, exchange, ORG, "the organization")
    return exchange, list(body["members"])


def _has(members: list[Any], user: str) -> bool:
    # user is a username or an e-mail: either member field may carry it.
    return any(isinstance(m, dict) and user in (m.get("username"), m.get("email")) for m in members)


@for_rule("scanning.org.member-add-remove")
def org_member_add_remove(ctx: CheckContext) -> None:
    p = ctx.rule.params
    admin, user = p["credential"], ctx.credential(p["member"])
    _, members = _members(ctx, admin)
    # Leave the organization as found: a present member is removed first, then added back.
    steps = [(REMOVE, False), (ADD, True)] if _has(members, user) else [(ADD, True), (REMOVE, False)]
    for operation, present in steps:
        params = {"notify": "true" if p["notify"] else "false"} if operation == ADD else None
        exchange = call_as(ctx, admin, operation, path_values={"user": user}, params=params)
        body = expect_shape(ctx, exchange, operation, f"{operation} {user}")
        expect(body.get("success") is True, ctx.rule.id, f"{operation} answered {body}",
               exchange=exchange, expected="{success: true}")
        exchange, members = _members(ctx, admin)
        expect(_has(members, user) == present, ctx.rule.id,
               f"after {operation} {user!r} is {'missing from' if present else 'still in'} members",
               exchange=exchange, expected=f"{user!r} {'in' if present else 'not in'} GET /org members")
