"""Scanning checks of credit accounting and scans.

Credits are an invariant read from api-info: after each call the documented balance moves by
exactly the documented amount and the other balance does not move. The document does not say
api-info is free, so a steady cost per api-info read (three reads, equal gaps) is measured and
taken off; a balance that moves irregularly on its own (another client on a shared account)
makes the attribution impossible: the check skips.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.scanning.checks import (
    CREDIT_FIELDS,
    PATH_VALUES,
    SEARCH,
    STRING,
    balance,
    balance_drift,
    expect_ok,
    expect_refused,
    expect_shape,
    filter_query,
    observe_spent,
    once,
    spent_since,
)
from conformance.transport.model import Exchange

__all__: list[str] = []

SCAN = "POST /scan"

_AMOUNT = {"type": "number", "minimum": 0}
_FIELD = {"balance_field": {"enum": list(CREDIT_FIELDS)}}
_IPS = {"ips": {"type": "array", "items": STRING, "minItems": 1}}
_BODIES = {"bodies": {"type": "array", "items": {"type": "object"}, "minItems": 1}}


def _charged(ctx: CheckContext, send: Callable[[], Exchange]) -> tuple[Exchange, dict[str, Any]]:
    """Send one call; the amount each credit balance fell by (api-info before and after, less
    what an api-info read itself costs on this target)."""
    before, drift = balance_drift(ctx)
    exchange = send()
    expect_ok(ctx, exchange, "the charged call")
    return exchange, spent_since(ctx, before, drift)


def _expect_cost(ctx: CheckContext, exchange: Exchange, spent: dict[str, Any], field: str,
                 amount: float, what: str) -> None:
    for name in CREDIT_FIELDS:
        want = amount if name == field else 0
        expect(spent[name] == want, ctx.rule.id,
               f"{what}: api-info {name} fell by {spent[name]}", exchange=exchange,
               expected=f"{name} to fall by exactly {want}")


def _search(ctx: CheckContext, query: str, page: int) -> Callable[[], Exchange]:
    return lambda: ctx.call(SEARCH, params={"query": query, "page": page})


@named("scanning/search-filter-cost",
       params={"query": STRING, "filter_cost": _AMOUNT, **_FIELD}, required=("query", "filter_cost", "balance_field"))
def search_filter_cost(ctx: CheckContext) -> None:
    p = ctx.rule.params
    query = filter_query(ctx)
    exchange, spent = _charged(ctx, _search(ctx, query, 1))
    _expect_cost(ctx, exchange, spent, p["balance_field"], p["filter_cost"],
                 f"page 1 of the filtered search {query!r}")


@named("scanning/search-page-cost",
       params={"query": STRING, "page": {"type": "integer", "minimum": 2}, "extra_page_cost": _AMOUNT,
               "filter_query": STRING, "filter_cost": _AMOUNT, **_FIELD},
       required=("query", "page", "extra_page_cost", "filter_query", "filter_cost", "balance_field"))
def search_page_cost(ctx: CheckContext) -> None:
    p = ctx.rule.params
    field, extra = p["balance_field"], p["extra_page_cost"]
    # What a filter-free first page costs is a gap: the rule is the difference a later page adds.
    _, first = _charged(ctx, _search(ctx, p["query"], 1))
    exchange, later = _charged(ctx, _search(ctx, p["query"], p["page"]))
    _expect_cost(ctx, exchange, {f: later[f] - first[f] for f in CREDIT_FIELDS}, field, extra,
                 f"page {p['page']} minus page 1 of {p['query']!r}")
    # The conflict: does a filtered later page pay the filter credit and the page credit?
    # The filter query and cost are search-filter-cost's, written once in rules.yaml (an anchor).
    query = ctx.optional("FILTER_QUERY") or p["filter_query"]
    exchange, spent = _charged(ctx, _search(ctx, query, p["page"]))
    readings = [p["filter_cost"] + extra, max(p["filter_cost"], extra)]
    expect(spent[field] in readings, ctx.rule.id,
           f"page {p['page']} of the filtered {query!r} cost {spent[field]}",
           exchange=exchange, expected=f"one of the documented readings: {readings}")
    ctx.observed(readings.index(spent[field]))


@named("scanning/count-free",
       params={"query": STRING, "facets": STRING, "cost": _AMOUNT, **_FIELD},
       required=("query", "facets", "cost", "balance_field"))
def count_free(ctx: CheckContext) -> None:
    p = ctx.rule.params
    operation = ctx.rule.operation
    assert operation
    query = filter_query(ctx)
    exchange, spent = _charged(ctx, lambda: ctx.call(operation, params={"query": query, "facets": p["facets"]}))
    _expect_cost(ctx, exchange, spent, p["balance_field"], p["cost"], f"count {query!r} with facets {p['facets']!r}")


@named("scanning/dns-domain-cost",
       params={"path_values": PATH_VALUES, "cost": _AMOUNT, **_FIELD},
       required=("path_values", "cost", "balance_field"))
def dns_domain_cost(ctx: CheckContext) -> None:
    p = ctx.rule.params
    operation = ctx.rule.operation
    assert operation
    exchange, spent = _charged(ctx, lambda: ctx.call(operation, path_values=p["path_values"]))
    _expect_cost(ctx, exchange, spent, p["balance_field"], p["cost"], "a DNS domain lookup")


def _scan(ctx: CheckContext, body: Any) -> Exchange:
    return ctx.call(SCAN, json_body=body)


@named("scanning/scan-cost",
       params={**_IPS, "cost_per_ip": _AMOUNT, **_FIELD}, required=("ips", "cost_per_ip", "balance_field"))
def scan_cost(ctx: CheckContext) -> None:
    p = ctx.rule.params
    exchange, spent = _charged(ctx, lambda: _scan(ctx, {"ips": ",".join(p["ips"])}))
    _expect_cost(ctx, exchange, spent, p["balance_field"], p["cost_per_ip"] * len(p["ips"]),
                 f"a scan of {len(p['ips'])} IPs")


@named("scanning/scan-response", params={**_IPS, **_FIELD}, required=("ips", "balance_field"))
def scan_response(ctx: CheckContext) -> None:
    """The scan answers {count, id, credits_left}. Which balance credits_left gives is not shown
    (gap credits-left-meaning): how it compares with api-info afterwards is observed, not judged."""
    p = ctx.rule.params
    field = p["balance_field"]
    _, drift = balance_drift(ctx)
    exchange = _scan(ctx, {"ips": ",".join(p["ips"])})
    body = expect_shape(ctx, exchange, SCAN, "a scan")
    left = balance(ctx)[field] + drift[field]
    ctx.observed(f"credits_left {body['credits_left']}, api-info {field} afterwards {left}")


@named("scanning/scan-ips-forms", params=_BODIES, required=("bodies",))
def scan_ips_forms(ctx: CheckContext) -> None:
    for body in ctx.rule.params["bodies"]:
        ips = body["ips"]
        if not isinstance(ips, dict):
            expect_shape(ctx, _scan(ctx, body), SCAN, f"a scan of ips {ips!r}")
            continue
        # The conflict: the mapping as the value of ips, or as the whole body.
        wrapped = _scan(ctx, body)
        if wrapped.response.status == 200:
            expect_shape(ctx, wrapped, SCAN, "a scan with ips as an object")
            ctx.observed(0)
            continue
        bare = _scan(ctx, ips)
        expect(bare.response.status == 200, ctx.rule.id,
               f"ips as an object was refused both as {{ips: {{...}}}} ({wrapped.response.status}) "
               f"and as the whole body ({bare.response.status})", exchange=bare,
               expected="one of the two documented readings accepted")
        expect_shape(ctx, bare, SCAN, "a scan with the ips object as the body")
        ctx.observed(1)


@named("scanning/scan-ips-invalid",
       params={**_BODIES, "valid_body": {"type": "object"}}, required=("bodies", "valid_body"))
def scan_ips_invalid(ctx: CheckContext) -> None:
    p = ctx.rule.params
    # The control (the same scan with valid ips) is sent once, before the balance is read: it
    # is charged, the refused scans must not be.
    control = once(lambda: _scan(ctx, p["valid_body"]))
    control()
    before, drift = balance_drift(ctx)
    for body in p["bodies"]:
        expect_refused(ctx, f"a scan of ips {body['ips']!r}", partial(_scan, ctx, body), control=control)
    # Whether a refused scan costs anything is not shown (gap refused-scan-cost): observed only.
    observe_spent(ctx, spent_since(ctx, before, drift), "refused scans")
