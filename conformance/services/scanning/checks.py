"""Scenario checks of the internet-scanning service (volume 2, part B): shared helpers, keys,
plans, errors, account and tools.

The other scanning checks live beside this module (``scanning_search``, ``scanning_credits``,
``scanning_dns``) and import the helpers from here. Every number (page sizes, credit costs) and
every sample value (queries, domains, IPs) comes from the rule's params or the contract's
settings; statuses other than the documented 404 are a gap, so refusals are "any non-200 that
carries {error: string}".
"""

from __future__ import annotations

import ipaddress
import string
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.registry import for_rule
from conformance.transport.model import Exchange

__all__ = [
    "API_INFO", "CREDIT_FIELDS", "SEARCH", "HOST", "as_credential", "balance", "balance_drift",
    "call_as", "component", "expect_ok", "expect_refused", "expect_shape", "observe_alternative",
    "product", "sample_hosts", "spent_since",
]

API_INFO = "GET /api-info"
SEARCH = "GET /host/search"
HOST = "GET /host/{ip}"
CREDIT_FIELDS = ("query_credits", "scan_credits")


# -- helpers shared by the scanning check modules ---------------------------------------
def component(ctx: CheckContext, name: str) -> dict[str, Any]:
    # The contract's own dict: validators are cached by its identity.
    schema: dict[str, Any] = ctx.contract.openapi["components"]["schemas"][name]
    return schema


def product(ctx: CheckContext) -> str:
    """The service's own name: settings.product, else the server variable's default."""
    variables = ctx.contract.openapi["servers"][0].get("variables") or {}
    return str(ctx.contract.settings.get("product", variables.get("product", {}).get("default", "")))


def as_credential(ctx: CheckContext, name: str) -> dict[str, str]:
    """Query parameters presenting credential ``name`` where settings.auth puts the key."""
    value = ctx.credential(name)
    out: dict[str, str] = {}
    for spec in ctx.contract.settings.get("auth") or []:
        if spec["in"] != "query":
            ctx.skip(f"settings.auth puts a credential in {spec['in']}; these checks expect query")
        fields = [f for _, f, _, _ in string.Formatter().parse(spec["value"]) if f]
        out[spec["name"]] = spec["value"].format(**{f: value for f in fields})
    return out


def call_as(ctx: CheckContext, credential: str, operation: str, *,
            params: dict[str, Any] | None = None, **kwargs: Any) -> Exchange:
    """``ctx.call`` with another account's key in place of the default one."""
    return ctx.call(operation, auth=False, params={**(params or {}), **as_credential(ctx, credential)},
                    **kwargs)


def expect_ok(ctx: CheckContext, exchange: Exchange, why: str) -> Any:
    expect_status(ctx.rule.id, exchange, 200, why)
    return exchange.response.json()


def expect_refused(ctx: CheckContext, exchange: Exchange, why: str, status: int | None = None) -> None:
    """Refused: the documented status where there is one, else any 4xx; always {error}."""
    if status is not None:
        expect_status(ctx.rule.id, exchange, status, why)
    else:
        # A refusal is the client's fault (4xx); a 5xx is a crash, not a refusal.
        expect(400 <= exchange.response.status < 500, ctx.rule.id,
               f"{why}: answered {exchange.response.status}",
               exchange=exchange, expected="a 4xx status with {error: string}")
    expect_json_schema(ctx.rule.id, ctx.contract, exchange, component(ctx, "Error"),
                       f"{why}: the non-200 body")


def expect_shape(ctx: CheckContext, exchange: Exchange, operation: str, why: str) -> Any:
    """200 and a body valid under the operation's documented 200 schema."""
    expect_ok(ctx, exchange, why)
    schema = ctx.contract.response_schema(operation, 200)
    assert schema is not None, f"{operation} documents no 200 schema"
    return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why)


def balance(ctx: CheckContext, credential: str = "API_KEY") -> dict[str, Any]:
    """The plan info of an account, checked to carry numeric credits."""
    exchange = call_as(ctx, credential, API_INFO)
    info = expect_shape(ctx, exchange, API_INFO, "reading the credit balance from api-info")
    return dict(info)


