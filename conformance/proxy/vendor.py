"""The vendor's side of an exchange: the upstream's answer held to what the documents say of it.

- the status is documented for the operation; an undocumented one is observed (the documents do not
  list every status), an undocumented 5xx fails (the service broke, whatever it was sent);
- the answer's content type is one documented for that status (when it has a body);
- the body is valid under the documented schema for that status (JSON the harness reads: bounded
  in depth as in a run);
- the documented response headers are there, and hold their schema; the catalogue's header rules
  (``check: response-header``) hold on every exchange of the operations they name.

Which rules an exchange touches: the ``schema`` rules checked by the generic shape check
(``check: response-shape``) over the operation when the answer is a 2xx with a body, the header
rules that cover the operation, and the route and media-type rules one exchange shows
(``routes.py``). A check with no such rule still runs and is reported against the schema's
JSON pointer. A bodiless answer is not held to a schema (the documents allow some, e.g. a bodiless
201), and counts for no rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jsonschema

from conformance.contract.model import Contract, Rule
from conformance.contract.validation import body_error, validator
from conformance.proxy.findings import OBSERVED, VENDOR, Finding, RuleIndex, pointer
from conformance.proxy.routes import route_findings
from conformance.proxy.schemas import place_of
from conformance.transport.model import Response

__all__ = ["VendorResult", "vendor_findings"]


@dataclass
class VendorResult:
    touched: list[str] = field(default_factory=list)  # rule ids this exchange exercised
    findings: list[Finding] = field(default_factory=list)


def vendor_findings(contract: Contract, index: RuleIndex, operation: str, response: Response) -> VendorResult:
    method, path = operation.split(" ", 1)
    op_ptr = ("paths", path, method.lower())
    result = VendorResult()
    responses = contract.operation(operation).get("responses", {}) or {}
    status = response.status
    code = str(status) if str(status) in responses else f"{str(status)[0]}XX"
    if status not in contract.documented_statuses(operation):
        # The documents do not list every status an operation can give (each silence is a gap, as
        # checks/generic.py leaves out schemathesis's status_code_conformance): an undocumented
        # status is observed. An undocumented 5xx is a failure: the service broke, whatever was sent.
        documented = ", ".join(sorted(responses)) or "none"
        finding = Finding(VENDOR, "status", operation, None, pointer(*op_ptr, "responses"),
                          f"status {status} is not documented for {operation} (documented: {documented})")
        if status < 500:
            finding.verdict = OBSERVED
        result.findings.append(index.attribute(finding))
    else:
        spec = contract.resolve(responses.get(code) or responses.get(code.lower()) or {})
        _body(contract, index, operation, response, spec, (*op_ptr, "responses", code), result)
        _documented_headers(contract, index, operation, response, spec, (*op_ptr, "responses", code), result)
    _header_rules(index, operation, response, result)
    touched, found = route_findings(index, operation, response)
    result.touched += touched
    result.findings += found
    return result


def _shape_rules(index: RuleIndex, operation: str, status: int) -> list[Rule]:
    """The response-shape rules over ``operation`` (their own, or listed in ``operations``, as a run
    calls them) that any caller's 2xx answer shows. Not those about one credential (``as``: a free
    key, an OAuth token; the proxy cannot tell which kind a caller holds) or a second host
    (``same_on``), and a rule's ``status`` only when answered."""
    return [r for r in index.contract.rules if r.kind == "schema" and r.params.get("check") == "response-shape"
            and operation in (r.params.get("operations") or [r.operation])
            and "as" not in r.params and "same_on" not in r.params and r.params.get("status", status) == status]


def _body(contract: Contract, index: RuleIndex, operation: str, response: Response, spec: dict[str, Any],
          at: tuple[str, ...], result: VendorResult) -> None:
    content = spec.get("content") or {}
    if not content or not response.body:
        return
    sent = (response.header("content-type") or "").split(";")[0].strip().lower()
    if sent not in {m.lower() for m in content}:
        result.findings.append(index.attribute(Finding(
            VENDOR, "schema", operation, None, pointer(*at, "content"),
            f"{response.status} answered as {sent or 'no content type'}; documented: {', '.join(content)}"), []))
        return
    media = sent if sent in content else next(m for m in content if m.lower() == sent)
    schema = (content.get(media) or {}).get("schema")
    if not schema or not (media == "application/json" or media.endswith("+json")):
        return
    rules = _shape_rules(index, operation, response.status) if 200 <= response.status < 300 else []
    result.touched += [r.id for r in rules]
    ptr = pointer(*at, "content", media, "schema")
    problem = response.json_problem()
    if problem is not None:
        result.findings.append(index.attribute(Finding(
            VENDOR, "schema", operation, None, ptr, f"{response.status} body is {problem}"), rules))
        return
    instance = response.json()
    error = body_error(contract, schema, response.body, instance)
    if error is not None:
        where, message = error
        # The same best match again, as an error object: its place names a missing member itself.
        best = jsonschema.exceptions.best_match(validator(contract, schema).iter_errors(instance))
        place = "response" if best is None else place_of("response", best)
        result.findings.append(index.attribute(Finding(
            VENDOR, "schema", operation, place, ptr, f"{response.status} body at {where}: {message}"), rules))


def _documented_headers(contract: Contract, index: RuleIndex, operation: str, response: Response,
                        spec: dict[str, Any], at: tuple[str, ...], result: VendorResult) -> None:
    covered = {h.lower() for r in _header_rules_for(index, operation) for h in r.params.get("headers") or []}
    for name, header in (spec.get("headers") or {}).items():
        if name.lower() in covered:
            continue  # the catalogue's rule checks it (below), attributed to the rule
        header = contract.resolve(header)
        ptr = pointer(*at, "headers", name)
        value = response.header(name)
        if value is None:
            if header.get("required"):
                result.findings.append(index.attribute(Finding(
                    VENDOR, "header", operation, f"header.{name}", ptr, f"{response.status}: no {name} header"), []))
            continue
        schema = header.get("schema")
        if schema:
            for error in validator(contract, schema).iter_errors(value):
                result.findings.append(index.attribute(Finding(
                    VENDOR, "header", operation, f"header.{name}", ptr, f"{response.status}: {name}: {error.message}"),
                    []))
                break


def _header_rules_for(index: RuleIndex, operation: str) -> list[Rule]:
    """The catalogue's header rules that hold for every answer of ``operation``: those it names,
    or (no operation, no probes) every operation's."""
    out = []
    for rule in index.contract.rules:
        if rule.kind != "header" or rule.params.get("check") != "response-header" or rule.depends_on:
            continue
        probes = {p.get("operation") for p in rule.params.get("probes") or [] if isinstance(p, dict)}
        if rule.operation == operation or operation in probes or (rule.operation is None and not probes):
            out.append(rule)
    return out


def _header_rules(index: RuleIndex, operation: str, response: Response, result: VendorResult) -> None:
    for rule in _header_rules_for(index, operation):
        result.touched.append(rule.id)
        missing = [h for h in rule.params.get("headers") or [] if response.header(h) is None]
        if missing:
            result.findings.append(index.attribute(Finding(
                VENDOR, "header", operation, None, "",
                f"{response.status}: no {', '.join(missing)} header{'s' if len(missing) > 1 else ''}"), [rule]))
