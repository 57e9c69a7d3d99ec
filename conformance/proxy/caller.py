"""The caller's side of an exchange: what the request sent, held to what the documents state.

Body against the documented request schema (limits, enums, required members, types, formats),
query, path and header parameters against theirs, and the credential in the place the contract's
security scheme names. Each mistake is the caller's, reported apart from the vendor's failures:
the upstream's answer to it is passed through and noted, never judged as a refusal (a single
exchange has no control request that succeeded first).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from conformance.contract.model import Contract, Rule
from conformance.contract.validation import validator
from conformance.proxy.findings import CALLER, Finding, RuleIndex, pointer
from conformance.proxy.schemas import kind_of, place_of
from conformance.transport.jsonbody import JsonTooDeep, loads
from conformance.transport.model import Request

__all__ = ["EncodedBody", "JsonTooDeep", "caller_findings", "credential_values"]


class EncodedBody(ValueError):
    """The caller's body is content-encoded: forwarded unchanged, not checked."""

_JSON = "application/json"
_FORM = "application/x-www-form-urlencoded"


def caller_findings(contract: Contract, index: RuleIndex, operation: str, request: Request,
                    path_values: dict[str, str]) -> list[Finding]:
    method, path = operation.split(" ", 1)
    op_ptr = ("paths", path, method.lower())
    found: list[Finding] = []

    def add(kind: str, where: str | None, ptr: str, message: str) -> None:
        # A body that is not the documented media type or not JSON at all: the catalogue's `error`
        # rules of the operation (content type, malformed JSON, but also credits, forbidden) are
        # keyed by kind alone, so none of them is named; the pointer is.
        rules: list[Rule] | None = [] if kind == "error" else None
        found.append(index.attribute(Finding(CALLER, kind, operation, where, ptr, message), rules))

    found += _auth(contract, index, operation, request)
    found += _parameters(contract, index, operation, request, path_values)
    op = contract.operation(operation)
    body_spec = contract.resolve(op["requestBody"]) if "requestBody" in op else None
    if body_spec is None:
        return found
    encoding = (request.header("content-encoding") or "identity").strip().lower()
    if request.body and encoding != "identity":
        # Forwarded as sent; not inflated here: a caller's bomb is not ours to decode, and the
        # documents say nothing of compressed requests (neither allowed nor refused).
        raise EncodedBody(f"sent with Content-Encoding: {encoding}: not decoded, not checked")
    if not request.body:
        if body_spec.get("required"):
            add("required", None, pointer(*op_ptr, "requestBody"), "the request body is required and none was sent")
        return found
    media = (request.header("content-type") or "").split(";")[0].strip().lower()
    content = body_spec.get("content") or {}
    if media not in content:
        add("error", None, pointer(*op_ptr, "requestBody", "content"),
            f"sent as {media or 'no content type'}; the document takes {', '.join(content) or 'no body'}")
        return found
    schema = (content[media] or {}).get("schema")
    if not schema:
        return found
    schema_ptr = pointer(*op_ptr, "requestBody", "content", media, "schema")
    if media == _FORM:
        # Form values are text: only the members' presence can be held to the schema here.
        sent = dict(parse_qsl(request.body.decode("latin-1"), keep_blank_values=True))
        for name in contract.deref(schema).get("required") or []:
            if name not in sent:
                add("required", f"body.{name}", schema_ptr, f"required member {name!r} is missing")
        return found
    try:
        # Bounded in depth as a run reads a target's JSON (CONFORMANCE_MAX_JSON_DEPTH): a hostile
        # caller's nesting never reaches the validator's recursion. Too deep is not the caller's
        # mistake by the documents, only more than the harness reads: ``JsonTooDeep`` goes up (not checked).
        instance = loads(request.body)
    except JsonTooDeep:
        raise
    except (ValueError, UnicodeDecodeError):
        add("error", None, schema_ptr, "the body is not JSON")
        return found
    for error in validator(contract, schema).iter_errors(instance):
        where = place_of("body", error)
        add(kind_of(error), where, schema_ptr, f"{where}: {error.message}")
    return found


def _parameters(contract: Contract, index: RuleIndex, operation: str, request: Request,
                path_values: dict[str, str]) -> list[Finding]:
    method, path = operation.split(" ", 1)
    found: list[Finding] = []
    query: dict[str, list[str]] = {}
    for name, value in request.query:
        query.setdefault(name, []).append(value)
    seen: set[tuple[str, str]] = set()
    for param in [*contract.parameters(operation), *contract.path_parameters(operation)]:
        area, name = param.get("in", ""), param.get("name", "")
        if (area, name) in seen or area not in ("query", "path", "header"):
            continue
        seen.add((area, name))
        where = f"{area}.{name}"
        ptr = pointer("paths", path, method.lower(), "parameters")
        if area == "query":
            values = query.get(name)
        elif area == "path":
            values = [path_values[name]] if name in path_values else None
        else:
            got = request.header(name)
            values = None if got is None else [got]
        if not values:
            if param.get("required"):
                found.append(index.attribute(Finding(CALLER, "required", operation, where, ptr,
                                                     f"required {area} parameter {name!r} is missing")))
            continue
        schema = contract.deref(param.get("schema") or {})
        value = _typed(values, schema)
        if value is _UNTYPED:
            found.append(index.attribute(Finding(CALLER, "type", operation, where, ptr,
                                                 f"{where}: {values[0]!r} is not of type {schema.get('type')!r}")))
            continue
        for error in validator(contract, param.get("schema") or {}).iter_errors(value):
            found.append(index.attribute(Finding(CALLER, kind_of(error), operation, where, ptr,
                                                 f"{where}: {error.message}")))
    return found


