"""Schemathesis's per-operation checks, run on our session so recording and scrubbing apply.

Checks used: no 5xx, documented response schemas, content types and headers. Not used:
status_code_conformance, because the documents do not list every status an operation can
give (each such silence is a gap), so an undocumented 404 is not a contract failure.
"""

from __future__ import annotations

import datetime
from typing import Any

import httpx
import schemathesis
from schemathesis.core import NOT_SET
from schemathesis.specs.openapi import checks as openapi_checks

from conformance.checks.context import CheckContext
from conformance.checks.drawn import Codec
from conformance.checks.registry import named
from conformance.errors import CassetteMismatch, ContractFailure
from conformance.recording.examples import decode, encode
from conformance.transport.model import Request

__all__ = ["schemathesis_checks"]

_CHECKS = [
    schemathesis.checks.not_a_server_error,
    openapi_checks.response_schema_conformance,
    openapi_checks.content_type_conformance,
    openapi_checks.response_headers_conformance,
]


_SCHEMAS: dict[int, Any] = {}


def _schema(openapi: dict[str, Any]) -> Any:
    # Contracts are cached and read-only, so the dict's identity keys the parsed schema.
    if id(openapi) not in _SCHEMAS:
        _SCHEMAS[id(openapi)] = schemathesis.openapi.from_dict(openapi)
    return _SCHEMAS[id(openapi)]


def _to_request(kwargs: dict[str, Any]) -> Request:
    # Keep the path percent-encoded: generated path parameters may hold any character.
    path = httpx.URL(kwargs["url"]).raw_path.split(b"?", 1)[0].decode("ascii")
    headers = {k: v for k, v in (kwargs.get("headers") or {}).items()
               if k.lower() not in ("user-agent", "accept-encoding", "connection", "x-schemathesis-testcaseid")}
    params = kwargs.get("params") or {}
    query = [(k, str(x)) for k, v in params.items() for x in (v if isinstance(v, list) else [v])]
    if "json" in kwargs:
        return Request.build(kwargs["method"], path, params=query, headers=headers, json_body=kwargs["json"])
    content = kwargs.get("content") or kwargs.get("data")
    if isinstance(content, dict):
        return Request.build(kwargs["method"], path, params=query, headers=headers, form=content)
    if isinstance(content, str):
        content = content.encode()
    return Request.build(kwargs["method"], path, params=query, headers=headers, content=content)


# A quarter of the examples of a body property (5 per operation in the gate): every operation is
# covered by valid requests, which is what the rule needs; the 6 faults only these rules catch
# are caught with 5 as with 10, and the six rules were 45% of the gate's rule time at 10.
_SCALE = 0.25


# What of a drawn case the request and the checks read; the case id (a random header we drop) and
# its generation metadata are not kept.
_CASE_FIELDS = ("method", "path_parameters", "headers", "cookies", "query", "media_type", "multipart_content_types")


def _case_codec(operation: Any) -> Codec:
    """A drawn case to JSON and back into a case of ``operation`` (replay's recorded examples)."""

    def to_json(kwargs: dict[str, Any]) -> dict[str, Any]:
        case = kwargs["case"]
        fields = {name: getattr(case, name) for name in _CASE_FIELDS}
        fields["headers"] = dict(case.headers or {})
        if case.body is not NOT_SET:
            fields["body"] = case.body
        return {"case": encode(fields)}

    def from_json(data: dict[str, Any]) -> dict[str, Any]:
        fields = decode(data.get("case"))
        try:
            return {"case": operation.Case(**fields)}
        except TypeError as exc:
            raise CassetteMismatch(f"recorded case of {operation.label} does not make a case ({exc}); "
                                   "re-record it") from None

    return Codec(to_json, from_json)


def operation_key(operation: Any) -> str:
    """'METHOD /path' of a schemathesis operation, as the contract names it."""
    return f"{operation.method.upper()} {operation.path}"


@named("schemathesis")
def schemathesis_checks(ctx: CheckContext) -> None:
    contract = ctx.contract
    schema = _schema(contract.openapi)
    # Undocumented statuses pass the schema checks vacuously: count the answers that were held
    # to something, so a target answering everything with, say, 302 is not reported as passing.
    documented = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        statuses = contract.documented_statuses(operation_key(operation))

        # Built where it draws only (replay takes the recorded cases); its repr names no operation, so
        # the label stands for it (the operation's definition is in the contract digest).
        @ctx.given(operation.label, strategy=operation.as_strategy, drawn_from=f"schemathesis {operation.label}",
                   scale=_SCALE, codec=_case_codec(operation))
        def conforms(case: Any) -> None:
            # Path- and operation-level servers (an unshown path segment, another host) win.
            kwargs = case.as_transport_kwargs(
                base_url="http://conformance.invalid" + contract.prefix_for(operation_key(operation)))
            nonlocal documented
            exchange = ctx.send(ctx.auth(_to_request(kwargs), operation_key(operation)))
            documented += exchange.response.status in statuses
            response = httpx.Response(
                exchange.response.status, headers=exchange.response.headers,
                content=exchange.response.body,
                request=httpx.Request(kwargs["method"], kwargs["url"]),
            )
            response.elapsed = datetime.timedelta(0)  # MockTransport leaves it unset
            # A 5xx the operation lists by number (social's 500, 503, 504: "server error; retry")
            # is a documented answer to a valid request (the strategy generates valid ones only),
            # not a violation; a range such as 5XX documents the error body, not the status.
            listed = str(exchange.response.status) in (operation.definition.raw.get("responses") or {})
            checks = _CHECKS[1:] if exchange.response.status >= 500 and listed else _CHECKS
            try:
                case.validate_response(response, checks=checks)
            except (AssertionError, BaseExceptionGroup) as exc:
                # Several failures arrive as a FailureGroup (a BaseExceptionGroup): name the first.
                single = exc.exceptions[0] if isinstance(exc, BaseExceptionGroup) else exc
                first = str(single).strip().splitlines()
                raise ContractFailure(
                    ctx.rule.id, f"{operation.label}: {' '.join(first[:3])}",
                    expected="no 5xx; documented response schema, content type and headers",
                    exchange=exchange,
                ) from None

        conforms()
    if not documented:
        ctx.skip("no answer had a documented status, so nothing was held to the contract's schemas")
