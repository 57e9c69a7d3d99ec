"""Faults derived from rules about values in answers, wherever they appear.

``row-value-off-schema`` for every ``row-values`` rule with a ``schema``: every row of the list
carrying the member holds a value the schema refuses (a text off a list, 0 for a number that
must be above it). ``row-filter-ignored`` for every ``row-values`` rule that ``matches`` its
filter: the filter is taken out of the request, so the list answers rows of every value.
``object-member-dropped`` for every ``objects-like`` rule: every object like the schema loses a
required member of it (one that leaves it still like the schema, so it is still judged); with
``members``, every object under one of those names loses its first required member.
``charset-declared-other`` for every ``declared-charset`` rule: the answers to its probes
declare another charset. ``numbers-unquoted`` for every ``numbers-as-strings`` rule: every text
in the answers that reads as a number with a fraction is that JSON number instead.
``content-not-json`` for every ``response-members`` rule naming a member declared to hold JSON
(``contentMediaType``): the member holds text that does not parse. ``param-ignored`` for every
``param-selects`` rule: the parameter is taken out of the request, so every record's answer is the
answer without it.

Member names a rule gives as target settings (``"{ITEMS_FIELD}"``) are the catalogue's
``settings.defaults`` here: the simulator's own names.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema

from conformance.checks.anywhere import member_names
from conformance.checks.headers import probe_operations
from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault, on_request, on_response
from conformance.faults.toolkit import Wrap, operation, operations, response_body
from conformance.transport.model import Request, Response

__all__ = ["value_faults"]

# Values one of which any schema a rule holds a row's member to refuses: a bound first (a
# quantity of 0), then a foreign text, then null.
_OFF = (0, -1, "conformance-off-list", None)
_OK = range(200, 300)


def _named(contract: Contract, text: str) -> str:
    """A member name, or the default of the target setting ``{NAME}`` it names."""
    if text.startswith("{") and text.endswith("}"):
        return str((contract.settings.get("defaults") or {}).get(text[1:-1], text))
    return text


def _refused(contract: Contract, schema: dict[str, Any]) -> Any:
    """A value the schema refuses: for a list of texts, a near miss of its first (capitalised),
    which only an exact comparison catches; else the first of ``_OFF`` it refuses."""
    resolved = contract.deref(schema)
    check = jsonschema.Draft202012Validator(contract.standalone(resolved))
    listed = [v for v in resolved.get("enum") or [] if isinstance(v, str)]
    candidates = [listed[0].capitalize(), listed[0].upper()] if listed else []
    return next((v for v in (*candidates, *_OFF) if not check.is_valid(v)), _OFF[-1])


def _rows_edited(items: str, member: str, value: Any) -> Any:
    def edit(body: Any) -> Any:
        rows = body.get(items) if isinstance(body, dict) else None
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict) and member in row:
                row[member] = value
        return body

    return edit


def _without_query(match: Any, name: str) -> Wrap:
    def before(request: Request) -> Request:
        if match(request):
            request.query = [(k, v) for k, v in request.query if k != name]
        return request

    return on_request(before)


def _like(schema: dict[str, Any], marks: int, named_at: frozenset[str] = frozenset()) -> Any:
    members, required = list(schema.get("properties") or {}), list(schema.get("required") or [])

    def edit(body: Any) -> Any:
        stack = [body]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                for name in named_at & set(node):
                    if isinstance(node[name], dict):
                        node[name].pop(next((m for m in required if m in node[name]), ""), None)
                present = [m for m in members if m in node]
                if not named_at and len(present) > marks:  # one member less still makes it like the schema
                    node.pop(next(m for m in required if m in node), None)
                stack += list(node.values())
            elif isinstance(node, list):
                stack += node
        return body

    return edit


def _charset_other(match: Any, charset: str) -> Wrap:
    def after(request: Request, response: Response) -> Response:
        declared = (response.header("content-type") or "").split(";")[0].strip()
        if match(request) and declared:
            response.headers = {**{k: v for k, v in response.headers.items() if k.lower() != "content-type"},
                                "content-type": f"{declared}; charset={charset}"}
        return response

    return on_response(after)


_FRACTION = re.compile(r"^-?[0-9]+\.[0-9]+$")


def _unquoted(body: Any) -> Any:
    if isinstance(body, dict):
        return {k: _unquoted(v) for k, v in body.items()}
    if isinstance(body, list):
        return [_unquoted(v) for v in body]
    return float(body) if isinstance(body, str) and _FRACTION.match(body) else body


def _json_members(contract: Contract, rule: Rule) -> list[str]:
    """The rule's members whose schema says they hold JSON."""
    assert rule.operation
    out = []
    for dotted in rule.params.get("members") or []:
        try:
            schema = contract.where_schema(rule.operation, f"response.{dotted}")
        except KeyError:
            continue
        if str(schema.get("contentMediaType") or "").endswith("json"):
            out.append(str(dotted))
    return out


