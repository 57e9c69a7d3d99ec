"""Scenario checks of the internet-scanning service (volume 2, part B): shared helpers and the
error body of every refusal.

The other scanning checks live beside this module (``search_checks``, ``credit_checks``,
``dns_checks``) and import the helpers from here. Every number (page sizes, credit costs) and
every sample value (queries, domains, IPs) comes from the rule's params or the contract's
settings; which account a call speaks for is an ``AuthAs`` (``params.as``), and where its key goes
is the contract's security scheme. Statuses other than the documented 404 are a gap: a non-200
always carries {error: string}.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.registry import named
from conformance.settings import env_name
from conformance.transport.model import Exchange

__all__ = [
    "API_INFO", "CREDIT_FIELDS", "HOST", "PATH_VALUES", "SEARCH", "STRING", "balance", "balance_drift", "component",
    "expect_ok", "expect_shape", "product", "sample_hosts", "sample_query",
]

API_INFO = "GET /api-info"
SEARCH = "GET /host/search"
HOST = "GET /host/{ip}"
CREDIT_FIELDS = ("query_credits", "scan_credits")

# Param declarations shared by the scanning checks.
STRING: dict[str, Any] = {"type": "string"}
PATH_VALUES: dict[str, Any] = {"type": "object", "additionalProperties": STRING}


# -- helpers shared by the scanning check modules ---------------------------------------
def component(ctx: CheckContext, name: str) -> dict[str, Any]:
    # The contract's own dict: validators are cached by its identity.
    schema: dict[str, Any] = ctx.contract.openapi["components"]["schemas"][name]
    return schema


def product(ctx: CheckContext) -> str:
    """The service's own name: the path setting ``product`` (environment, --option, rules.yaml
    settings, then the server variable's default)."""
    return ctx.contract.server_variables()["product"][0]


def expect_ok(ctx: CheckContext, exchange: Exchange, why: str) -> Any:
    expect_status(ctx.rule.id, exchange, 200, why)
    return exchange.response.json()


def expect_shape(ctx: CheckContext, exchange: Exchange, operation: str, why: str) -> Any:
    """200 and a body valid under the operation's documented 200 schema."""
    expect_ok(ctx, exchange, why)
    schema = ctx.contract.response_schema(operation, 200)
    assert schema is not None, f"{operation} documents no 200 schema"
    return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why)


def balance(ctx: CheckContext) -> dict[str, Any]:
    """The plan info of an account, checked to carry numeric credits."""
    exchange = ctx.call(API_INFO)
    info = expect_shape(ctx, exchange, API_INFO, "reading the credit balance from api-info")
    return dict(info)


def balance_drift(ctx: CheckContext) -> tuple[dict[str, Any], dict[str, Any]]:
    """The latest balance and what one api-info read itself costs, from three reads.

    The document does not say api-info is free: a target may charge each read. Equal gaps
    between three reads with no call in between are that per-read cost (usually 0) and are
    taken off later measurements; unequal gaps (another client on a shared account) leave no
    way to attribute a call's cost, so the check skips.
    """
    first, second, third = (balance(ctx) for _ in range(3))
    drift = {f: first[f] - second[f] for f in CREDIT_FIELDS}
    if any(second[f] - third[f] != drift[f] for f in CREDIT_FIELDS):
        ctx.skip("api-info balances moved irregularly between three reads with no call in between "
                 f"({[{f: r[f] for f in CREDIT_FIELDS} for r in (first, second, third)]}; a shared "
                 "account?): a call's cost cannot be attributed")
    return third, drift


def sample_query(ctx: CheckContext) -> str:
    """The target setting SAMPLE_QUERY, else the catalogue's default (settings.sample_query)."""
    return ctx.optional("SAMPLE_QUERY") or str(ctx.contract.settings["sample_query"])


def sample_hosts(ctx: CheckContext, limit: int) -> list[str]:
    """Up to ``limit`` distinct IPs from the first search page of the sample query."""
    query = sample_query(ctx)
    exchange = ctx.call(SEARCH, params={"query": query})
    body = expect_ok(ctx, exchange, f"searching {query!r} for sample hosts")
    ips: list[str] = []
    for match in (body or {}).get("matches") or []:
        ip = match.get("ip_str") if isinstance(match, dict) else None
        if isinstance(ip, str) and ip not in ips:
            ips.append(ip)
    if not ips:
        ctx.skip(f"search {query!r} found no host on this target; set {env_name(ctx.contract.service, 'SAMPLE_QUERY')}")
    return ips[:limit]


# -- errors -----------------------------------------------------------------------------
def _placeholders(template: str) -> dict[str, str]:
    # Authentication is decided before the resource is looked up: any path value will do.
    return {part[1:-1]: "conformance-placeholder" for part in template.split("/")
            if part.startswith("{") and part.endswith("}")}


_PROBE: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["operation"],
    "properties": {"operation": STRING, "params": {"type": "object"}, "path_values": PATH_VALUES, "json_body": {}},
}


@named("scanning/error-body", params={"probes": {"type": "array", "items": _PROBE, "minItems": 1},
                                                "keyless": {"type": "array", "items": STRING, "minItems": 1}},
       required=("probes", "keyless"))
def error_body(ctx: CheckContext) -> None:
    """Every operation the key-required rule lists, called without a key, then each probe."""
    sent: list[Exchange] = []
    for operation in ctx.rule.params["keyless"]:
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