_UNTYPED = object()


def _typed(values: list[str], schema: dict[str, Any]) -> Any:
    """A parameter's text as its schema's type (form style: arrays comma-separated), or ``_UNTYPED``."""
    kind = schema.get("type")
    try:
        if kind == "array":
            items = [v for text in values for v in text.split(",")]
            inner = schema.get("items") or {}
            typed = [_typed([v], inner) for v in items]
            return _UNTYPED if _UNTYPED in typed else typed
        text = values[0]
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
        if kind == "boolean":
            # The documents say "boolean", not how a query writes one: Python's True (shodan sends
            # minify=True) is the boolean in another case, not the caller's mistake.
            return {"true": True, "false": False}[text.lower()]
    except (ValueError, KeyError):
        return _UNTYPED
    return values[0]


def _auth(contract: Contract, index: RuleIndex, operation: str, request: Request) -> list[Finding]:
    """The credential where the operation's first security requirement puts it. Only names are
    written (the header sent instead), never a value."""
    found: list[Finding] = []
    for name, scheme in contract.security_for(operation):
        ptr = pointer("components", "securitySchemes", name)
        where, sent = _credential_place(scheme, request)
        if sent:
            continue
        other = sorted(h for h in request.headers if h.lower() in ("authorization", "x-api-key", "cookie")
                       and h.lower() != (where or "").split(".", 1)[-1].lower())
        instead = f"; sent {', '.join(other)} instead" if other else ""
        # An auth rule names one operation and may list the others it probes (``params.operations``).
        candidates = [r for r in contract.rules if r.kind == "auth" and r.where is None and (
            r.operation == operation or operation in (r.params.get("operations") or []))]
        rules = _auth_rules(candidates, {h.lower() for h in other})
        message = f"no credential where security scheme {name!r} puts it ({_describe(scheme)}){instead}"
        found.append(index.attribute(Finding(CALLER, "auth", operation, where, ptr, message), rules))
    return found


def _auth_rules(rules: list[Rule], sent: set[str]) -> list[Rule]:
    """The auth rules a request without the scheme's credential stands for, by what each sends
    (``params.as``): the one sending what the caller sent instead (``also``: Authorization), else
    the one sending nothing."""
    def shape(rule: Rule) -> tuple[bool, set[str]]:
        sends: Any = rule.params.get("as")
        sends = sends if isinstance(sends, dict) else {}
        also: Any = sends.get("also")
        return bool(sends.get("none")), {str(name).lower() for name in also} if isinstance(also, dict) else set()

    instead = [r for r in rules if shape(r)[0] and sent and shape(r)[1] & sent]
    return instead or [r for r in rules if shape(r)[0] and not shape(r)[1]]


def _credential_place(scheme: dict[str, Any], request: Request) -> tuple[str | None, bool]:
    kind = scheme.get("type")
    if kind == "apiKey":
        name, area = str(scheme.get("name", "")), scheme.get("in")
        if area == "header":
            return f"header.{name}", bool(request.header(name))
        if area == "query":
            return f"query.{name}", any(k == name and v for k, v in request.query)
        return f"cookie.{name}", f"{name}=" in (request.header("cookie") or "")
    wanted = "basic" if kind == "http" and str(scheme.get("scheme", "")).lower() == "basic" else "bearer"
    got = (request.header("authorization") or "").split(" ", 1)
    return "header.Authorization", len(got) == 2 and got[0].lower() == wanted and bool(got[1].strip())


def _describe(scheme: dict[str, Any]) -> str:
    if scheme.get("type") == "apiKey":
        return f"apiKey in {scheme.get('in')} {scheme.get('name')}"
    return f"{scheme.get('type')} {scheme.get('scheme', '')}".strip()


def credential_values(contract: Contract, request: Request) -> list[str]:
    """Every credential value the caller sent: what the security schemes name, and any
    Authorization, Proxy-Authorization or Cookie header. Scrubbed from whatever is written."""
    values: list[str] = []
    schemes = contract.openapi.get("components", {}).get("securitySchemes", {}) or {}
    for scheme in schemes.values():
        if scheme.get("type") == "apiKey":
            name = str(scheme.get("name", ""))
            if scheme.get("in") == "header" and request.header(name):
                values.append(str(request.header(name)))
            elif scheme.get("in") == "query":
                values += [v for k, v in request.query if k == name and v]
    for header in ("authorization", "proxy-authorization"):
        got = request.header(header)
        if got:
            values.append(got)
            token = got.split(" ", 1)
            if len(token) == 2 and token[1].strip():
                values.append(token[1].strip())
    cookie = request.header("cookie")
    if cookie:
        values += [part.split("=", 1)[1].strip() for part in cookie.split(";") if "=" in part and
                   part.split("=", 1)[1].strip()]
    return [v for v in values if len(v) >= 4]
