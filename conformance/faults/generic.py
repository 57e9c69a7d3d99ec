"""Faults every service gets, derived from its contract rather than written per service.

``enum-near-miss``: for each rule of kind ``enum`` over a string enum, a server that takes a
plausible wrong value (a dropped last letter, a plural) for the listed one, while
still refusing a plainly foreign value. A check that tries only one made-up value passes such a
server; the generic enum check must catch it. One fault per enum rule, named after the rule.

``refusal-as-404``: for each auth rule whose document names the refusal's status (401, 403), a
server that answers that refusal with 404 instead. A check that took any 4xx would pass it (and a
404 is also what a route the target does not serve gets); the refusal check holds a documented
status exactly. Where the document names no status, a 404 to a bad credential that differs from
the answer with a good one is a refusal (a server may hide a resource): no fault, by design.

``lenient-field``: for each derived ``fields`` rule, a server that does not validate one request
field (the first one probed): whatever is sent there, it uses the example's value, or, for a
query parameter, ignores it. The derived check must catch it.

``lenient-gap-type``: for each member a gap's about names (its values open, its type stated) that a
derived ``fields`` rule sends wrong-typed, a server that takes any value there (the example's is
used). A gap must not switch the type probe off.

``lenient-deep-field``: for each derived ``fields`` rule with probes below the example's depth,
a server that drops the first optional such member whatever its value (so takes any type there).
The derived check must reach it through its scaffold and catch it.

``broken-body-500``: for each derived ``body`` rule, a server that crashes (500) on a body that
does not parse as JSON: a client's mistake answered with a 5xx.

``any-well-formed-credential``: for each auth rule sending an invalid credential, a server that
checks only the credential's form: a value in the documented form (``Bearer <anything>``) is
taken as the seeded one. A probe sending a malformed value (no ``Bearer`` word) would pass it.

``route-crash``: for the first ``route-served`` rule of a service, a server answering 500 (502 where
the document tells clients to retry a 500: ``crashes.crash_status``): a crash is not a served route.

``crash-on-mistake``: for each gap probe sending a body that is not JSON, a server answering 500.

``bad-format``: for each service whose schema-checking rules read a response member with a
``format``, a server that writes "not-a-<format>" there: the validator's format checker must
catch it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from conformance.auth.variants import INVALID_CREDENTIAL, render, scheme_location
from conformance.checks.routes import example_settings, held_settings
from conformance.contract import Contract, Rule
from conformance.contract.derive import FORMAT_MISSES, MISSING, field_probes, under_gap
from conformance.faults.alternatives import alternative_faults
from conformance.faults.answers import answer_faults
from conformance.faults.base import Fault, derived_fault, on_request, on_response, path_pattern
from conformance.faults.counters import counter_faults
from conformance.faults.crashes import crash_status, refusal_crash_faults
from conformance.faults.credentials import credential_unchecked_faults
from conformance.faults.edits import edit_faults
from conformance.faults.effects import effect_faults
from conformance.faults.export_values import export_value_faults
from conformance.faults.headers import header_faults
from conformance.faults.lifecycle import lifecycle_faults
from conformance.faults.members import member_faults
from conformance.faults.methods import method_faults
from conformance.faults.oauth import oauth_faults
from conformance.faults.paging import paging_faults
from conformance.faults.reads import read_faults
from conformance.faults.requests import request_faults
from conformance.faults.siblings import sibling_faults
from conformance.faults.toolkit import any_request, operations
from conformance.faults.units import unit_faults
from conformance.faults.values import value_faults
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["generic_faults", "path_pattern"]


def _listed_for(value: Any, allowed: list[str]) -> str | None:
    """The listed value ``value`` nearly is (a letter short, a plural), else None. Another case is
    no near miss: a server folding case conforms (no document says matching is case-sensitive)."""
    if not isinstance(value, str) or value in allowed:
        return None
    for listed in allowed:
        if value == listed[:-1] or value == listed + "s":
            return listed
    return None


def _on_operation(rule: Rule) -> Callable[[Request], bool]:
    """Whether a request is to the rule's operation (every request when the rule names none)."""
    return operations([rule.operation]) if rule.operation else any_request