def _set_member(dotted: str, value: Any) -> Any:
    def edit(body: Any) -> Any:
        *head, last = dotted.split(".")
        node = body
        for part in head:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and last in node:
            node[last] = value
        return body

    return edit


def value_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        check, short = rule.params.get("check"), rule.id.split(".", 1)[1]
        if check == "row-values" and rule.operation:
            faults += _row_faults(contract, rule, short)
        elif check == "objects-like":
            schemas = contract.openapi.get("components", {}).get("schemas") or {}
            schema = contract.deref(schemas[rule.params["schema"]])
            named_at = frozenset(member_names(_named(contract, str(rule.params.get("members", "")))))
            faults.append(derived_fault(f"object-member-dropped:{short}", rule.id,
                                        f"objects like {rule.params['schema']} lack a required member")(
                response_body(operations(rule.params["operations"]),
                              _like(schema, int(rule.params.get("marks", 2)), named_at), _OK)))
        elif check == "param-selects" and rule.operation:
            faults.append(derived_fault(f"param-ignored:{short}", rule.id,
                                        f"{rule.operation} ignores its query parameter {rule.params['param']}")(
                _without_query(operation(*rule.operation.split(" ", 1)), str(rule.params["param"]))))
        elif check == "declared-charset":
            other = "iso-8859-1" if str(rule.params["charset"]).lower() != "iso-8859-1" else "utf-16"
            faults.append(derived_fault(f"charset-declared-other:{short}", rule.id,
                                        f"answers to the probes declare charset={other}")(
                _charset_other(operations(probe_operations(rule.operation, rule.params)), other)))
        elif check == "numbers-as-strings":
            faults.append(derived_fault(f"numbers-unquoted:{short}", rule.id,
                                        "numbers with a fraction are answered as JSON numbers")(
                response_body(operations(rule.params["operations"]), _unquoted, _OK)))
        elif check == "response-members" and rule.operation:
            for dotted in _json_members(contract, rule)[:1]:
                on_operation = operation(*rule.operation.split(" ", 1))
                faults.append(derived_fault(f"content-not-json:{short}", rule.id, f"{dotted} holds text, no JSON")(
                    response_body(on_operation, _set_member(dotted, "conformance: no JSON"), _OK)))
    return faults


def _row_faults(contract: Contract, rule: Rule, short: str) -> list[Fault]:
    assert rule.operation
    out: list[Fault] = []
    items, member = _named(contract, str(rule.params["items_field"])), _named(contract, str(rule.params["member"]))
    method, template = rule.operation.split(" ", 1)
    match = operation(method, template)
    if "schema" in rule.params:
        value = _refused(contract, rule.params["schema"])
        out.append(derived_fault(f"row-value-off-schema:{short}", rule.id,
                                 f"every row's {member} is {value!r}, outside its schema")(
            response_body(match, _rows_edited(items, member, value), _OK)))
    each = rule.params.get("each")
    if rule.params.get("matches") and each:
        out.append(derived_fault(f"row-filter-ignored:{short}", rule.id,
                                 f"{rule.operation} ignores the {each['query']} filter")(
            _without_query(match, str(each["query"]))))
    return out
