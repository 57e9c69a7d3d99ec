"""Rules derived from openapi.yaml: every documented request field sent wrong, every JSON body broken.

Adding a field to a contract adds its probes, with no code. For each operation:

* ``<service>.request-fields.<operation>`` (kind ``fields``), when the operation documents a
  request field with something to hold it to: each field of the JSON body (at every depth the
  schema documents, array items included) and each query or path parameter is sent with a value of
  the wrong type, a value outside its format, left out where required, just past each bound, and
  off its list (a foreign value, a letter short, a plural, any ``x-outside`` values the schema
  names, and the plausible foreign values of ``contract/foreign.py``: the document's own words
  around the list, another list's values, siblings of the listed ones; no other-case spelling: no
  document says matching is case-sensitive). An operation no
  fixed example can call (an OAuth step) says why in ``x-no-derived-probes`` and gets none.
* ``<service>.request-body.<operation>`` (kind ``body``), when the operation takes a JSON body:
  a body that does not parse, a body of another media type, and (where a body is required) none.

Each probe expects the status the document names for such input (``x-refusal-status`` on the
operation, else at the top of openapi.yaml: ``invalid``, ``malformed``, ``media``), else any 4xx,
after the example request (the control) succeeded; a 5xx fails everywhere. A member the example
does not hold is reached through a scaffold: a value its schema documents for the first member on
the way that the example lacks (the smallest: required members only, each from the schema's example,
default, first listed value or bounds; else the fullest that can be made), sent alone first as a
control of its own. A point a gap
says the documents leave open (``about``) is not probed, except for its documented type: a wrong-typed
value stays refused unless the gap's ``about`` entry says ``type: open`` (a member the operation may
ignore). This module is data only: the checks that send the probes are
``conformance/checks/derived.py``.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace
from typing import Any, cast

from conformance.contract.foreign import foreign_values
from conformance.contract.model import Contract, Rule, Source

__all__ = ["FORMAT_MISSES", "MISSING", "Probe", "body_probes", "derived_rules", "field_probes", "minimal_value",
           "refusal_status", "under_gap"]

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<left out>"})()

# A value no member of the format can be.
FORMAT_MISSES = {
    "date-time": "not-a-date-time", "date": "not-a-date", "time": "not-a-time", "uuid": "not-a-uuid",
    "email": "not-an-email", "uri": "not a uri", "ipv4": "not-an-ip", "ipv6": "not-an-ip",
    "hostname": "not a hostname",
}
# Values of other JSON types, tried in order until one is of none of the documented types. An
# object comes first: a number or a boolean could be read back as its text by a lenient server
# taking a string, an object cannot.
_WRONG_VALUES: tuple[Any, ...] = ({"conformance": "wrong type"}, "wrong-type", ["conformance"], True)


@dataclass(frozen=True)
class Probe:
    where: str  # body.a.b (list items by index: body.a.0.b), query.x, path.id
    label: str  # what is wrong with the value, for the report
    value: Any  # MISSING: leave the member out
    # Where the example lacks a member on the way to ``where``: (that member's where, values for it
    # that hold the way down, tried in order: the smallest documented, then the fullest), set before
    # ``value``; the body with it alone is the probe's own control (module doc).
    scaffold: tuple[str, tuple[Any, ...]] | None = None
    aspect: str = ""  # "type": a wrong-type probe, the one a gap's about keeps (module doc)


def _slug(operation: str) -> str:
    method, path = operation.split(" ", 1)
    return re.sub(r"[^a-z0-9]+", "-", f"{method} {path}".lower()).strip("-")


def refusal_status(contract: Contract, operation: str, what: str) -> int | None:
    """The documented status for ``what`` (invalid, malformed, media) input to the operation."""
    for holder in (contract.operation(operation), contract.openapi):
        status = (holder.get("x-refusal-status") or {}).get(what)
        if status is not None:
            return int(status)
    return None


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) else list(kind or [])


def _bound_probes(where: str, schema: dict[str, Any], text: bool) -> list[Probe]:
    out: list[Probe] = []
    types = _types(schema)
    if "string" in types:
        if "maxLength" in schema:
            out.append(Probe(where, f"maxLength {schema['maxLength']} + 1", "a" * (schema["maxLength"] + 1)))
        if schema.get("minLength", 0) > 0:
            out.append(Probe(where, f"minLength {schema['minLength']} - 1", "a" * (schema["minLength"] - 1)))
    if "array" in types and not text:
        item = (schema.get("items") or {})
        filler = (lambda i: i) if _types(item)[:1] in (["integer"], ["number"]) else (lambda i: f"item-{i}")
        if "maxItems" in schema:
            out.append(Probe(where, f"maxItems {schema['maxItems']} + 1",
                             [filler(i) for i in range(schema["maxItems"] + 1)]))
        if schema.get("minItems", 0) > 0:
            out.append(Probe(where, f"minItems {schema['minItems']} - 1",
                             [filler(i) for i in range(schema["minItems"] - 1)]))
    if "integer" in types or "number" in types:
        step = 1 if "integer" in types else 0.5
        for key, sign in (("maximum", 1), ("minimum", -1)):
            if key in schema:
                value = schema[key] + sign * step
                out.append(Probe(where, f"{key} {schema[key]} {'+' if sign > 0 else '-'} {step}",
                                 str(value) if text else value))
        for key in ("exclusiveMaximum", "exclusiveMinimum"):
            if key in schema:
                out.append(Probe(where, f"{key} {schema[key]} (at it)", str(schema[key]) if text else schema[key]))
    return out


def _enum_probes(contract: Contract, where: str, schema: dict[str, Any], text: bool) -> list[Probe]:
    # The contract, not only the schema: an enum's foreign values come from the whole document
    # (its sentences, its other lists).
    allowed = schema.get("enum")
    if not allowed:
        return []
    if all(isinstance(v, int) and not isinstance(v, bool) for v in allowed):
        candidates: list[Any] = [max(allowed) + 1, min(allowed) - 1]
    elif all(isinstance(v, str) for v in allowed):
        candidates = ["zz-not-listed"]
        for value in [v for v in allowed if len(v) > 1][:3]:
            candidates += [value[:-1], value + "s"]
    else:
        return []
    candidates += list(schema.get("x-outside") or ())
    candidates += foreign_values(contract, allowed)  # what a real server would wrongly take
    # Never another case of a listed value: a server folding case conforms (case-folding-enums).
    folded = {v.casefold() for v in allowed if isinstance(v, str)}
    out: list[Probe] = []
    for value in candidates:
        if isinstance(value, str) and value.casefold() in folded:
            continue
        if value not in allowed and all(p.value != value for p in out):
            shown = str(value) if text else value
            out.append(Probe(where, f"off the list {value!r}", shown))
    return out


def _json_type(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", dict: "object",
            list: "array"}[type(value)]


def _wrong_type(types: list[str], text: bool) -> Any:
    """A value of none of the documented types (MISSING when none exists on the wire)."""
    if text:
        # On the wire a query, path or form value is text: only numbers can be sent wrong.
        return "not-a-number" if types and all(t in ("integer", "number", "null") for t in types) else MISSING
    if types and all(t in ("integer", "number", "null") for t in types):
        return "not-a-number"
    for value in _WRONG_VALUES:
        kind = _json_type(value)
        if kind not in types and not (kind == "integer" and "number" in types):
            return value
    return MISSING


def _leaf_probes(contract: Contract, where: str, schema: dict[str, Any], *, text: bool) -> list[Probe]:
    types = _types(schema)
    out: list[Probe] = []
    wrong = _wrong_type(types, text) if types else MISSING
    if wrong is not MISSING:
        out.append(Probe(where, f"wrong type ({_json_type(wrong) if not text else 'text'} for {'/'.join(types)})",
                         wrong, aspect="type"))
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in FORMAT_MISSES and ("string" in types or not types):
        out.append(Probe(where, f"not a {fmt}", FORMAT_MISSES[fmt]))
    out += _bound_probes(where, schema, text)
    out += _enum_probes(contract, where, schema, text)
    return out


_UNMADE = object()  # no value of the schema can be made without guessing (a pattern, a format)
# A value of each format that any server taking the format must parse (scaffolds only).
_FORMAT_SAMPLES = {"date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01", "email": "conformance@example.com",
                   "uri": "https://example.com/conformance"}


def minimal_value(contract: Contract, schema: dict[str, Any], *, full: bool = False) -> Any:
    """The smallest value ``schema`` documents (required members only; a string from its example,
    default, first listed value, format sample or length bounds), or ``_UNMADE``. ``full``: every
    member that can be made, and one item in each list (for a target that needs what the document
    does not mark required)."""
    schema = contract.deref(schema)
    for key in ("example", "default"):
        if key in schema:
            return copy.deepcopy(schema[key])
    if schema.get("enum"):
        return copy.deepcopy(schema["enum"][0])
    types = [t for t in _types(schema) if t != "null"] or (["object"] if "properties" in schema else [])
    kind = types[0] if types else None
    if kind == "object":
        out: dict[str, Any] = {}
        required = list(schema.get("required") or ())
        for name, sub in (schema.get("properties") or {}).items():
            if name not in required and (not full or contract.deref(sub).get("readOnly")):
                continue
            member = minimal_value(contract, sub, full=full)
            if member is _UNMADE and name in required:
                return _UNMADE
            if member is not _UNMADE:
                out[name] = member
        return out
    if kind == "array":
        count = max(schema.get("minItems", 0), 1 if full else 0)
        if not count:
            return []
        item = minimal_value(contract, schema.get("items") or {}, full=full)
        if item is _UNMADE:
            return _UNMADE if schema.get("minItems") else []
        return [copy.deepcopy(item) for _ in range(count)]
    if kind == "string":
        if "pattern" in schema or ("format" in schema and schema["format"] not in _FORMAT_SAMPLES):
            return _UNMADE
        if "format" in schema:
            return _FORMAT_SAMPLES[schema["format"]]
        return "conformance"[:schema.get("maxLength", 11)].ljust(schema.get("minLength", 0), "x")
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1 if "exclusiveMinimum" in schema else 1)
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 1) - 1 if "exclusiveMaximum" in schema
                          else low)
        return low if low <= high else _UNMADE
    if kind == "boolean":
        return False
    return _UNMADE


def _made(contract: Contract, schema: dict[str, Any], full: bool) -> Any:
    made = minimal_value(contract, schema, full=full)
    if made is not _UNMADE and _types(contract.deref(schema))[:1] == ["array"] and not made:
        item = minimal_value(contract, contract.deref(schema).get("items") or {}, full=full)
        made = _UNMADE if item is _UNMADE else [item]  # one item, so members inside items are reached
    return made


def _way_down(contract: Contract, schema: dict[str, Any], where: str,
              scaffold: tuple[str, tuple[Any, ...]] | None) -> tuple[str, tuple[Any, ...]] | None:
    """The scaffold that makes ``where`` (a member the example lacks, schema ``schema``) exist:
    a new one at ``where``, or the outer one with a made value set at ``where`` inside it. Its
    values are tries in order: the smallest, then the fullest where that differs."""
    tries: list[Any] = []
    for n, full in enumerate((False, True)):
        made = _made(contract, schema, full)
        if made is _UNMADE:
            continue
        if scaffold is None:
            tree = made
        else:
            anchor, trees = scaffold
            tree = copy.deepcopy(trees[min(n, len(trees) - 1)])
            node = tree
            parts = where[len(anchor) + 1:].split(".")
            for part in parts[:-1]:
                node = node[int(part)] if isinstance(node, list) else node[part]
            if isinstance(node, list):
                node[int(parts[-1])] = made
            else:
                node[parts[-1]] = made
        if tree not in tries:
            tries.append(tree)
    if not tries:
        return None
    return (where if scaffold is None else scaffold[0]), tuple(tries)


_ABSENT = object()  # the example holds no member here (probes below it need a scaffold)


def _body_probes(contract: Contract, schema: dict[str, Any], example: Any, where: str, text: bool,
                 scaffold: tuple[str, tuple[Any, ...]] | None = None) -> list[Probe]:
    schema = contract.deref(schema)
    out: list[Probe] = []
    if (isinstance(example, dict) or example is _ABSENT) and isinstance(schema.get("properties"), dict):
        required = set(schema.get("required") or ())
        for name, sub in schema["properties"].items():
            member = f"{where}.{name}"
            sub = contract.deref(sub)
            if sub.get("readOnly"):
                continue  # not a request field (documented as output only)
            here: list[Probe] = []
            if name in required:
                here.append(Probe(member, "left out (required)", MISSING))
            here += _leaf_probes(contract, member, sub, text=text)
            out += [replace(p, scaffold=scaffold) for p in here] if scaffold else here
            if isinstance(example, dict) and name in example:
                out += _body_probes(contract, sub, example[name], member, text, scaffold)
            elif not text and (sub.get("properties") or sub.get("items")):
                # Deeper than the example: reached through a scaffold (module doc).
                way = _way_down(contract, sub, member, scaffold)
                if way is not None:
                    out += _body_probes(contract, sub, _ABSENT, member, text, way)
    elif isinstance(schema.get("items"), dict) and (isinstance(example, list) or example is _ABSENT):
        item = contract.deref(schema["items"])
        if example is _ABSENT or not example:
            if example is not _ABSENT and not text:
                scaffold = _way_down(contract, schema, where, scaffold)  # an empty list: one item made
            if scaffold is None or text:
                return out
            first: Any = _ABSENT
        else:
            first = cast("list[Any]", example)[0]  # a list with items: _ABSENT was ruled out above
        if isinstance(first, dict) or (first is _ABSENT and item.get("properties")):
            out += _body_probes(contract, item, first, f"{where}.0", text, scaffold)
        else:
            here = _leaf_probes(contract, f"{where}.0", item, text=text)
            out += [replace(p, scaffold=scaffold) for p in here] if scaffold else here
    return out


def _parameters(contract: Contract, operation: str) -> list[dict[str, Any]]:
    return [*contract.path_parameters(operation), *contract.parameters(operation)]


def _open_points(contract: Contract, operation: str) -> list[tuple[str | None, bool]]:
    """(where, whether the gap leaves the type open too) of each point a gap holds open."""
    return [(where, where in gap.open_types) for gap in contract.gaps for op, where in gap.about if op == operation]


def _is_open(probe: Probe, open_points: list[tuple[str | None, bool]]) -> bool:
    # A gap leaves open what it names (values, presence, members not shown), not a type the
    # document gives: a wrong-typed value stays refused unless the gap says the type is open too. A gap
    # over a whole operation (no member) leaves everything of it open.
    return any(p is None or ((probe.where == p or probe.where.startswith(p + "."))
                             and (probe.aspect != "type" or type_open)) for p, type_open in open_points)


def under_gap(contract: Contract, operation: str, where: str) -> bool:
    """Whether a gap's about names ``where`` (or a member around it) on the operation: a probe
    there is sent only for the member's documented type (module doc)."""
    return any(p is not None and (where == p or where.startswith(p + "."))
               for p, _open in _open_points(contract, operation))