def _near_miss(rule: Rule, allowed: list[str]) -> Callable[[Simulator], Simulator]:
    assert rule.where
    area, _, dotted = rule.where.partition(".")
    on_operation = _on_operation(rule)

    def before(request: Request) -> Request:
        if not on_operation(request):
            return request
        if area == "query":
            request.query = [(k, _listed_for(v, allowed) or v) if k == dotted else (k, v) for k, v in request.query]
        elif area == "body" and "form" in (request.headers.get("content-type") or ""):
            pairs = parse_qsl(request.body.decode("utf-8", "replace"), keep_blank_values=True)
            request.body = urlencode([(k, _listed_for(v, allowed) or v) if k == dotted else (k, v)
                                      for k, v in pairs]).encode()
        elif area == "body":
            try:
                body = json.loads(request.body)
            except ValueError:
                return request
            node = body
            parts = dotted.split(".")
            for part in parts[:-1]:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, dict) and _listed_for(node.get(parts[-1]), allowed):
                node[parts[-1]] = _listed_for(node[parts[-1]], allowed)
                request.body = json.dumps(body).encode()
        return request

    return on_request(before)


def _refusal_as_404(rule: Rule, status: int) -> Callable[[Simulator], Simulator]:
    on_operation = _on_operation(rule)

    def after(request: Request, response: Response) -> Response:
        if response.status != status or not on_operation(request):
            return response
        return Response.json_response(404, {"message": "not found"})

    return on_response(after)


def generic_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        status = (rule.violation or {}).get("status")
        if rule.kind == "auth" and status in (401, 403):
            faults.append(derived_fault(
                f"refusal-as-404:{rule.id.split('.', 1)[1]}", rule.id,
                f"the documented {status} refusal of {rule.operation or 'every operation'} is answered 404",
            )(_refusal_as_404(rule, int(status))))
    for rule in contract.rules:
        if rule.kind != "enum" or not rule.operation or not rule.where:
            continue
        if not rule.where.startswith(("query.", "body.")):
            continue
        try:
            allowed = contract.where_schema(rule.operation, rule.where).get("enum") or []
        except KeyError:
            continue
        if not allowed or not all(isinstance(v, str) for v in allowed):
            continue
        faults.append(derived_fault(
            f"enum-near-miss:{rule.id.split('.', 1)[1]}", rule.id,
            f"{rule.operation} takes a near miss of a listed {rule.where} (a letter short, a plural) "
            "for the listed value, while refusing a plainly foreign one",
        )(_near_miss(rule, list(allowed))))
    return (faults + derived_faults(contract) + credential_faults(contract) + route_faults(contract)
            + mistake_faults(contract) + member_faults(contract) + answer_faults(contract)
            + header_faults(contract) + credential_unchecked_faults(contract) + refusal_crash_faults(contract)
            + paging_faults(contract) + edit_faults(contract) + effect_faults(contract)
            + value_faults(contract) + request_faults(contract) + oauth_faults(contract)
            + lifecycle_faults(contract) + counter_faults(contract) + alternative_faults(contract)
            + read_faults(contract) + unit_faults(contract) + export_value_faults(contract)
            + method_faults(contract) + sibling_faults(contract))


def _rendered(node: Any, seeded: dict[str, str]) -> Any:
    """The example with ``{NAME}`` settings filled from the simulator's seeded values."""
    if isinstance(node, str) and "{" in node:
        try:
            return render(node, lambda n: seeded[n])
        except KeyError:
            return node
    if isinstance(node, list):
        return [_rendered(v, seeded) for v in node]
    if isinstance(node, dict):
        return {k: _rendered(v, seeded) for k, v in node.items()}
    return node


def _lenient(rule: Rule, where: str, raw_example: Any) -> Callable[[Simulator], Simulator]:
    area, _, dotted = where.partition(".")
    on_operation = _on_operation(rule)
    parts = dotted.split(".")

    def wrap(sim: Simulator) -> Simulator:
        example = _rendered(raw_example, dict(getattr(sim, "credentials", {}) or {}))

        def before(request: Request) -> Request:
            if not on_operation(request):
                return request
            if area == "query":
                request.query = [(k, v) for k, v in request.query if k != dotted]
                return request
            try:
                body = json.loads(request.body)
            except ValueError:
                return request
            node, want = body, example
            for part in parts[:-1]:
                key: Any = int(part) if isinstance(node, list) else part
                try:
                    node, want = node[key], want[key]
                except (KeyError, IndexError, TypeError):
                    return request
            last: Any = int(parts[-1]) if isinstance(node, list) else parts[-1]
            try:
                node[last] = want[last]
            except (KeyError, IndexError, TypeError):
                return request
            request.body = json.dumps(body).encode()
            return request

        return on_request(before)(sim)

    return wrap


