"""Scanning checks of DNS (domain paging, resolve and reverse) and the organization."""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, AuthAs, auth_as
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.paging import walk
from conformance.checks.registry import for_rule
from conformance.services.scanning.checks import (
    ADD,
    AS,
    HOST,
    ORG,
    PATH_VALUES,
    REMOVE,
    STRING,
    expect_ok,
    expect_shape,
    has_member,
    sample_hosts,
)
from conformance.transport.model import Exchange

__all__: list[str] = []

RESOLVE = "GET /dns/resolve"
REVERSE = "GET /dns/reverse"
_COUNT = {"type": "integer", "minimum": 1}
_MAX_HOSTS = {"max_hosts": _COUNT}


# -- domain paging ----------------------------------------------------------------------
def _entry(entry: Any) -> str:
    # DNS entries carry no documented id; these members together name one entry.
    if not isinstance(entry, dict):
        return json.dumps(entry, sort_keys=True)
    return json.dumps([entry.get(k) for k in ("subdomain", "type", "value")])


@for_rule("scanning.dns.paging-more", params={"page_size": _COUNT, "path_values": PATH_VALUES, "max_pages": _COUNT},
          required=("page_size", "path_values", "max_pages"))
def dns_paging_more(ctx: CheckContext) -> None:
    rule = ctx.rule
    operation = rule.operation
    assert operation
    p = rule.params
    size, domain = p["page_size"], p["path_values"]

    def fetch(paging: dict[str, Any]) -> Exchange:
        exchange = ctx.call(operation, path_values=domain, params=paging)
        expect_shape(ctx, exchange, operation, f"DNS page {paging['page']}")
        return exchange

    # The generic walk follows page=1,2,... while more is true (at most max_pages).
    result = walk(ctx, fetch, {"style": "page", "page_param": "page", "first_page": 1, "more_field": "more",
                               "items_field": "data", "max_pages": p["max_pages"]})
    seen: dict[str, int] = {}
    for number, page in enumerate(result.pages, start=1):
        data, last = page.items, page.exchange
        expect(len(data) <= size, rule.id, f"DNS page {number} holds {len(data)} entries",
               exchange=last, expected=f"at most {size} a page")
        for entry in data:
            ident = _entry(entry)
            expect(ident not in seen, rule.id, f"entry {ident} on page {number} was already on page {seen.get(ident)}",
                   exchange=last, expected="no entry twice in one walk")
            seen[ident] = number
        if page.body["more"]:
            expect(len(data) == size, rule.id, f"page {number} says more but holds {len(data)} entries",
                   exchange=last, expected=f"a full page of {size} while more is true")
    last_page = result.pages[-1]
    expect(result.ended, rule.id, f"more was still true after {p['max_pages']} pages", exchange=last_page.exchange,
           expected=f"the walk ends within max_pages {p['max_pages']}")
    number = len(result.pages)
    if number == 1 and len(last_page.items) < size:
        ctx.skip(f"{domain} has one partial page here: paging (more=true) is not exercised")
    if len(last_page.items) == size:
        # A full last page: if the next page has entries, more=false was wrong. (What a page
        # past the last answers is a gap, so only entries found there count.)
        probe = ctx.call(operation, path_values=domain, params={"page": number + 1})
        extra = (probe.response.json() or {}).get("data") if probe.response.status == 200 else None
        expect(not extra, rule.id, f"page {number} said more=false, yet page {number + 1} holds {len(extra or [])}",
               exchange=probe, expected="more true while a further page exists")
        if number == 1:
            # One full page, more=false and nothing after it: a domain of exactly one page and
            # a server that never pages look the same. A one-page walk never passes.
            ctx.skip(f"{domain} has one full page and nothing after it here: paging (more=true) is not exercised")


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
    for name, ip in body.items():
        expect(_is_ip(ip), ctx.rule.id, f"resolve mapped {name!r} to {ip!r}", exchange=exchange,
               expected="hostname to an IP address")
    # The names are the target's own: its host records list them for its sample hosts. An
    # unknown name's answer is a gap, but a resolve that knows none of them answers nothing.
    expect(bool(body), ctx.rule.id,
           f"resolve answered {{}} for {names}, the hostnames of the target's own host records",
           exchange=exchange, expected="at least one of them mapped to an IP")
    return exchange, body


@for_rule("scanning.dns.resolve-shape", params=_MAX_HOSTS, required=("max_hosts",))
def resolve_shape(ctx: CheckContext) -> None:
    names = _hostnames(ctx)
    exchange, body = _resolve(ctx, names)
    stray = sorted(set(body) - set(names))
    expect(not stray, ctx.rule.id, f"resolve answered names it was not asked: {stray}",
           exchange=exchange, expected=f"keys among {names}")


@for_rule("scanning.dns.reverse-shape", params=_MAX_HOSTS, required=("max_hosts",))
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


@for_rule("scanning.dns.resolve-reverse-round-trip", params=_MAX_HOSTS, required=("max_hosts",))
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
@for_rule("scanning.org.shape", params=AS, required=("as",))
def org_shape(ctx: CheckContext) -> None:
    exchange = ctx.call(ORG, auth=auth_as(ctx.rule.params["as"]))
    expect_shape(ctx, exchange, ORG, "the organization")


def _members(ctx: CheckContext, admin: AuthAs) -> tuple[Exchange, list[Any]]:
    exchange = ctx.call(ORG, auth=admin)
    body = expect_shape(ctx, exchange, ORG, "the organization")
    return exchange, list(body["members"])


@for_rule("scanning.org.member-add-remove",
          params={"as": AUTH_AS_SCHEMA, "member": STRING, "notify": {"type": "boolean"}},
          required=("as", "member", "notify"))
def org_member_add_remove(ctx: CheckContext) -> None:
    p = ctx.rule.params
    admin, user = auth_as(p["as"]), ctx.credential(p["member"])
    _, members = _members(ctx, admin)
    # Leave the organization as found: a present member is removed first, then added back.
    steps = [(REMOVE, False), (ADD, True)] if has_member(members, user) else [(ADD, True), (REMOVE, False)]
    for operation, present in steps:
        params = {"notify": "true" if p["notify"] else "false"} if operation == ADD else None
        exchange = ctx.call(operation, auth=admin, path_values={"user": user}, params=params)
        body = expect_shape(ctx, exchange, operation, f"{operation} {user}")
        expect(body.get("success") is True, ctx.rule.id, f"{operation} answered {body}",
               exchange=exchange, expected="{success: true}")
        exchange, members = _members(ctx, admin)
        expect(has_member(members, user) == present, ctx.rule.id,
               f"after {operation} {user!r} is {'missing from' if present else 'still in'} members",
               exchange=exchange, expected=f"{user!r} {'in' if present else 'not in'} GET /org members")
