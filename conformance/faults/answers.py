"""Faults derived from what a rule says an answer is: its documented status, its documented shape.

``status-remapped`` for every rule with a documented refusal status (``violation.status``) on its
operation: the refusal answered with another status (400 with 422, 401 with 403, 405 with 404...).
A check that took any 4xx would pass it; the document names one. For a ``refused-edit`` rule the
remap acts where its edits send (another method, a longer path). A rule whose check probes
somewhere else than its operation opts out in rules.yaml, saying so.

``member-dropped`` and ``member-retyped`` for every ``response-shape`` rule (and every
``valid-bodies`` rule, whose check holds each accepted answer to its schema): the documented
answer without its first required member, or with its first typed member of another JSON type
(with no required typed member, the first typed one at any depth: faults/broken.py).
``member-off-list`` for every ``response-shape`` rule whose answer lists values: the first listed
member, at any depth, off its list. ``member-invalid`` for every ``response-members`` rule: the
first of its members that can be, off its list, format, pattern or type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault
from conformance.faults.broken import ANY, ENUM, TYPE, broken, merged, reaches
from conformance.faults.edits import CHECK, edited_operations, edited_requests
from conformance.faults.toolkit import Match, Wrap, operations, response_body
from conformance.faults.toolkit import status as toolkit_status

__all__ = ["answer_faults"]

# The status a careless server answers instead of the documented one: a neighbour of its family.
_INSTEAD = {400: 422, 422: 400, 401: 403, 403: 401, 404: 410, 405: 404, 409: 400, 413: 400, 402: 403, 429: 503}
# A value of another JSON type than the documented one.
_RETYPED: dict[str, Any] = {"string": 12345, "integer": "12345", "number": "1.5", "boolean": "yes",
                            "array": {"not": "an array"}, "object": ["not", "an", "object"]}


def _operations(rule: Rule) -> Match:
    return operations(str(op) for op in rule.params.get("operations") or [rule.operation])


def _remapped(rule: Rule, status: int) -> Wrap:
    # A refused-edit rule's refused request may go elsewhere than its operation (another method, a
    # path extending it): the remap acts where the edit sends it.
    edited = rule.params.get("check") == CHECK and edited_operations(rule)
    return toolkit_status(edited_requests(edited) if edited else _operations(rule), _INSTEAD.get(status, 400),
                          when=status)


def _merged(contract: Contract, schema: Any) -> dict[str, Any]:
    """A schema with the parts of its ``allOf`` folded in (a collection built on a base schema)."""
    schema = contract.deref(schema) if isinstance(schema, dict) else {}
    parts = [schema, *(_merged(contract, part) for part in schema.get("allOf") or [])]
    merged: dict[str, Any] = {"required": [], "properties": {}}
    for part in parts:
        merged["type"] = merged.get("type") or part.get("type")
        merged["required"] += [n for n in part.get("required") or [] if n not in merged["required"]]
        for name, sub in (part.get("properties") or {}).items():
            # A member both parts describe (its type in one, its items in another): both hold.
            merged["properties"][name] = {**contract.deref(merged["properties"].get(name) or {}), **contract.deref(sub)}
        if "items" in part:
            merged["items"] = part["items"]
    return merged


def _first_member(contract: Contract, schema: Any) -> tuple[bool, str, str] | None:
    """(in array items?, member, its type) of the first required, typed member of an answer."""
    schema = _merged(contract, schema)
    items = schema.get("type") == "array"
    if items:
        schema = _merged(contract, schema.get("items") or {})
    props = schema.get("properties") or {}
    for name in schema.get("required") or []:
        kind = contract.deref(props.get(name) or {}).get("type")
        if isinstance(kind, str) and kind in _RETYPED and kind != "null":
            return items, name, kind
    return None


def _edit_answer(rule: Rule, status: int, items: bool, edit: Callable[[dict[str, Any]], None]) -> Wrap:
    def each(body: Any) -> Any:
        for node in (body if items and isinstance(body, list) else [body]):
            if isinstance(node, dict):
                edit(node)
        return body

    return response_body(_operations(rule), each, statuses=(status,))


def _dropping(name: str) -> Callable[[dict[str, Any]], None]:
    def edit(node: dict[str, Any]) -> None:
        node.pop(name, None)

    return edit


def _retyping(name: str, kind: str) -> Callable[[dict[str, Any]], None]:
    def edit(node: dict[str, Any]) -> None:
        if name in node:
            node[name] = _RETYPED[kind]

    return edit


def _breaking(contract: Contract, rule: Rule, answered: int, schema: Any, how: str) -> Wrap:
    def edit(body: Any) -> Any:
        found = broken(contract, schema, body, how)
        return body if found is None else found

    return response_body(_operations(rule), edit, statuses=(answered,))


def _invalid_members(contract: Contract, rule: Rule) -> Wrap:
    """The first of the rule's members (``data.contract.txHash``) that can be made invalid, made so."""
    assert rule.operation
    members = [str(m).split(".") for m in rule.params["members"]]

    schema = contract.response_schema(rule.operation, 200) or contract.response_schema(rule.operation, 201) or {}

    def edit(body: Any) -> Any:
        for parts in members:
            node, sub = body, schema
            for part in parts[:-1]:
                node, sub = (node or {}).get(part) if isinstance(node, dict) else None, \
                    (merged(contract, sub).get("properties") or {}).get(part, {})
            sub = (merged(contract, sub).get("properties") or {}).get(parts[-1], {})
            if isinstance(node, dict) and parts[-1] in node:
                found = broken(contract, sub, node[parts[-1]], ANY)
                if found is not None:
                    node[parts[-1]] = found
                    return body
        return body

    return response_body(_operations(rule), edit, statuses=(200, 201))