def _crash_on_unparsable(rule: Rule) -> Callable[[Simulator], Simulator]:
    on_operation = _on_operation(rule)

    def after(request: Request, response: Response) -> Response:
        if not on_operation(request):
            return response
        try:
            json.loads(request.body)
        except ValueError:
            return Response.json_response(500, {"message": "internal error"})
        return response

    return on_response(after)


def _leniency_point(contract: Contract, rule: Rule) -> str | None:
    """The first probed field the example gives a value for (body) or that is optional (query)."""
    assert rule.operation
    example = contract.request_example(rule.operation)
    required_query = {p.where for p in field_probes(contract, rule.operation)
                      if p.value is MISSING and p.where.startswith("query.")}
    for probe in field_probes(contract, rule.operation):
        area, _, dotted = probe.where.partition(".")
        if area == "query" and probe.where not in required_query:
            return probe.where
        if area == "body":
            node: Any = example
            for part in dotted.split("."):
                key: Any = int(part) if isinstance(node, list) and part.isdigit() else part
                try:
                    node = node[key]
                except (KeyError, IndexError, TypeError):
                    node = MISSING
                    break
            if node is not MISSING:
                return probe.where
    return None


def _gap_type_points(contract: Contract, operation: str) -> list[str]:
    """Each member a gap's about names, that the example holds, whose documented type is still
    probed (a gap leaves open only what it names, contract/derive.py)."""
    example = contract.request_example(operation)
    out: list[str] = []
    for probe in field_probes(contract, operation):
        area, _, dotted = probe.where.partition(".")
        if area != "body" or probe.aspect != "type" or probe.scaffold is not None \
                or not under_gap(contract, operation, probe.where):
            continue
        node: Any = example
        for part in dotted.split("."):
            node = node.get(part, MISSING) if isinstance(node, dict) else MISSING
        if node is not MISSING and probe.where not in out:
            out.append(probe.where)
    return out


def _deep_point(contract: Contract, operation: str) -> str | None:
    """The first optional member the example does not hold whose wrong-type probe needs a scaffold
    (the probes below the example's depth, contract/derive.py)."""
    for probe in field_probes(contract, operation):
        if probe.scaffold is None or probe.aspect != "type" or probe.where == probe.scaffold[0]:
            continue
        parent, _, name = probe.where.rpartition(".")
        if name.isdigit():
            continue  # a list's item: dropping it is not taking a wrong type
        try:
            required = contract.where_schema(operation, parent).get("required") or ()
        except (KeyError, TypeError):
            continue
        if name not in required:
            return probe.where
    return None


def _dropped(rule: Rule, where: str) -> Callable[[Simulator], Simulator]:
    on_operation = _on_operation(rule)
    parts = where.partition(".")[2].split(".")

    def before(request: Request) -> Request:
        if not on_operation(request):
            return request
        try:
            body = json.loads(request.body)
        except ValueError:
            return request
        node = body
        for part in parts[:-1]:
            try:
                node = node[int(part)] if isinstance(node, list) else node[part]
            except (KeyError, IndexError, TypeError, ValueError):
                return request
        if isinstance(node, dict) and parts[-1] in node:
            del node[parts[-1]]
            request.body = json.dumps(body).encode()
        return request

    return on_request(before)


def _formatted_members(contract: Contract, schema: Any,
                       path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """(member path, format) of each formatted member of a response schema (objects only)."""
    schema = contract.deref(schema) if isinstance(schema, dict) else {}
    out: list[tuple[tuple[str, ...], str]] = []
    if isinstance(schema.get("format"), str) and path and schema["format"] in FORMAT_MISSES:
        out.append((path, schema["format"]))
    for name, sub in (schema.get("properties") or {}).items():
        out += _formatted_members(contract, sub, (*path, name))
    return out



def _bad_format(rule: Rule, members: list[tuple[tuple[str, ...], str]]) -> Callable[[Simulator], Simulator]:
    on_operation = _on_operation(rule)

    def after(request: Request, response: Response) -> Response:
        if not on_operation(request) or not 200 <= response.status < 300:
            return response
        try:
            body = json.loads(response.body)
        except ValueError:
            return response
        changed = False
        for path, fmt in members:
            node = body
            for part in path[:-1]:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, dict) and isinstance(node.get(path[-1]), str):
                node[path[-1]] = f"not-a-{fmt}"
                changed = True
        if changed:
            response.body = json.dumps(body).encode()
        return response

    return on_response(after)


