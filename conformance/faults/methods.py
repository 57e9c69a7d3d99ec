"""Faults derived from a ``method-refused`` rule (``checks/methods.py``).

``method-as-404`` for every such rule: a method a documented path does not document is answered
404 on every path but the first openapi.yaml lists, where the documented status is kept: a router
keyed on method and path that knows only the documented pairs (many do), so one wrong-method probe
of the first route shows nothing of the rest.
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


def _as_404(contract: Contract, rule: Rule) -> Wrap:
    routes = _routes(contract)[1:]
    status = int((rule.violation or {}).get("status") or 405)

    def after(request: Request, response: Response) -> Response:
        if response.status != status:
            return response
        for route, methods in routes:
            if route.search(request.path) and request.method.upper() not in methods:
                return Response.json_response(404, {"error": "not found"})
        return response

    return on_response(after)


def method_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        if rule.params.get("check") != CHECK:
            continue
        first: Any = next(iter(contract.openapi.get("paths") or {}), "")
        faults.append(derived_fault(f"method-as-404:{rule.id.split('.', 1)[1]}", rule.id,
                                    f"a method a path does not document is answered 404 on every path but {first}")(
            _as_404(contract, rule)))
    return faults
