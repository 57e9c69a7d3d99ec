"""Documented response headers: present on every answer a rule's probes get, each valid under
the schema the contract gives it (a generic building block).

``response-header`` sends each probe (an operation with credentials as ``as`` says, path values,
the example body or raw content) and holds each header in ``headers`` on whatever comes back, a
refusal included: rules such as "every response (success and error) carries X". The answer's
status is not judged (other rules do that). A header's schema is the one the operation documents
for the status answered (``responses.<status>.headers``, through ``components.responses``), else
the one it documents for another status of the same operation (an undocumented 404 still carries
the operation's headers when the rule says every response does).
"""

from __future__ import annotations

from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, DEFAULT, auth_as
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body
from conformance.checks.expect import expect, expect_status, success_statuses, validator
from conformance.checks.registry import named
from conformance.checks.shape import fill_path
from conformance.contract import Contract
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange, Request

__all__ = ["PROBE", "documented_header", "optional_request_header", "probe_operations", "response_header",
           "send_probe"]

PROBE: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["operation"],
    "properties": {
        "operation": {"type": "string"},
        "as": AUTH_AS_SCHEMA,
        "path_values": {"type": "object", "additionalProperties": {"type": "string"}},
        "query": {"type": "object"},
        # The operation's example request body (rendered for the target).
        "example_body": {"type": "boolean"},
        # Raw bytes instead (a body that does not parse, say), with their media type.
        "content": {"type": "string"},
        "content_type": {"type": "string"},
    },
}
_PARAMS: dict[str, Any] = {"headers": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                           "probes": {"type": "array", "items": PROBE, "minItems": 1}}


def _headers_of(contract: Contract, spec: Any) -> dict[str, Any]:
    if isinstance(spec, dict) and "$ref" in spec:
        spec = contract.openapi["components"]["responses"][spec["$ref"].rsplit("/", 1)[-1]]
    return {str(k).lower(): v for k, v in ((spec or {}).get("headers") or {}).items()}


def documented_header(contract: Contract, operation: str, status: int, name: str) -> dict[str, Any] | None:
    """The header object ``operation`` documents under ``name`` for ``status`` (module doc)."""
    responses = contract.operation(operation).get("responses") or {}
    lowered = name.lower()
    own = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX")
    found = _headers_of(contract, own).get(lowered)
    if found is None:
        found = next((h[lowered] for h in (_headers_of(contract, s) for s in responses.values()) if lowered in h),
                     None)
    return found


def probe_operations(rule_operation: str | None, params: dict[str, Any]) -> list[str]:
    """The operations a response-header rule's probes call (the derived faults edit these)."""
    return [str(p["operation"]) for p in params.get("probes") or []] or ([rule_operation] if rule_operation else [])


def send_probe(ctx: CheckContext, probe: dict[str, Any], headers: dict[str, str] | None = None) -> Exchange:
    """One probe (``PROBE``), with ``headers`` added."""
    operation = probe["operation"]
    how = auth_as(probe["as"]) if "as" in probe else DEFAULT
    values = fill_path(ctx, operation, probe.get("path_values"))
    if "content" in probe:
        method, template = operation.split(" ", 1)
        content_type = {"content-type": probe["content_type"]} if "content_type" in probe else {}
        request = Request.build(method, ctx.path(template, operation=operation, **values), params=probe.get("query"),
                                content=probe["content"].encode(), headers={**content_type, **(headers or {})})
        return ctx.send(ctx.auth(request, operation, how))
    body = {"json_body": example_body(ctx, operation)} if probe.get("example_body") else {}
    return ctx.call(operation, auth=how, path_values=values, params=probe.get("query"), headers=headers or None,
                    **body)


@named("response-header", params=_PARAMS, required=("headers",))
def response_header(ctx: CheckContext) -> None:
    rule = ctx.rule
    probes = rule.params.get("probes") or ([{"operation": rule.operation}] if rule.operation else [])
    if not probes:
        raise ContractFileError(f"{rule.id}: response-header needs an operation or probes")
    for probe in probes:
        exchange = send_probe(ctx, probe)
        status = exchange.response.status
        what = f"{probe['operation']} answered {status}"
        for name in rule.params["headers"]:
            spec = documented_header(ctx.contract, probe["operation"], status, name)
            if spec is None:
                raise ContractFileError(f"{rule.id}: {probe['operation']} documents no header {name}")
            value = exchange.response.header(name)
            expect(value is not None, rule.id, f"{what} without {name}", exchange=exchange,
                   expected=f"{name} on every response")
            schema = spec.get("schema") or {}
            error = next(iter(validator(ctx.contract, schema).iter_errors(value)), None)
            expect(error is None, rule.id, f"{what}: {name} is {value!r} ({error.message if error else ''})",
                   exchange=exchange, expected=f"{name} valid under its documented schema "
                                               f"({spec.get('description') or schema})")


# -- optional-request-header ---------------------------------------------------------------------
@named("optional-request-header", params={"value": {"type": "string", "minLength": 1},
                                          "probes": {"type": "array", "items": PROBE, "minItems": 1}},
       required=("value", "probes"))
def optional_request_header(ctx: CheckContext) -> None:
    """An optional request header (the rule's ``where: header.<name>``) with a caller-chosen
    ``value`` changes nothing: each probe, answered a success without it (the control), gets the
    same status with it. Whether the answer echoes it is reported to ``params.observes``, if named."""
    rule = ctx.rule
    if not (rule.where or "").startswith("header."):
        raise ContractFileError(f"{rule.id}: optional-request-header needs where: header.<name>")
    header, value = rule.where.partition(".")[2], rule.params["value"]  # type: ignore[union-attr]
    echoes: set[str] = set()
    for probe in rule.params["probes"]:
        operation = probe["operation"]
        plain = send_probe(ctx, probe)
        expect_status(rule.id, plain, success_statuses(ctx.contract, operation), f"{operation} without {header}")
        traced = send_probe(ctx, probe, {header: value})
        expect_status(rule.id, traced, plain.response.status,
                      f"{operation} with {header}: {value!r} (optional, caller-chosen) must be answered as without it")
        echoed = traced.response.header(header)
        echoes.add("echoed" if echoed == value else "another value" if echoed else "not echoed")
    if rule.params.get("observes"):
        ctx.observed(", ".join(sorted(echoes)))
