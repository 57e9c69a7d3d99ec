"""Allowed variants every service gets: choices the documents leave to the server.

Each is a wrapper, like a fault, but a conforming server may behave this way, so every rule
must still pass under it. A service adds its own (another id format, another unshown path) in
its package; these are the ones no HTTP API document forbids.
"""

from __future__ import annotations

import json

from conformance.faults.base import Variant, on_response, variant
from conformance.transport.model import Request, Response

__all__ = ["GENERIC_VARIANTS"]


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