def answer_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        short = rule.id.split(".", 1)[1]
        status = (rule.violation or {}).get("status")
        if isinstance(status, int) and 400 <= status < 500 and rule.operation:
            faults.append(derived_fault(f"status-remapped:{short}", rule.id,
                                        f"{rule.operation} answers {_INSTEAD.get(status, 400)} where the document "
                                        f"says {status}")(_remapped(rule, status)))
        listed = rule.params.get("operations") or [rule.operation]
        if rule.params.get("check") in ("response-shape", "valid-bodies") and listed[0]:
            operation = str(listed[0])
            answered = int(rule.params.get("status", 200))
            schema = contract.response_schema(operation, answered) or {}
            if rule.params.get("check") == "response-shape" and rule.params.get("schema"):
                schema = {"$ref": f"#/components/schemas/{rule.params['schema']}"}  # the rule's own (shape.py)
            if reaches(contract, schema, ENUM):
                faults.append(derived_fault(f"member-off-list:{short}", rule.id,
                                            f"{operation} answers a listed member with a value its list does not "
                                            "hold")(_breaking(contract, rule, answered, schema, ENUM)))
            member = _first_member(contract, schema)
            if member is None:
                if reaches(contract, schema, TYPE):  # no required typed member: the first typed one, at any depth
                    faults.append(derived_fault(f"member-retyped:{short}", rule.id,
                                                f"{operation} answers a typed member as another type")(
                        _breaking(contract, rule, answered, schema, TYPE)))
                continue
            items, name, kind = member
            faults.append(derived_fault(f"member-dropped:{short}", rule.id,
                                        f"{operation} answers without its required member {name}")(
                _edit_answer(rule, answered, items, _dropping(name))))
            faults.append(derived_fault(f"member-retyped:{short}", rule.id,
                                        f"{operation} answers {name} as another type than {kind}")(
                _edit_answer(rule, answered, items, _retyping(name, kind))))
        if rule.params.get("check") == "response-members" and rule.operation and rule.params.get("members"):
            faults.append(derived_fault(f"member-invalid:{short}", rule.id,
                                        f"{rule.operation} answers one of {', '.join(rule.params['members'])} "
                                        "outside its documented schema")(_invalid_members(contract, rule)))
    return faults
