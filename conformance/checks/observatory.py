"""The gap observatory: what a target shows where the document says "not shown".

A gap is no rule, so nothing a target does there is a failure. But a gap a request can probe is
worth seeing: ``gap-probe`` sends the probe its rule describes to each listed operation and
records the answers (status, media type, top-level shape, matching headers, the CSV header row
or the body), then ends as a skip of kind not-exercised whose reason is the observation, so it
is never counted as passed and always shown. It fails on an answer that is ill-formed for the
media type it declares (RFC 9110 section 8.3), the same judgement as ``well-formed-by-type``,
because a probe is also a request like any other; and on a 5xx to a probe that is a client's
mistake (a body that is not JSON, an id no target issued): however the document leaves the
answer open, a crash is never it.

A candidate for ``conformance/checks/`` with a first-class "observed" outcome, so an observation
need not ride in a skip reason (see the report).
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, NONE, auth_as
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, unique
from conformance.checks.paths import path_values
from conformance.checks.registry import named
from conformance.checks.routes import call_listed
from conformance.checks.wellformed import csv_records, ill_formed, media_type
from conformance.errors import ContractFailure, ContractFileError, SkipKind
from conformance.transport.model import Exchange, Response

__all__ = ["gap_probe", "shape"]

_BODIES: dict[str, dict[str, Any]] = {
    "none": {},
    # Raw bytes: the contract's body builder sends no body for an empty dict.
    "empty-object": {"content": b"{}", "headers": {"content-type": "application/json"}},
    "malformed-json": {"content": b"{\"conformance\": ", "headers": {"content-type": "application/json"}},
}

_PARAMS: dict[str, Any] = {
    "gap": {"type": "string", "pattern": r"^[a-z]+\.gap\.[a-z0-9-]+$"},
    "operations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "record": {"enum": ["status", "media-type", "shape", "headers", "csv-header", "body"]},
    # "example": the operation's example on this target, its x-unique members new (a create
    # probed under another key must not collide with one made before).
    "body": {"enum": [*_BODIES, "example"]},
    "path_values": {"type": "object", "additionalProperties": {"type": "string"}},
    "query": {"type": "object", "additionalProperties": {"type": "string"}},
    "without_credential": {"type": "boolean"},
    "header_pattern": {"type": "string"},
    # The credential the probe carries (a key whose grant is the gap), in place of the configured one.
    "as": AUTH_AS_SCHEMA,
}


def shape(response: Response) -> str:
    """The top level of a body in a few words: type, and member names of an object."""
    if not response.body.strip():
        return "no body"
    data = response.json()
    if data is None:
        return f"{len(response.body)} bytes of {media_type(response) or 'undeclared type'}"
    if isinstance(data, dict):
        names = sorted(data)
        more = f" +{len(names) - 8}" if len(names) > 8 else ""
        return "object{" + ",".join(names[:8]) + more + "}"
    if isinstance(data, list):
        return f"array[{len(data)}]"
    return type(data).__name__


def _record(what: str, exchange: Exchange, pattern: re.Pattern[str] | None) -> str:
    response = exchange.response
    if what == "status":
        return str(response.status)
    if what == "media-type":
        return f"{response.status} {media_type(response) or 'no Content-Type'}"
    if what == "shape":
        return f"{response.status} {media_type(response) or '-'} {shape(response)}"
    if what == "headers":
        found = sorted(h for h in response.headers if pattern and pattern.search(h))
        return ", ".join(found) or "none"
    if what == "csv-header":
        records = csv_records(response)
        if isinstance(records, str) or not records:
            return f"{response.status}, no CSV record"
        return f"{response.status}, first record: {','.join(records[0])[:120]}"
    return f"{response.status} {response.body.decode('utf-8', 'replace')[:80]!r}"


def _send(ctx: CheckContext, operation: str, params: dict[str, Any], *, bare: bool, serial: int) -> Exchange:
    values = path_values(ctx, operation, params.get("path_values"))
    body = params.get("body", "none")
    kwargs: dict[str, Any] = (
        {"json_body": unique(ctx, operation, example_body(ctx, operation), serial)} if body == "example"
        else dict(_BODIES[body]))
    if params.get("query"):
        kwargs["params"] = dict(params["query"])
    how = NONE if bare else auth_as(params["as"]) if "as" in params else None
    return call_listed(ctx, operation, values, auth=how, **kwargs)


@named("gap-probe", params=_PARAMS, required=("gap", "operations", "record"))
def gap_probe(ctx: CheckContext) -> None:
    params = ctx.rule.params
    if params["gap"] not in {g.id for g in ctx.contract.gaps}:
        raise ContractFileError(f"{ctx.rule.id}: observes {params['gap']}, not a gap of the contract")
    pattern = re.compile(params["header_pattern"], re.I) if params.get("header_pattern") else None
    # Without a credential configured, every call is already bare: then one request each.
    compare = bool(params.get("without_credential")) and bool(ctx.optional("AUTH_VALUE"))
    seen: list[str] = []
    # What the document leaves open is how such a request is answered, not whether it may crash.
    mistake = ("a body that is not JSON" if params.get("body") == "malformed-json"
               else "an id no target issued" if params.get("path_values") else "")
    serial = itertools.count(1)
    for operation in params["operations"]:
        exchanges = [_send(ctx, operation, params, bare=bool(params.get("without_credential")), serial=next(serial))]
        if compare:
            exchanges.append(_send(ctx, operation, params, bare=False, serial=next(serial)))
        for exchange in exchanges:
            if mistake and exchange.response.status >= 500:
                raise ContractFailure(ctx.rule.id, f"{operation}: {mistake} answered {exchange.response.status}",
                                      expected="an answer or a 4xx refusal; a 5xx is never right for a client's "
                                      "mistake", exchange=exchange)
            problem = ill_formed(exchange.response)
            if problem:
                raise ContractFailure(ctx.rule.id, f"{operation}: {problem}",
                                      expected="a body that is what its Content-Type declares", exchange=exchange)
        text = " / with credential ".join(_record(params["record"], e, pattern) for e in exchanges)
        seen.append(f"{operation}: {text}")
    sent_as = f" with {auth_as(params['as']).describe()}" if "as" in params else ""
    ctx.skip(f"gap {params['gap']} observed, not judged{sent_as}: " + json.dumps(_group(seen))[1:-1],
             SkipKind.GAP_OBSERVED)


def _group(seen: list[str]) -> list[str]:
    """Operations with the same observation share one line: short enough for a summary."""
    by_text: dict[str, list[str]] = {}
    for line in seen:
        operation, _, text = line.partition(": ")
        by_text.setdefault(text, []).append(operation)
    return [f"{text} <- {', '.join(ops)}" for text, ops in by_text.items()]