def _has_example(contract: Contract, operation: str) -> bool:
    body = contract.operation(operation).get("requestBody") or {}
    media = (body.get("content") or {}).get(contract.request_media(operation)) or {}
    return "example" in media


def field_probes(contract: Contract, operation: str) -> list[Probe]:
    """Every probe of the operation's documented request fields (module doc)."""
    out: list[Probe] = []
    media = contract.request_media(operation)
    has_body = bool(contract.operation(operation).get("requestBody"))
    # Body fields need the example (the control, and how deep the probes reach).
    if (has_body and media in ("application/json", "application/x-www-form-urlencoded")
            and _has_example(contract, operation)):
        form = media != "application/json"
        out += _body_probes(contract, contract.request_schema(operation), contract.request_example(operation),
                            "body", form)
    for param in _parameters(contract, operation):
        if param.get("in") not in ("query", "path"):
            continue
        where = f"{param['in']}.{param['name']}"
        schema = contract.deref(param.get("schema") or {})
        if param.get("required") and param["in"] == "query":
            out.append(Probe(where, "left out (required)", MISSING))
        out += _leaf_probes(contract, where, schema, text=True)
    open_points = _open_points(contract, operation)
    return [p for p in out if not _is_open(p, open_points)]


def body_probes(contract: Contract, operation: str) -> list[tuple[str, str, bytes]]:
    """(label, content type, body) of each broken JSON body the operation must refuse."""
    if not contract.operation(operation).get("requestBody") or contract.request_media(operation) != "application/json":
        return []
    if not _has_example(contract, operation):
        return []  # a payload the document does not show: no control to compare with
    out = [("a body that is not JSON (cut short), sent as application/json", "application/json",
            b'{"conformance": '),
           ("a plain-text body sent as text/plain", "text/plain", b"conformance: not JSON")]
    body = contract.operation(operation)["requestBody"]
    schema = contract.deref(contract.request_schema(operation))
    if body.get("required") or schema.get("required"):
        out.append(("an empty body, sent as application/json", "application/json", b""))
    return out


def derived_rules(contract: Contract, source: Source) -> list[Rule]:
    """The derived rules of every operation that has probes (``source``: the part's Endpoints)."""
    out: list[Rule] = []
    for operation in contract.operations():
        if contract.operation(operation).get("x-no-derived-probes"):
            continue  # a request no fixed example can make (an OAuth step): the reason is in openapi.yaml
        detail = Source(source.doc, source.section, source.part, operation, source.anchor)
        for kind, area, probes, says in (
                ("fields", "request-fields", field_probes, "every documented request field sent wrong (type, "
                 "format, left out where required, past a bound, off its list) is refused; a 5xx never"),
                ("body", "request-body", body_probes, "a body that is not JSON, of another media type, or missing "
                 "where required is refused; a 5xx never")):
            if probes(contract, operation):
                out.append(Rule(id=f"{contract.service}.{area}.{_slug(operation)}", kind=kind, operation=operation,
                                statement=f"{operation}: {says}", source=detail))
    return out
