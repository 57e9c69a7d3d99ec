"""Allowed variants every service gets: choices the documents leave to the server.

Each is a wrapper, like a fault, but a conforming server may behave this way, so every rule
must still pass under it. A service adds its own (another id format, another unshown path) in
its package; these are the ones no HTTP API document forbids.
"""

from __future__ import annotations

import json

from conformance.contract import Contract
from conformance.faults.base import Variant, on_response, variant
from conformance.faults.generic import path_pattern
from conformance.transport.model import Request, Response

__all__ = ["GENERIC_VARIANTS", "derived_variants"]


def _extra_header(request: Request, response: Response) -> Response:
    # Servers add their own headers (tracing, caching); no document lists every header.
    response.headers = {**response.headers, "x-vendor-trace": "conformance-variant"}
    return response


def _reformatted_json(request: Request, response: Response) -> Response:
    # JSON member order and whitespace carry no meaning (RFC 8259, section 4).
    if "json" not in (response.headers.get("content-type") or ""):
        return response
    try:
        data = json.loads(response.body)
    except ValueError:
        return response

    def reverse(node: object) -> object:
        if isinstance(node, dict):
            return {k: reverse(node[k]) for k in reversed(list(node))}
        if isinstance(node, list):
            return [reverse(v) for v in node]
        return node

    response.body = json.dumps(reverse(data), indent=2).encode()
    return response


GENERIC_VARIANTS: tuple[Variant, ...] = (
    variant("extra-response-header", "every response carries an undocumented header")(on_response(_extra_header)),
    variant("reformatted-json", "JSON bodies pretty-printed with members in reverse order")(
        on_response(_reformatted_json)),
)


def _undocumented_refusals(contract: Contract) -> list[str]:
    """Operations for which the document names no refusal status at all (no x-refusal-status,
    no rule giving a violation status): there a server may refuse with any 4xx."""
    documented = set()
    for rule in contract.rules:
        if (rule.violation or {}).get("status"):
            documented.update(rule.params.get("operations") or [rule.operation])
    if contract.openapi.get("x-refusal-status"):
        return []
    return [op for op in contract.operations()
            if op not in documented and not contract.operation(op).get("x-refusal-status")]


def derived_variants(contract: Contract) -> list[Variant]:
    """Allowed variants the contract implies: ``refusal-as-422``, a server refusing invalid input
    with 422 (RFC 9110 section 15.5.21) instead of 400 wherever the document names no status."""
    operations = _undocumented_refusals(contract)
    if not operations:
        return []
    patterns = [(op.split(" ", 1)[0], path_pattern(op.split(" ", 1)[1])) for op in operations]

    def after(request: Request, response: Response) -> Response:
        if response.status == 400 and any(request.method == m and p.search(request.path) for m, p in patterns):
            response.status = 422
        return response

    return [variant("refusal-as-422", f"invalid input refused with 422, not 400, on the {len(operations)} operations "
                    "whose refusal status the document does not name")(on_response(after))]
