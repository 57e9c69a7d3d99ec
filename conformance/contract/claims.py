"""What a statement's accounting claims, checked against what the checks really read.

Three mechanical tests keep ``schemas/<id>/statements.yaml`` honest (issue 35, item 1):

* A ``derived`` claim names an operation and the request member its probes carry
  (``POST /accounts body.email``, ``GET /listings query.state``), or ``request-body`` for the
  broken-body probes (``POST /accounts request-body``). It holds only when
  ``contract/derive.py`` really produces such a probe for that operation: an operation marked
  ``x-no-derived-probes``, a member the example does not reach, or a point a gap holds open is
  refused. An operation alone claims nothing any more: that is how unprobed members were credited.
* A rule cited for a sentence, and a derived claim, must read some of the sentence: the words of
  the sentence (member names, values, paths, statuses, header names; no stop words) must meet the
  words of what the check is given.
  - A rule: its operation (method, path, base URL), its ``where`` member and that member's schema
    (names, enum values, bounds), its params and violation status, the security scheme of an
    auth rule, the settings it is given (by what each holds), the media type its body is sent
    as; for a rule of a whole operation (no ``where``) the members of its request schema, the
    values of the example it sends and the members of its responses (redirect queries and
    headers included). A rule with no operation reads the operations its params name, else every
    operation (the generic checks). A service's scenario check (Python the contract cannot look
    into) also reads what its rule's statement says it checks.
  - A derived claim: its operation and member, its probes' labels (what is wrong with each value
    sent), and the kinds of bound the member's schema holds, with its type.
  A schema member counts as read only where the schema requires or constrains it: a member
  listed with no type is named, not checked.
* A sentence covered by rules or probes is covered fully only when each member-like name it
  states (snake_case, camelCase) is read by a cited rule or derived claim, or held open by a cited
  gap or conflict; otherwise the entry says under ``part`` what is checked (covered in part).

None of this proves that a rule checks all a sentence says about what it reads (``part`` is the
index's own word there); it does refuse a claim that reads none of its sentence, and a member a
covered sentence names that nothing reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from conformance.contract.derive import body_probes, field_probes
from conformance.contract.model import Contract, Rule

__all__ = ["REQUEST_BODY", "derived_problem", "derived_reads", "names", "parse_derived", "rule_reads", "sentence_terms",
           "words"]

# The where of a claim on the broken-body probes (body_probes), rather than a member.
REQUEST_BODY = "request-body"

# Words that name no member, value or operation: they would let any rule touch any sentence.
_STOP = frozenset("""
a an the and or nor for are is be been with from that this these those when not any its it per all each one two may can
was has have had into than then only also but use used uses using none shown given returned return returns
must should will would their them they there where which what other more most some such very same both either
list lists value values field fields of on in to by as at if no yes so do does did via
""".split())
_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]*")
_CAMEL = re.compile(r"[a-z]+|[A-Z][a-z]*|[0-9]+")
# Long strings in params are prose (a reason, a note): what a check is given is identifiers and values.
_MAX_PARAM_TEXT = 80


def parse_derived(claim: str) -> tuple[str, str] | None:
    """``(operation, where)`` of ``"METHOD /path where"``; None when it is not of that shape."""
    parts = claim.split(" ")
    if len(parts) != 3 or not parts[1].startswith("/") or not parts[2]:
        return None
    return f"{parts[0]} {parts[1]}", parts[2]


def derived_problem(contract: Contract, claim: str) -> str | None:
    """Why ``claim`` is not carried by a probe derive.py produces (None when it is)."""
    parsed = parse_derived(claim)
    if parsed is None:
        return (f"derived claim {claim!r} is not 'METHOD /path where' (where: body.<member>, query.<name>, "
                f"path.<name> or {REQUEST_BODY})")
    operation, where = parsed
    if operation not in contract.operations():
        return f"derived claim {claim!r}: {operation} is not in openapi.yaml"
    reason = contract.operation(operation).get("x-no-derived-probes")
    if reason:
        return f"derived claim {claim!r}: {operation} gets no derived probes (x-no-derived-probes: {reason})"
    if where == REQUEST_BODY:
        if body_probes(contract, operation):
            return None
        return f"derived claim {claim!r}: {operation} gets no broken-body probes (no JSON body with an example)"
    probes = {p.where for p in field_probes(contract, operation)}
    if any(p == where or p.startswith(where + ".") for p in probes):
        return None
    sent = ", ".join(sorted(probes)) or "none"
    return f"derived claim {claim!r}: no probe of {operation} sends {where} (probed: {sent})"


def derived_reads(contract: Contract, claim: str) -> set[str]:
    """The words of what the claimed probes send: the operation, the member, what each probe's
    label says is wrong with its value, and the kinds of bound the member's schema holds (enum,
    maximum, format ...) with its type. Empty when the claim does not hold (derived_problem)."""
    parsed = parse_derived(claim)
    if parsed is None or derived_problem(contract, claim):
        return set()
    operation, where = parsed
    found = [operation, where]
    if where == REQUEST_BODY:
        found += [label for label, _, _ in body_probes(contract, operation)]
    else:
        found += [p.label for p in field_probes(contract, operation)
                  if p.where == where or p.where.startswith(where + ".")]
        try:
            schema = contract.where_schema(operation, where)
        except (KeyError, TypeError):
            schema = {}
        found += [key for key in schema if key in _CONSTRAINTS]
        found += list(_flat(schema.get("type")))
    return words(" ".join(found))


def words(text: str) -> set[str]:
    """Lower-case words of ``text``: each token, its parts split at ``_``/``-`` and at camelCase."""
    out: set[str] = set()
    for token in _TOKEN.findall(text):
        pieces = {token, *re.split(r"[_\-]", token), *_CAMEL.findall(token)}
        out |= {p.lower() for p in pieces if len(p) >= 3 or (len(p) == 2 and any(c.isdigit() for c in p))}
    # A plural names what its singular does ("ends" of a range, "end" of a sentence).
    out |= {w[:-1] for w in out if len(w) >= 5 and w.endswith("s") and not w.endswith("ss")}
    return out - _STOP


# A member-like name of a sentence: snake_case or camelCase; a lone ``{name}`` is a placeholder
# (``{base_url}``), not a member.
_NAME = re.compile(r"(?<![{\w])(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)(?![}\w])")


def names(text: str) -> list[str]:
    """The member-like names a sentence states something about, in order, once each."""
    return list(dict.fromkeys(_NAME.findall(text)))


def sentence_terms(text: str) -> set[str]:
    """What a sentence names: its words less stop words (the words its claim could be read by)."""
    return words(text)


def _flat(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _flat(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _flat(item)
    elif value is not None and len(str(value)) <= _MAX_PARAM_TEXT:
        yield str(value)


# Keywords that hold a value to something: a member with none of them takes anything.
_CONSTRAINTS = frozenset({"type", "enum", "const", "format", "pattern", "properties", "items", "minLength", "maxLength",
                          "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
                          "required", "oneOf", "anyOf", "allOf", "not", "$ref"})


def _constrains(contract: Contract, schema: Any) -> bool:
    return isinstance(schema, dict) and bool(_CONSTRAINTS & set(contract.deref(schema)))


def _schema_words(contract: Contract, schema: Any, seen: set[int] | None = None) -> Iterator[str]:
    """Names of the members ``schema`` requires or constrains, enum values, formats and bounds, at
    every depth."""
    seen = set() if seen is None else seen
    if not isinstance(schema, dict):
        return
    schema = contract.deref(schema)
    if id(schema) in seen:
        return
    seen.add(id(schema))
    required = set(schema.get("required") or ())
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            for name, sub in value.items():
                # A member the schema neither requires nor constrains is named, not checked.
                if name in required or _constrains(contract, sub):
                    yield name
                yield from _schema_words(contract, sub, seen)
        elif key in ("items", "additionalProperties", "not"):
            yield from _schema_words(contract, value, seen)
        elif key in ("oneOf", "anyOf", "allOf") and isinstance(value, list):
            for sub in value:
                yield from _schema_words(contract, sub, seen)
        elif key in ("enum", "const", "format", "required", "maxLength", "minLength", "maximum", "minimum",
                     "maxItems", "minItems", "exclusiveMaximum", "exclusiveMinimum", "default"):
            yield from _flat(value)


def _operation_words(contract: Contract, operation: str, whole: bool) -> Iterator[str]:
    yield operation
    path_servers = contract.openapi["paths"][operation.split(" ", 1)[1]].get("servers")
    for server in path_servers or contract.openapi.get("servers") or ():
        yield str(server.get("url", ""))  # every request of the operation goes through the base URL
        for name, variable in (server.get("variables") or {}).items():
            yield f"{name} {variable.get('default', '')}"
    if contract.operation(operation).get("requestBody"):
        yield contract.request_media(operation)  # what its body is sent as
    if not whole:
        return
    # A check of the whole operation is given its request schema (the generic body checks draw from
    # it or walk it) and sends the example. An over-reach for a check that stops at some depth:
    # the entry's ``part`` says so where it is known.
    yield from _schema_words(contract, contract.request_schema(operation))
    yield from _flat(contract.request_example(operation))
    for param in contract.parameters(operation):  # and its parameters, listed values included
        yield str(param.get("name", ""))
        yield from _schema_words(contract, param.get("schema") or {})
    for status, response in (contract.operation(operation).get("responses") or {}).items():
        yield str(status)
        response = contract.resolve(response) if isinstance(response, dict) else {}
        yield from (str(name) for name in response.get("headers") or {})
        # The query of a redirect answer (OAuth), held to the schemas the response names for it.
        for schema in (response.get("x-redirect-query") or {}).values():
            yield from _schema_words(contract, schema)
        if str(status).isdigit():
            yield from _schema_words(contract, contract.response_schema(operation, int(status)) or {})


def _security_words(contract: Contract, operation: str | None) -> Iterator[str]:
    for name, scheme in contract.security_for(operation):
        yield name
        yield from _flat({k: v for k, v in scheme.items() if k in ("type", "scheme", "name", "in", "bearerFormat")})


def rule_reads(contract: Contract, rule: Rule) -> set[str]:
    """The words of everything ``rule``'s check is given (module doc)."""
    found: list[Iterable[str]] = [_flat(rule.params), _flat(rule.violation or {})]
    operations = [rule.operation] if rule.operation else [str(op) for op in rule.params.get("operations") or ()]
    whole = rule.where is None
    if not operations:
        operations, whole = contract.operations(), True  # a generic check reads every operation
    for operation in operations:
        found.append(_operation_words(contract, operation, whole))
        if rule.kind == "auth":
            found.append(_security_words(contract, operation))
    # A component schema the check is given by name (``schema: Account``, ``schema: Money``).
    named = (contract.openapi.get("components", {}).get("schemas") or {}).get(str(rule.params.get("schema", "")))
    if isinstance(named, dict):
        found.append(_schema_words(contract, named))
    if rule.operation and rule.where:
        found.append([rule.where])
        try:
            found.append(_schema_words(contract, contract.where_schema(rule.operation, rule.where)))
        except KeyError:
            pass  # the loader has refused a where that does not resolve
    # A service's scenario check (``check: <service>/<name>``) is Python the contract cannot look
    # into: the catalogue's statement is its declared claim (its bound faults prove it).
    if "/" in str(rule.params.get("check", "")):
        found.append([rule.statement])
    # The settings the check is given (a second account's token ...), by what each one holds.
    given = set(rule.requires) | set(re.findall(r"\b[A-Z][A-Z0-9_]{2,}\b", " ".join(_flat(rule.params))))
    found += [[str(c.get("name")), str(c.get("statement", ""))] for c in contract.settings.get("credentials") or ()
              if c.get("name") in given]
    out: set[str] = set()
    for group in found:
        out |= words(" ".join(group))
    return out
