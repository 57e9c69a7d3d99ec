"""Allowed variants every service gets: choices the documents leave to the server.

Each is a wrapper, like a fault, but a conforming server may behave this way, so every rule
must still pass under it. A service adds its own (another id format, another unshown path) in
its package; these are the ones no HTTP API document forbids.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode

from conformance.contract import Contract
from conformance.errors import ContractFileError
from conformance.faults.base import Variant, on_request, on_response, path_pattern, variant
from conformance.faults.families import GAP_FAMILIES
from conformance.faults.gap_params import Params
from conformance.transport.model import Request, Response

__all__ = ["GAP_FAMILIES", "GENERIC_VARIANTS", "derived_variants", "gap_variants"]


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
    documented: set[str | None] = set()
    for rule in contract.rules:
        if (rule.violation or {}).get("status"):
            documented.update(rule.params.get("operations") or [rule.operation])
    if contract.openapi.get("x-refusal-status"):
        return []
    return [op for op in contract.operations()
            if op not in documented and not contract.operation(op).get("x-refusal-status")]


def gap_variants(contract: Contract) -> list[Variant]:
    """One variant for every family a gap allows (faults/families.py), named by the entry's
    ``name``, else after the family (and the gap, when two gaps allow the same family): the core
    builds them, the service writes none. A mistake in an entry is one line naming the gap."""
    out: list[Variant] = []
    for gap in contract.gaps:
        for i, allowed in enumerate(gap.allows):
            family = str(allowed.get("family"))
            if family not in GAP_FAMILIES:
                raise ContractFileError(f"{gap.id}: allows unknown variant family '{family}'; "
                                        f"known: {', '.join(sorted(GAP_FAMILIES))}")
            params = Params(f"{gap.id}: allows[{i}] ({family})", {k: v for k, v in allowed.items() if k != "family"})
            name = params.text("name", None)
            if name is None:
                name = family if all(v.name != family for v in out) else f"{family}:{gap.id.split('.gap.', 1)[1]}"
            if any(v.name == name for v in out):
                raise params.error(f"variant name '{name}' is taken by another allows entry; give it a 'name'")
            build, what = GAP_FAMILIES[family]
            wrap, detail = build(params)
            params.done()
            out.append(variant(name, f"{what}: {detail} (gap {gap.id})")(wrap))
    return out


def derived_variants(contract: Contract) -> list[Variant]:
    """Allowed variants the contract implies: ``case-folding-enums``, a server taking listed values
    in any case; ``refusal-as-422``, a server refusing invalid input with 422 (RFC 9110 section
    15.5.21) instead of 400 wherever the document names no status."""
    folding = _case_folding(contract)
    out = [*([folding] if folding else []), *gap_variants(contract)]
    operations = _undocumented_refusals(contract)
    if not operations:
        return out
    patterns = [(op.split(" ", 1)[0], path_pattern(op.split(" ", 1)[1])) for op in operations]

    def after(request: Request, response: Response) -> Response:
        if response.status == 400 and any(request.method == m and p.search(request.path) for m, p in patterns):
            response.status = 422
        return response

    return out + [variant("refusal-as-422",
                          f"invalid input refused with 422, not 400, on the {len(operations)} operations "
                          "whose refusal status the document does not name")(on_response(after))]


def _enum_points(contract: Contract) -> list[tuple[str, str, list[str]]]:
    """(operation, where, listed values) of every string enum among the request fields."""
    out: list[tuple[str, str, list[str]]] = []

    def walk(operation: str, schema: Any, where: str) -> None:
        schema = contract.deref(schema) if isinstance(schema, dict) else {}
        listed = schema.get("enum")
        if listed and all(isinstance(v, str) for v in listed):
            out.append((operation, where, list(listed)))
        for name, sub in (schema.get("properties") or {}).items():
            walk(operation, sub, f"{where}.{name}")

    for operation in contract.operations():
        walk(operation, contract.request_schema(operation), "body")
        for param in contract.parameters(operation):
            if param.get("in") == "query":
                walk(operation, param.get("schema") or {}, f"query.{param['name']}")
    return out


def _case_folding(contract: Contract) -> Variant | None:
    points = _enum_points(contract)
    if not points:
        return None
    compiled = [(op.split(" ", 1)[0], path_pattern(op.split(" ", 1)[1]), where, {v.casefold(): v for v in listed})
                for op, where, listed in points]

    def fold(value: Any, table: dict[str, str]) -> Any:
        return table.get(value.casefold(), value) if isinstance(value, str) else value

    def before(request: Request) -> Request:
        for method, pattern, where, table in compiled:
            if request.method != method or not pattern.search(unquote(request.path)):
                continue
            area, _, dotted = where.partition(".")
            if area == "query":
                request.query = [(k, fold(v, table) if k == dotted else v) for k, v in request.query]
            elif "form" in (request.headers.get("content-type") or ""):
                pairs = parse_qsl(request.body.decode("utf-8", "replace"), keep_blank_values=True)
                request.body = urlencode([(k, fold(v, table) if k == dotted else v) for k, v in pairs]).encode()
            else:
                try:
                    body = json.loads(request.body)
                except ValueError:
                    continue
                node, parts = body, dotted.split(".")
                for part in parts[:-1]:
                    node = node.get(part) if isinstance(node, dict) else None
                if isinstance(node, dict) and parts[-1] in node:
                    node[parts[-1]] = fold(node[parts[-1]], table)
                    request.body = json.dumps(body).encode()
        return request

    return variant("case-folding-enums", f"listed values taken in any case ({len(points)} enum fields): no document "
                   "says matching is case-sensitive")(on_request(before))