def derived_faults(contract: Contract) -> list[Fault]:
    """The faults that prove the derived checks and the format checker (module doc)."""
    faults: list[Fault] = []
    for rule in contract.rules:
        short = rule.id.split(".", 2)[2]
        if rule.kind == "fields" and rule.operation:
            where = _leniency_point(contract, rule)
            if where:
                faults.append(derived_fault(f"lenient-field:{short}", rule.id,
                                    f"{rule.operation} does not validate {where}: any value is taken")(
                    _lenient(rule, where, contract.request_example(rule.operation))))
        if rule.kind == "fields" and rule.operation:
            for kept in _gap_type_points(contract, rule.operation):
                faults.append(derived_fault(f"lenient-gap-type:{short}:{kept.partition('.')[2]}", rule.id,
                                    f"{rule.operation} does not validate {kept}, whose values a gap leaves open but "
                                    "whose type the document states: any value is taken")(
                    _lenient(rule, kept, contract.request_example(rule.operation))))
            deep = _deep_point(contract, rule.operation)
            if deep:
                faults.append(derived_fault(f"lenient-deep-field:{short}", rule.id,
                                    f"{rule.operation} does not validate {deep}, which the example does not hold: "
                                    "a value of any type there is dropped")(_dropped(rule, deep)))
        elif rule.kind == "body" and rule.operation:
            faults.append(derived_fault(f"broken-body-500:{short}", rule.id,
                                        f"{rule.operation} answers a body that is not JSON with 500")(
                _crash_on_unparsable(rule)))
    seen_ops: set[str] = set()
    for rule in contract.rules:
        if rule.kind != "schema" or not rule.operation or rule.operation in seen_ops:
            continue
        members = [m for status in (200, 201) for m in _formatted_members(
            contract, contract.response_schema(rule.operation, status) or {})]
        if members:
            seen_ops.add(rule.operation)
            faults.append(derived_fault(f"bad-format:{rule.id.split('.', 1)[1]}", rule.id,
                                f"{rule.operation} answers {', '.join('.'.join(p) for p, _ in members)} "
                                "with a value outside the documented format")(_bad_format(rule, members)))
    return faults


def _any_well_formed(contract: Contract, rule: Rule) -> Callable[[Simulator], Simulator] | None:
    schemes = contract.security_for(rule.operation)
    if not schemes:
        return None

    def wrap(sim: Simulator) -> Simulator:
        seeded = dict(getattr(sim, "credentials", {}) or {})
        swaps = []
        for _name, scheme in schemes:
            template = str(scheme.get("x-credential", ""))
            try:
                valid = render(template, lambda n: seeded[n])
            except KeyError:
                continue
            swaps.append((scheme_location(scheme), render(template, lambda _n: INVALID_CREDENTIAL), valid))

        def before(request: Request) -> Request:
            for (where, name), invalid, valid in swaps:
                if where == "header" and request.headers.get(name.lower()) == invalid:
                    request.headers[name.lower()] = valid
                elif where == "query":
                    request.query = [(k, valid if k == name and v == invalid else v) for k, v in request.query]
            return request

        return on_request(before)(sim)

    return wrap


def credential_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        if rule.kind == "auth" and (rule.params.get("as") or {}).get("invalid"):
            wrap = _any_well_formed(contract, rule)
            if wrap is not None:
                faults.append(derived_fault(f"any-well-formed-credential:{rule.id.split('.', 1)[1]}", rule.id,
                                    "any credential in the documented form is taken as a valid one")(wrap))
    return faults


def _answer(rule: Rule, status: int, headers: dict[str, str] | None = None,
            operation: str | None = None) -> Callable[[Simulator], Simulator]:
    on_operation = operations([operation]) if operation else _on_operation(rule)

    def after(request: Request, response: Response) -> Response:
        if not on_operation(request):
            return response
        return Response.json_response(status, {"message": "conformance fault"}, headers)

    return on_response(after)