def balance_drift(ctx: CheckContext, credential: str = "API_KEY"
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The latest balance and what one api-info read itself costs, from three reads.

    The document does not say api-info is free: a target may charge each read. Equal gaps
    between three reads with no call in between are that per-read cost (usually 0) and are
    taken off later measurements; unequal gaps (another client on a shared account) leave no
    way to attribute a call's cost, so the check skips.
    """
    first, second, third = (balance(ctx, credential) for _ in range(3))
    drift = {f: first[f] - second[f] for f in CREDIT_FIELDS}
    if any(second[f] - third[f] != drift[f] for f in CREDIT_FIELDS):
        ctx.skip("api-info balances moved irregularly between three reads with no call in between "
                 f"({[{f: r[f] for f in CREDIT_FIELDS} for r in (first, second, third)]}; a shared "
                 "account?): a call's cost cannot be attributed")
    return third, drift


def spent_since(ctx: CheckContext, before: dict[str, Any], drift: dict[str, Any],
                credential: str = "API_KEY") -> dict[str, Any]:
    """What each balance fell by since ``before``, less the cost of the api-info read itself."""
    after = balance(ctx, credential)
    return {f: before[f] - after[f] - drift[f] for f in CREDIT_FIELDS}


def observe_alternative(ctx: CheckContext, conflict_id: str, index: int) -> None:
    """Report which documented alternative of a conflict the target showed (by its text)."""
    conflict = next(c for c in ctx.contract.conflicts if c.id == conflict_id)
    ctx.observe(conflict_id, conflict.alternatives[index])


def sample_hosts(ctx: CheckContext, limit: int) -> list[str]:
    """Up to ``limit`` distinct IPs from the first search page of settings.sample_query."""
    query = ctx.contract.settings["sample_query"]
    exchange = ctx.call(SEARCH, params={"query": query})
    body = expect_ok(ctx, exchange, f"searching {query!r} for sample hosts")
    ips: list[str] = []
    for match in (body or {}).get("matches") or []:
        ip = match.get("ip_str") if isinstance(match, dict) else None
        if isinstance(ip, str) and ip not in ips:
            ips.append(ip)
    if not ips:
        ctx.skip(f"search {query!r} found no host on this target; set settings.sample_query")
    return ips[:limit]


# -- authentication and plans -----------------------------------------------------------
@for_rule("scanning.auth.free-key-accepted")
def free_key_accepted(ctx: CheckContext) -> None:
    for operation in ctx.rule.params["operations"]:
        exchange = call_as(ctx, ctx.rule.params["credential"], operation)
        expect_shape(ctx, exchange, operation, f"{operation} with a free account's key")


@for_rule("scanning.plan.scan-needs-paid")
def scan_needs_paid(ctx: CheckContext) -> None:
    credential = ctx.rule.params["credential"]
    operation = ctx.rule.operation
    assert operation
    before, drift = balance_drift(ctx, credential)
    exchange = call_as(ctx, credential, operation, json_body=ctx.contract.request_example(operation))
    expect_refused(ctx, exchange, "a scan with a free account's key")
    spent = spent_since(ctx, before, drift, credential)
    for name in CREDIT_FIELDS:
        expect(spent[name] == 0, ctx.rule.id,
               f"the refused scan moved {name} by {-spent[name]} (api-info reads' own cost "
               f"{drift[name]} taken off)", exchange=exchange, expected="a refused scan costs nothing")


def _member(ctx: CheckContext) -> str:
    # The refusal should be about the plan, so a real member name is used when one is known.
    return ctx.target.credential(ctx.rule.params.get("member", "ORG_MEMBER")) or "conformance-probe-user"


@for_rule("scanning.plan.org-needs-enterprise")
def org_needs_enterprise(ctx: CheckContext) -> None:
    for operation in ctx.rule.params["operations"]:
        exchange = call_as(ctx, ctx.rule.params["credential"], operation,
                           path_values={"user": _member(ctx)})
        expect_refused(ctx, exchange, f"{operation} with a non-enterprise key")


# -- errors -----------------------------------------------------------------------------
@for_rule("scanning.errors.invalid-ip")
def invalid_ip(ctx: CheckContext) -> None:
    rule = ctx.rule
    assert rule.operation and rule.where
    name = rule.where.split(".", 1)[1]
    status = int((rule.violation or {})["status"])
    for value in rule.params["invalid_ips"]:
        exchange = ctx.call(rule.operation, path_values={name: value})
        expect_refused(ctx, exchange, f"host lookup of the invalid IP {value!r}", status=status)


def _placeholders(template: str) -> dict[str, str]:
    # Authentication is decided before the resource is looked up: any path value will do.
    return {part[1:-1]: "conformance-placeholder" for part in template.split("/")
            if part.startswith("{") and part.endswith("}")}


@for_rule("scanning.errors.error-body")
def error_body(ctx: CheckContext) -> None:
    sent: list[Exchange] = []
    for operation in ctx.contract.rule("scanning.auth.key-required").params["operations"]:
        body = ctx.contract.request_example(operation) if operation.startswith("POST") else None
        sent.append(ctx.call(operation, auth=False, json_body=body or None,
                             path_values=_placeholders(operation.split(" ", 1)[1])))
    for probe in ctx.rule.params["probes"]:
        sent.append(ctx.call(probe["operation"], params=probe.get("params"),
                             path_values=probe.get("path_values"),
                             json_body=probe.get("json_body")))
    refusals = [e for e in sent if e.response.status != 200]
    expect(bool(refusals), ctx.rule.id, "no probe was refused, so no error body could be read",
           expected="non-200 answers to requests without a key")
    for exchange in refusals:
        expect_json_schema(ctx.rule.id, ctx.contract, exchange, component(ctx, "Error"),
                           f"{exchange.request.method} {exchange.request.path} answered "
                           f"{exchange.response.status}")


# -- shapes of simple reads ---------------------------------------------------------------
@for_rule("scanning.facets.list", "scanning.filters.list", "scanning.tokens.shape",
          "scanning.ports.shape", "scanning.protocols.shape", "scanning.account.profile-shape",
          "scanning.account.api-info-shape", "scanning.dns.domain-shape")
def response_shape(ctx: CheckContext) -> None:
    operation = ctx.rule.operation
    assert operation
    params = ctx.rule.params
    query = {"query": params["query"]} if "query" in params else None
    exchange = ctx.call(operation, params=query, path_values=params.get("path_values"))
    expect_shape(ctx, exchange, operation, operation)


# -- tools ------------------------------------------------------------------------------
@for_rule("scanning.tools.httpheaders-echo")
def httpheaders_echo(ctx: CheckContext) -> None:
    assert ctx.rule.operation
    name = ctx.rule.params["probe_header"]
    value = "conformance-probe-value"
    exchange = ctx.call(ctx.rule.operation, headers={name: value})
    body = expect_shape(ctx, exchange, ctx.rule.operation, "httpheaders")
    echoed = {str(k).lower(): v for k, v in body.items()}
    expect(echoed.get(name.lower()) == value, ctx.rule.id,
           f"the header {name} the client sent is not in the answer", exchange=exchange,
           expected=f"{name}: {value} among the echoed headers")


@for_rule("scanning.tools.myip-shape")
def myip_shape(ctx: CheckContext) -> None:
    assert ctx.rule.operation
    exchange = ctx.call(ctx.rule.operation)
    body = expect_shape(ctx, exchange, ctx.rule.operation, "myip")
    # JSON Schema's format is only an annotation by default: parse the address here.
    try:
        ipaddress.ip_address(body)
        valid = True
    except (TypeError, ValueError):
        valid = False
    expect(valid, ctx.rule.id, f"myip answered {body!r}, not an IP address", exchange=exchange,
           expected="a JSON string holding an IPv4 or IPv6 address")
