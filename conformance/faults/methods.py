"""Faults derived from a ``method-refused`` rule (``checks/methods.py``).

``method-as-404`` for every such rule: a method a documented path does not document is answered
404 on every path but the first openapi.yaml lists, where the documented status is kept: a router
keyed on method and path that knows only the documented pairs (many do), so one wrong-method probe
of the first route shows nothing of the rest. ``method-as-501`` for the same rules: a wrong method
on the last path openapi.yaml lists is answered 501 (RFC 9110 section 15.6.2: a method the server
does not recognize), where a check stopping early or taking a 5xx for a refusal passes (a 5xx the
document says to retry, social's 500, would be retried, never judged: 501 is not one).
"""

from __future__ import annotations

import re
from typing import Any

from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault, on_response, path_pattern
from conformance.faults.toolkit import Wrap
from conformance.transport.model import Request, Response

__all__ = ["method_faults"]

CHECK = "method-refused"
_METHODS = ("get", "post", "put", "patch", "delete")


def _routes(contract: Contract) -> list[tuple[re.Pattern[str], set[str]]]:
    """Each documented path as a whole-path pattern (its server prefix included), with its methods."""
    routes = []
    for template, item in (contract.openapi.get("paths") or {}).items():
        methods = {m.upper() for m in item if m in _METHODS}
        if not methods:
            continue
        prefix = contract.prefix_for(f"{sorted(methods)[0]} {template}")
        routes.append((re.compile("^" + re.escape(prefix) + path_pattern(template).pattern), methods))
    return routes


def _answered(contract: Contract, rule: Rule, routes: list[tuple[re.Pattern[str], set[str]]], instead: int) -> Wrap:
    """The documented answer to a wrong method on one of ``routes`` replaced by ``instead``."""
    status = int((rule.violation or {}).get("status") or 405)

    def after(request: Request, response: Response) -> Response:
        if response.status != status:
            return response
        for route, methods in routes:
            if route.search(request.path) and request.method.upper() not in methods:
                return Response.json_response(instead, {"error": "not found" if instead == 404 else "not implemented"})
        return response

    return on_response(after)


def method_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        if rule.params.get("check") != CHECK:
            continue
        paths: list[Any] = list(contract.openapi.get("paths") or {})
        routes, short = _routes(contract), rule.id.split(".", 1)[1]
        if not routes:
            continue
        faults.append(derived_fault(f"method-as-404:{short}", rule.id,
                                    f"a method a path does not document is answered 404 on every path but {paths[0]}")(
            _answered(contract, rule, routes[1:], 404)))
        faults.append(derived_fault(f"method-as-501:{short}", rule.id,
                                    f"a method {paths[-1]} does not document is answered 501")(
            _answered(contract, rule, routes[-1:], 501)))
    return faults