def mistake_faults(contract: Contract) -> list[Fault]:
    """For each gap probe sending a body that is not JSON: a server crashing on it."""
    return [derived_fault(f"crash-on-mistake:{r.id.split('.', 1)[1]}", r.id, "a body that is not JSON is answered 500")(
        _crash_on_unparsable(r)) for r in contract.rules
        if r.params.get("check") == "gap-probe" and r.params.get("body") == "malformed-json"]


def _path_parameters(contract: Contract, operation: str) -> list[dict[str, Any]]:
    own = contract.parameters(operation)
    names = {p.get("name") for p in own}
    shared = [p for p in contract.path_parameters(operation) if p.get("name") not in names]
    return [p for p in (*shared, *own) if p.get("in") == "path"]


def _held(contract: Contract, rule: Rule, operation: str) -> bool:
    """Whether the rule holds the operation's path (and example body) to settings naming ids the target holds."""
    has_body = bool(contract.operation(operation).get("requestBody"))
    body = example_settings(contract.request_example(operation)) if has_body else []
    return held_settings(_path_parameters(contract, operation), list(rule.params.get("held") or []), body) is not None


def _slug(operation: str) -> str:
    """``DELETE /custom-tags/{id}`` as ``delete-custom-tags-id``: a fault name's tail."""
    return "-".join("".join(c if c.isalnum() else " " for c in operation.lower()).split())


def route_faults(contract: Contract) -> list[Fault]:
    """For every ``route-served`` rule: the route missing (404, unless the rule reads a 404 as
    "none for this id" where no ``held`` setting gives the id) and the listed method missing (405
    naming another method in Allow), each where the rule's ``missing_statuses`` lists it, on its
    operation (the last of its ``operations``: a check that stops early misses it), and the route
    missing for each placeholder operation whose ids ``held`` settings give and for each route
    whose id a documented create gives (``created``); for the first rule, a crash (500)."""
    served = [(r, str((r.params.get("operations") or [r.operation])[-1])) for r in contract.rules
              if r.params.get("check") == "route-served" and (r.operation or r.params.get("operations"))]
    faults: list[Fault] = []
    for rule, operation in served:
        short = rule.id.split(".", 1)[1]
        missing = set(rule.params.get("missing_statuses") or ())
        held = [op for op in rule.params.get("placeholder_operations") or [] if _held(contract, rule, op)]
        # One fault per held route: each is its own way of being missing (the last keeps the plain name).
        for n, held_operation in enumerate(held if 404 in missing else []):
            name = f"held-route-missing:{short}" + ("" if n == len(held) - 1 else f":{_slug(held_operation)}")
            says = f"{held_operation} answers 404 for the id a setting gives (the route is missing)"
            faults.append(derived_fault(name, rule.id, says)(_answer(rule, 404, operation=held_operation)))
        if 404 in missing and (404 not in (rule.params.get("none_statuses") or ()) or _held(contract, rule, operation)
                               or "held_when" in rule.params):
            faults.append(derived_fault(f"route-missing:{short}", rule.id,
                                        f"{operation} answers 404 (the listed route is missing)")(
                _answer(rule, 404, operation=operation)))
        if 405 in missing:
            method = operation.split(" ", 1)[0]
            other = "GET" if method != "GET" else "POST"
            faults.append(derived_fault(f"method-missing:{short}", rule.id,
                                        f"{operation} answers 405; the route serves only {other}")(
                _answer(rule, 405, {"allow": other}, operation=operation)))
    for rule in contract.rules:  # a rule may hold no route but created ones
        if rule.params.get("check") != "route-served" or 404 not in (rule.params.get("missing_statuses") or ()):
            continue
        for created in rule.params.get("created") or []:
            name = f"created-route-missing:{rule.id.split('.', 1)[1]}:{_slug(created['call'])}"
            says = f"{created['call']} answers 404 for the id a documented create just gave (the route is missing)"
            faults.append(derived_fault(name, rule.id, says)(_answer(rule, 404, operation=created["call"])))
    if served:
        rule, operation = served[0]
        crash = crash_status(contract)  # not a status the document says to retry
        faults.append(derived_fault(f"route-crash:{rule.id.split('.', 1)[1]}", rule.id,
                                    f"{operation} answers {crash}")(_answer(rule, crash, operation=operation)))
    return faults
