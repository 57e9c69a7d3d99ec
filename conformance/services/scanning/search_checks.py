"""Scanning checks of host lookups (history, banner metadata) and facet count suffixes. The host
record, minify, banner and facet result shapes are core read-after-write steps."""

from __future__ import annotations

import json
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.scanning.checks import HOST, STRING, expect_shape, product, sample_hosts
from conformance.settings import env_name
from conformance.transport.model import Exchange

__all__: list[str] = []

COUNT = "GET /host/count"
FACET_NAMES = "GET /host/search/facets"

_COUNT = {"type": "integer", "minimum": 1}
_QUERY = {"query": STRING}


# -- host lookup ------------------------------------------------------------------------
def _host(ctx: CheckContext, ip: str, **params: str) -> tuple[Exchange, dict[str, Any]]:
    exchange = ctx.call(HOST, path_values={"ip": ip}, params=params or None)
    body = expect_shape(ctx, exchange, HOST, f"host lookup of {ip} {params or ''}".rstrip())
    return exchange, body


def _banners(body: dict[str, Any]) -> list[Any]:
    data = body.get("data")
    return data if isinstance(data, list) else []


@named("scanning/host-history", params={"max_hosts": _COUNT}, required=("max_hosts",))
def host_history(ctx: CheckContext) -> None:
    # history=true ignored and a host without history answer alike: only a banner the default
    # answer leaves out shows history at work. settings.sample_history declares that the
    # sample hosts have history on this target, so showing none there fails instead of skips.
    ips = sample_hosts(ctx, ctx.rule.params["max_hosts"])
    exchange: Exchange | None = None
    for ip in ips:
        _, current = _host(ctx, ip)
        exchange, history = _host(ctx, ip, history=ctx.credential("BOOLEAN_TRUE"))
        now, past = _banners(current), _banners(history)
        expect(len(past) >= len(now), ctx.rule.id,
               f"history=true returned {len(past)} banners of {ip}, the default {len(now)}",
               exchange=exchange, expected="all historical banners: never fewer than the current ones")
        known = {_identity(b) for b in now}
        if any(_identity(b) not in known for b in past):
            return
    setting = ctx.optional("SAMPLE_HISTORY") or str(ctx.contract.settings.get("sample_history", ""))
    declared = setting.strip().lower() in ("true", "1", "yes")
    expect(not declared, ctx.rule.id,
           f"history=true added no banner to the default answer for any of {ips}",
           exchange=exchange,
           expected="historical banners besides the current ones (SAMPLE_HISTORY: the "
                    "sample hosts have history on this target)")
    ctx.skip(f"history=true added no banner for {ips} here: the target shows no history for "
             "them, so history at work cannot be told from history ignored "
             f"(set {env_name(ctx.contract.service, 'SAMPLE_HISTORY')}=true when they have history)")


def _sample_banners(ctx: CheckContext) -> tuple[str, Exchange, list[Any]]:
    """The first sample host's banners (skip when it has none: nothing to check)."""
    ip = sample_hosts(ctx, 1)[0]
    exchange, body = _host(ctx, ip)
    banners = _banners(body)
    if not banners:
        ctx.skip(f"host {ip} has no banners on this target")
    return ip, exchange, banners


@named("scanning/metadata-key",
       params={"key_template": STRING, "members": {"type": "array", "items": STRING}},
       required=("key_template", "members"))
def metadata_key(ctx: CheckContext) -> None:
    params = ctx.rule.params
    key = params["key_template"].format(product=product(ctx))
    ip, exchange, banners = _sample_banners(ctx)
    for i, banner in enumerate(banners):
        meta = banner.get(key)
        expect(isinstance(meta, dict), ctx.rule.id, f"banner {i} of {ip} has no {key!r} object",
               exchange=exchange, expected=f"the metadata object under {key!r}")
        missing = [m for m in params["members"] if m not in meta]
        expect(not missing, ctx.rule.id, f"banner {i} metadata lacks {missing}", exchange=exchange,
               expected=f"{key} with {', '.join(params['members'])}")


def _identity(banner: Any) -> str:
    # Banners carry no documented id; these members together name one banner.
    if not isinstance(banner, dict):
        return json.dumps(banner, sort_keys=True)
    return json.dumps([banner.get(k) for k in ("ip_str", "port", "transport", "timestamp", "hash")])


# -- facets -----------------------------------------------------------------------------
def _facet_names(ctx: CheckContext) -> list[str]:
    exchange = ctx.call(ctx.rule.params["facet_source"])
    names = expect_shape(ctx, exchange, FACET_NAMES, "the facet names")
    if not names:
        ctx.skip("search/facets lists no facet on this target")
    return list(names)


def _facets(ctx: CheckContext, spec: str) -> tuple[Exchange, dict[str, Any]]:
    exchange = ctx.call(COUNT, params={"query": ctx.rule.params["query"], "facets": spec})
    body = expect_shape(ctx, exchange, COUNT, f"count with facets={spec}")
    return exchange, body["facets"]


@named("scanning/facet-count-suffix",
       params={**_QUERY, "facet_source": STRING, "counts": {"type": "array", "items": _COUNT, "minItems": 1}},
       required=("query", "facet_source", "counts"))
def facet_count_suffix(ctx: CheckContext) -> None:
    counts = sorted(ctx.rule.params["counts"])
    names = _facet_names(ctx)
    exchange, plain = _facets(ctx, ",".join(names))
    # A facet that showed more values than the largest count proves the suffix must cut.
    rich = [n for n in names if len(plain.get(n) or []) > counts[-1]]
    if not rich:
        ctx.skip(f"no facet of {ctx.rule.params['query']!r} has more than {counts[-1]} values "
                 "here, so a count suffix cannot be seen to cut")
    name = rich[0]
    for count in counts:
        exchange, facets = _facets(ctx, f"{name}:{count}")
        got = len(facets.get(name) or [])
        expect(got == count, ctx.rule.id, f"facets={name}:{count} returned {got} values",
               exchange=exchange,
               expected=f"{count} values (the property has at least {len(plain[name])})")
