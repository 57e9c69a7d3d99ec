"""Faults derived from the headers a rule says every answer carries (``response-header`` rules).

``header-dropped``: the first named header left out of the answers to the rule's probes.
``header-garbled``: its value replaced by text its documented schema refuses (only where the
schema refuses it: a header documented as any string has no wrong value to send).
``header-refused`` (``optional-request-header`` rules): a request carrying the optional header is
refused with 400, as a server that does not know it might.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema

from conformance.checks.headers import documented_header, probe_operations
from conformance.contract import Contract, Rule
from conformance.contract.validation import FORMAT_CHECKER
from conformance.faults import toolkit
from conformance.faults.base import Fault, derived_fault, on_response
from conformance.faults.toolkit import Wrap, drop_header, operations
from conformance.transport.model import Request, Response

__all__ = ["header_faults"]

_GARBLED = "conformance-garbled"


def _garbling(match: Callable[[Request], bool], name: str) -> Wrap:
    lowered = name.lower()

    def after(request: Request, response: Response) -> Response:
        if match(request):
            response.headers = {k: (_GARBLED if k.lower() == lowered else v) for k, v in response.headers.items()}
        return response

    return on_response(after)


def _schema(contract: Contract, listed: list[str], name: str) -> dict[str, Any] | None:
    for operation in listed:
        for status in sorted(contract.documented_statuses(operation)):
            spec = documented_header(contract, operation, status, name)
            if spec is not None:
                return dict(spec.get("schema") or {})
    return None


def _refuses(schema: dict[str, Any], value: str) -> bool:
    return not jsonschema.Draft202012Validator(schema, format_checker=FORMAT_CHECKER).is_valid(value)


def header_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        if rule.params.get("check") == "response-header":
            faults += _for(contract, rule)
        elif rule.params.get("check") == "optional-request-header" and (rule.where or "").startswith("header."):
            faults.append(_refused(rule))
    return faults


def _refused(rule: Rule) -> Fault:
    name = (rule.where or "").partition(".")[2]
    match = operations(probe_operations(rule.operation, rule.params))
    short = rule.id.split(".", 1)[1]
    return derived_fault(f"header-refused:{short}", rule.id, f"a request carrying {name} is refused")(
        toolkit.status(lambda request: match(request) and request.header(name) is not None, 400,
               body={"message": f"unexpected header {name}"}))


def _for(contract: Contract, rule: Rule) -> list[Fault]:
    short = rule.id.split(".", 1)[1]
    listed = probe_operations(rule.operation, rule.params)
    name = str(rule.params["headers"][0])
    match = operations(listed)
    out = [derived_fault(f"header-dropped:{short}", rule.id, f"answers to {', '.join(listed)} lack {name}")(
        drop_header(match, name))]
    schema = _schema(contract, listed, name)
    if schema is not None and _refuses(schema, _GARBLED):
        out.append(derived_fault(f"header-garbled:{short}", rule.id, f"{name} is {_GARBLED!r}, outside its schema")(
            _garbling(match, name)))
    return out


