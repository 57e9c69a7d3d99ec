"""Faults derived from rules about how a request is sent and taken.

``form-charset-refused`` for every ``form-accepted`` rule: a form whose content type carries
the charset parameter is answered 415; with the rule's ``text``: ``form-text-refused`` (a form
holding the text is answered 400) and ``form-text-garbled`` (the form is decoded as Latin-1
before the simulator reads it, so the text stored is not the text sent).
``ids-from-headers`` for every ``ids-in-path`` rule: the operation's path without its ids is
served, the ids taken from the headers named as its path parameters.
``repeat-crashes`` for every ``write-repeated`` rule: a refusal of the write (a 4xx) is a 500.
``documented-credential-refused`` for every ``credential-accepted`` rule: the operation refuses
(401) a credential of the documented form.
``typed-value-taken`` for every ``typed-parameters`` rule expecting refusals: each refused value
of a parameter of the type is read as the parameter's valid value (a fraction truncated, say).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote_from_bytes, unquote_to_bytes, urlencode

from conformance.auth.variants import scheme_location
from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault, on_request
from conformance.faults.toolkit import Match, Wrap, operation, status
from conformance.transport.model import Request

__all__ = ["request_faults"]


def _form_op(rule: Rule) -> Match:
    method, template = str(rule.params.get("operation") or rule.operation).split(" ", 1)
    return operation(method, template)


def _both(first: Match, second: Match) -> Match:
    return lambda request: first(request) and second(request)


def _charset_sent(request: Request) -> bool:
    return "charset" in (request.header("content-type") or "")


def _holds(text: str) -> Match:
    encoded = urlencode({"": text})[1:]  # the text as the form carries it

    def match(request: Request) -> bool:
        return encoded in request.body.decode("ascii", "replace")

    return match


def _latin1(match: Match) -> Wrap:
    def before(request: Request) -> Request:
        if match(request):
            pairs = parse_qsl(request.body.decode("ascii", "replace"), keep_blank_values=True, encoding="latin-1")
            request.body = urlencode(pairs).encode("utf-8")
        return request

    return on_request(before)


def _ids_from_headers(rule: Rule) -> Wrap:
    assert rule.operation
    method, template = rule.operation.split(" ", 1)
    names = re.findall(r"\{([^}]+)\}", template)
    bare = "/".join(p for p in template.split("/") if not p.startswith("{"))
    on_bare = operation(method, bare)

    def before(request: Request) -> Request:
        ids = {n: request.header(n) for n in names}
        if on_bare(request) and all(ids.values()):
            full = template
            for name, value in ids.items():
                full = full.replace("{" + name + "}", quote_from_bytes(unquote_to_bytes(str(value)), safe=""))
            request.path = request.path[: len(request.path) - len(bare)] + full
        return request

    return on_request(before)


def _credential_of(contract: Contract, rule: Rule) -> Match:
    assert rule.operation
    scheme = (contract.openapi.get("components", {}).get("securitySchemes") or {})[rule.params["scheme"]]
    where, name = scheme_location(scheme)
    pattern, on_operation = re.compile(rule.params["pattern"]), operation(*rule.operation.split(" ", 1))

    def match(request: Request) -> bool:
        value = request.header(name) if where == "header" else request.params.get(name)
        return on_operation(request) and bool(pattern.match(value or ""))

    return match


def _taken_as_valid(contract: Contract, rule: Rule) -> Wrap | None:
    """Each refused value of a parameter of the rule's type read as its valid value."""
    kind, refused = rule.params["type"], [str(v) for v in rule.params.get("values") or []]
    listed = rule.params.get("operations") or contract.operations()
    valid: list[tuple[Match, str, str]] = []
    for op in listed:
        for param in contract.parameters(op):
            schema = contract.deref(param.get("schema") or {})
            declared = schema.get("type")
            if param.get("in") == "query" and kind in (declared if isinstance(declared, list) else [declared]):
                default = schema.get("default", schema.get("minimum", 0))
                valid.append((operation(*op.split(" ", 1)), str(param["name"]), str(default)))
    if not valid or not refused:
        return None

    def before(request: Request) -> Request:
        names = {name: value for match, name, value in valid if match(request)}
        request.query = [(k, names[k] if k in names and v in refused else v) for k, v in request.query]
        return request

    return on_request(before)


def request_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        check, short = rule.params.get("check"), rule.id.split(".", 1)[1]
        if check == "form-accepted" and (rule.params.get("operation") or rule.operation):
            match = _form_op(rule)
            faults.append(derived_fault(f"form-charset-refused:{short}", rule.id,
                                        "a form whose content type carries charset is answered 415")(
                status(_both(match, _charset_sent), 415, body={"error": "unsupported media type"})))
            if "text" in rule.params:
                holds = _holds(str(rule.params["text"]))
                faults.append(derived_fault(f"form-text-refused:{short}", rule.id,
                                            f"a form holding {rule.params['text']!r} is answered 400")(
                    status(_both(match, holds), 400, body={"error": "ASCII only"})))
                faults.append(derived_fault(f"form-text-garbled:{short}", rule.id,
                                            "the form is decoded as Latin-1 and its mojibake stored")(_latin1(match)))
        elif check == "ids-in-path" and rule.operation:
            faults.append(derived_fault(f"ids-from-headers:{short}", rule.id,
                                        "the path without its ids is served, the ids taken from headers")(
                _ids_from_headers(rule)))
        elif check == "write-repeated" and rule.operation:
            faults.append(derived_fault(f"repeat-crashes:{short}", rule.id,
                                        f"a refusal of {rule.operation} is answered 500")(
                status(operation(*rule.operation.split(" ", 1)), 500, when=range(400, 500),
                       body={"error": "internal error"})))
        elif check == "credential-accepted" and rule.operation:
            faults.append(derived_fault(f"documented-credential-refused:{short}", rule.id,
                                        f"{rule.operation} refuses the credential of the documented form")(
                status(_credential_of(contract, rule), 401, body={"error": "invalid_token"})))
        elif check == "typed-parameters" and rule.params.get("expect") == "refused":
            taken = _taken_as_valid(contract, rule)
            if taken is not None:
                faults.append(derived_fault(f"typed-value-taken:{short}", rule.id,
                                            f"values not of type {rule.params['type']} are read as a valid one")(taken))
    return faults

