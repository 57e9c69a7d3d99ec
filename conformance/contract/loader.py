"""The one loader funnel: every contract source ends in ``load_contract``, which validates it.

A contract is two files under ``schemas/<id>/``: ``openapi.yaml`` (OpenAPI 3.1, JSON Schema
2020-12) and ``rules.yaml`` (the rule catalogue). Anything wrong with them is a
``ContractFileError`` naming the file and the place, never a traceback from deep inside a check.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from conformance.contract import cache, claims
from conformance.contract.allows import check_allows
from conformance.contract.catalogue_schema import CATALOGUE_SCHEMA, DERIVED_KINDS
from conformance.contract.derive import derived_rules
from conformance.contract.model import Conflict, Contract, Gap, Rule, Source
from conformance.contract.statements import STATEMENTS_SCHEMA, Accounting, Statement, units_for
from conformance.errors import ContractFileError, UsageError, did_you_mean
from conformance.files import CONTRACT, load_yaml
from conformance.layout import available_services, docs_dir, schemas_dir

__all__ = ["available_services", "docs_dir", "load_contract", "load_index", "schemas_dir"]

def _read_yaml(path: Path) -> Any:
    """A contract file through the bounded funnel (conformance/files.py): a regular file, at most
    4 MiB, 64 levels, a million values with YAML aliases expanded."""
    return load_yaml(path, CONTRACT, ContractFileError)


def _slug(heading: str) -> str:
    # GitHub's anchor rule: lower-case, drop punctuation but '-' and ' ', spaces to '-'.
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@lru_cache(maxsize=None)
def _anchors(doc: str) -> dict[tuple[str, str], str]:
    """(section, part letter) -> unique GitHub anchor of that part's sub-heading."""
    path = docs_dir() / doc
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        raise ContractFileError(f"{path}: the source document is missing") from None
    seen: dict[str, int] = {}
    out: dict[tuple[str, str], str] = {}
    section = ""
    for line in lines:
        match = re.match(r"^(#{2,3}) (.+)$", line)
        if not match:
            continue
        slug = _slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchor = slug if count == 0 else f"{slug}-{count}"
        if match.group(1) == "##":
            section = match.group(2).strip()
            out[(section, "")] = anchor
        else:
            out[(section, match.group(2).split(".", 1)[0].strip())] = anchor
    return out


def _source(raw: dict[str, Any], doc: str, part: str, where: str) -> Source:
    anchors = _anchors(doc)
    key = (raw["section"], part)
    if key not in anchors:  # some sections (Versioning) have no per-part sub-headings
        key = (raw["section"], "")
    if key not in anchors:
        raise ContractFileError(
            f"{where}: section '{raw['section']}' part {part} does not exist in {doc}"
        )
    return Source(doc, raw["section"], part, raw.get("detail", ""), anchors[key])


# The parts of an OpenAPI document the harness walks, with the types it relies on.
_SERVERS = {"type": "array", "items": {"type": "object", "required": ["url"],
                                        "properties": {"url": {"type": "string"},
                                                       "variables": {"type": "object"}}}}
_OPENAPI_SHAPE: dict[str, Any] = {
    "type": "object",
    "$defs": {"refusal": {"type": "object", "additionalProperties": False, "properties": {
        k: {"type": "integer", "minimum": 400, "maximum": 499} for k in ("invalid", "malformed", "media")}}},
    "required": ["openapi", "paths"],
    "properties": {
        "servers": _SERVERS,
        "paths": {"type": "object", "minProperties": 1, "additionalProperties": {
            "type": "object",
            "properties": {"servers": _SERVERS, "parameters": {"type": "array"}},
            "patternProperties": {"^(get|put|post|delete|patch)$": {
                "type": "object",
                "properties": {"servers": _SERVERS, "parameters": {"type": "array"},
                               "requestBody": {"type": "object"},
                               "responses": {"type": "object"},
                               # Ours: what the operation does beyond reading (a live target needs
                               # --allow for it).
                               "x-effects": {"type": "array", "items": {"enum": ["spend", "write"]}},
                               # Ours: why no probes are derived from this operation's fields.
                               "x-no-derived-probes": {"type": "string", "minLength": 10},
                               # Ours: the status the document names for invalid, malformed or
                               # other-media input (contract/derive.py).
                               "x-refusal-status": {"$ref": "#/$defs/refusal"}},
            }},
        }},
        # Ours: request rates the document asks clients to keep (the harness keeps them on live
        # targets), e.g. [{requests: 60, per_seconds: 60}].
        "x-client-rate-limits": {"type": "array", "items": {
            "type": "object", "required": ["requests", "per_seconds"], "additionalProperties": False,
            "properties": {"requests": {"type": "integer", "minimum": 1},
                           "per_seconds": {"type": "number", "exclusiveMinimum": 0}}}},
        "x-refusal-status": {"$ref": "#/$defs/refusal"},
        "components": {"type": "object", "properties": {
            "schemas": {"type": "object"}, "responses": {"type": "object"},
            "parameters": {"type": "object"}, "securitySchemes": {"type": "object"},
        }},
    },
}


_VALIDATORS: dict[int, jsonschema.protocols.Validator] = {}


def _validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """One validator per file schema (ours, module-level: checked against the metaschema by
    tests/contract/test_loader.py, not on every load as ``jsonschema.validate`` does, ~0.1 s each)."""
    if id(schema) not in _VALIDATORS:
        _VALIDATORS[id(schema)] = jsonschema.validators.validator_for(schema)(schema)
    return _VALIDATORS[id(schema)]


def _validate(doc: Any, schema: dict[str, Any], path: Path) -> None:
    error = jsonschema.exceptions.best_match(_validator(schema).iter_errors(doc))
    if error is not None:
        place = "/".join(str(p) for p in error.absolute_path) or "(top)"
        raise ContractFileError(f"{path}: at {place}: {error.message}") from None


def _check_openapi(doc: Any, path: Path) -> None:
    if not isinstance(doc, dict) or not str(doc.get("openapi", "")).startswith("3.1"):
        raise ContractFileError(f"{path}: not an OpenAPI 3.1 document (missing 'openapi: 3.1.x')")
    if not isinstance(doc.get("paths"), dict) or not doc["paths"]:
        raise ContractFileError(f"{path}: no paths")
    _validate(doc, _OPENAPI_SHAPE, path)
    _check_refs(doc, path)
    for name, schema in (doc.get("components", {}).get("schemas") or {}).items():
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise ContractFileError(
                f"{path}: components.schemas.{name} is not valid JSON Schema: {exc.message}"
            ) from None


def _pointed(doc: Any, ref: str) -> Any:
    """The value the local reference ``ref`` (``#/a/b``, RFC 6901) points at; KeyError if none."""
    node = doc
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise KeyError(ref)
    return node


def _check_refs(doc: Any, path: Path) -> None:
    """Every ``$ref`` points into this document and resolves, and no chain of references (an object
    that is a reference to one that is a reference ...) comes back to where it started: the
    harness follows such chains (``Contract.deref``), and one to itself never ended (issue 34)."""
    refs: set[Any] = set()
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "$ref" in node:
                refs.add(node["$ref"] if isinstance(node["$ref"], str) else repr(node["$ref"]))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    for ref in sorted(refs):
        chain: list[str] = []
        current: Any = ref
        while True:
            if not isinstance(current, str) or not current.startswith("#/"):
                raise ContractFileError(f"{path}: $ref {current!r} does not point into this document (#/...)")
            if current in chain:
                raise ContractFileError(f"{path}: $ref cycle: {' -> '.join([*chain, current])}")
            chain.append(current)
            try:
                target = _pointed(doc, current)
            except KeyError:
                raise ContractFileError(f"{path}: $ref {current} does not resolve") from None
            if not (isinstance(target, dict) and "$ref" in target):
                break
            current = target["$ref"]


def load_contract(service: str) -> Contract:
    """Load and validate ``schemas/<service>/``. Cached per process: contracts are read-only."""
    root = str(schemas_dir())
    if (service, root) not in _FOUND:
        # Found in schemas/, never listed (conformance/layout.py); once per service, not once per
        # rule: the run asks for its contract before every rule, and the look reads eight files.
        known = available_services()
        if service not in known:
            raise UsageError(f"unknown service '{service}'{did_you_mean(service, known)}: a service is a folder "
                             f"holding rules.yaml in {root}; known: {', '.join(known) or 'none'}")
        _FOUND.add((service, root))
    return _load(service, root)


_FOUND: set[tuple[str, str]] = set()


@lru_cache(maxsize=None)
def _load(service: str, root: str) -> Contract:
    folder = Path(root) / service
    key = cache.key_for(folder, docs_dir()) if (folder / "rules.yaml").is_file() else None
    if key is not None and (hit := cache.read(service, folder, key)) is not None:
        return hit
    contract = _build(service, folder)
    if key is not None:
        cache.write(service, folder, key, contract)
    return contract


def _build(service: str, folder: Path) -> Contract:
    if not (folder / "rules.yaml").is_file():
        raise UsageError(
            f"service '{service}' has no contract yet (no {folder}/rules.yaml); "
            f"available: {', '.join(available_services()) or 'none'}"
        )
    openapi_path, rules_path = folder / "openapi.yaml", folder / "rules.yaml"
    openapi = _read_yaml(openapi_path)
    _check_openapi(openapi, openapi_path)
    cat = _read_yaml(rules_path)
    _validate(cat, CATALOGUE_SCHEMA, rules_path)
    if cat["service"] != service:
        raise ContractFileError(f"{rules_path}: says service '{cat['service']}', expected '{service}'")

    doc, part = cat["document"], cat["part"]
    contract = Contract(
        service=service,
        title=cat.get("title", service),
        openapi=openapi,
        rules=[],
        gaps=[],
        conflicts=[],
        settings=dict(cat.get("settings") or {}),
        digest=_digest(openapi, cat),
        rules_file=str(rules_path),
    )
    contract.settings["credentials"] = cat.get("credentials", [])
    credential_names = {c["name"] for c in contract.settings["credentials"]}
    _check_discover(contract, rules_path)
    ids: set[str] = set()
    for i, raw in enumerate(cat["rules"]):
        where = f"{rules_path}: rules[{i}] ({raw['id']})"
        if raw["id"] in ids:
            raise ContractFileError(f"{where}: duplicate rule id")
        ids.add(raw["id"])
        if not raw["id"].startswith(service + "."):
            raise ContractFileError(f"{where}: rule ids start with '{service}.'")
        rule = Rule(
            id=raw["id"],
            kind=raw["kind"],
            statement=raw["statement"],
            source=_source(raw["source"], doc, part, where),
            operation=raw.get("operation"),
            where=raw.get("where"),
            violation=raw.get("violation"),
            params=raw.get("params") or {},
            requires=tuple(raw.get("requires") or ()),
            standard=raw.get("standard"),
            depends_on=tuple(raw.get("depends_on") or ()),
            faults=tuple(raw.get("faults") or ()),
            no_derived_faults=tuple((raw.get("derived_faults") or {}).get("except") or ()),
        )
        for named_op in rule.params.get("operations") or []:
            try:
                contract.operation(str(named_op))
            except (KeyError, ValueError, TypeError, AttributeError):
                raise ContractFileError(f"{where}: params.operations names {named_op!r}, not in openapi.yaml") from None
        if rule.operation:
            try:
                contract.operation(rule.operation)
            except KeyError:
                raise ContractFileError(f"{where}: operation {rule.operation} is not in openapi.yaml") from None
            if rule.where:
                try:
                    contract.where_schema(rule.operation, rule.where)
                except KeyError:
                    raise ContractFileError(f"{where}: '{rule.where}' does not resolve in openapi.yaml") from None
        unknown = [n for n in rule.requires if n not in credential_names]
        if unknown:
            raise ContractFileError(f"{where}: requires {', '.join(unknown)}, not among the credentials")
        contract.rules.append(rule)
    endpoints = _source({"section": "Endpoints"}, doc, part, f"{rules_path}: derived rules")
    derived_faults = dict(cat.get("derived_rules") or {})
    for rule in derived_rules(contract, endpoints):
        if rule.id in ids:
            raise ContractFileError(f"{rules_path}: rule id {rule.id} is taken by a derived rule (kind {rule.kind}); "
                                    "rename the catalogue's rule")
        bound = derived_faults.pop(rule.id, None)
        contract.rules.append(replace(rule, faults=tuple(bound["faults"])) if bound else rule)
    if derived_faults:
        raise ContractFileError(f"{rules_path}: derived_rules names {', '.join(sorted(derived_faults))}, "
                                "not a rule derived from openapi.yaml")
    _check_fault_names(contract, rules_path)
    _check_security(contract, openapi_path, credential_names)
    for i, raw in enumerate(cat["gaps"]):
        about = tuple((str(a["operation"]), a.get("where")) for a in raw.get("about") or ())
        gap = Gap(raw["id"], raw["statement"], _source(raw["source"], doc, part, f"{rules_path}: gaps[{i}]"),
                  about=about, setting=raw.get("setting"), about_none=raw.get("about_none"),
                  allows=tuple(dict(a) for a in raw.get("allows") or ()),
                  open_types=tuple(a.get("where") for a in raw.get("about") or () if a.get("type") == "open"))
        if gap.setting and gap.setting not in credential_names:
            raise ContractFileError(f"{rules_path}: gaps[{i}] ({gap.id}): setting {gap.setting} is not among the "
                                    "credentials")
        for operation, point in gap.about:
            try:
                contract.operation(operation)
                if point:
                    contract.where_schema(operation, point)
            except KeyError:
                raise ContractFileError(f"{rules_path}: gaps[{i}] ({gap.id}): about {operation} {point or ''} "
                                        "does not resolve in openapi.yaml") from None
        contract.gaps.append(gap)
    check_allows(contract, rules_path)
    _check_gap_dependencies(contract, rules_path)
    for i, raw in enumerate(cat.get("conflicts") or []):
        contract.conflicts.append(
            Conflict(
                raw["id"], raw["statement"],
                _source(raw["source"], doc, part, f"{rules_path}: conflicts[{i}]"),
                tuple(raw["alternatives"]),
            )
        )
    return contract


def _check_gap_dependencies(contract: Contract, rules_path: Path) -> None:
    """A rule and a gap may not claim opposite things about one point: a rule that checks what a
    gap says the documents do not show must say it depends on that gap (and is then skipped,
    naming it, unless a target setting resolves the gap)."""
    gaps = {g.id: g for g in contract.gaps}
    for rule in contract.rules:
        if rule.kind in DERIVED_KINDS:
            continue  # derived probes leave out every point a gap holds open (contract/derive.py)
        unknown = [g for g in rule.depends_on if g not in gaps]
        if unknown:
            raise ContractFileError(f"{rules_path}: rule {rule.id}: depends_on names {', '.join(unknown)}, "
                                    "not a gap of this catalogue")
        for gap in contract.gaps:
            covered = gap.covers(rule)
            if covered and gap.id not in rule.depends_on:
                point = f"{covered[0]} {covered[1] or ''}".strip()
                raise ContractFileError(
                    f"{rules_path}: rule {rule.id} checks {point}, which gap {gap.id} says the documents do not "
                    f"show ({gap.statement!r}): add depends_on: [{gap.id}] to the rule, or correct one of them")


def _check_discover(contract: Contract, path: Path) -> None:
    """A setting's ``discover`` source reads: a documented operation without x-effects, and only
    for a setting (a secret is an input, never proposed)."""
    for cred in contract.settings["credentials"]:
        spec = cred.get("discover") or {}
        where = f"{path}: credentials {cred['name']}: discover"
        if "operation" not in spec:
            continue
        if cred.get("secret", True):
            raise ContractFileError(f"{where}: a secret credential is never discovered (mark it secret: false)")
        try:
            contract.operation(spec["operation"])
        except (KeyError, ValueError):
            raise ContractFileError(f"{where}: {spec['operation']} is not an operation of the contract") from None
        if contract.effects(spec["operation"]):
            raise ContractFileError(f"{where}: {spec['operation']} has x-effects "
                                    f"{contract.effects(spec['operation'])}; discovery only reads")


def _check_security(contract: Contract, path: Path, credentials: set[str]) -> None:
    """Every security scheme an operation uses says what fills it (x-credential), from names
    the catalogue declares or the scheme obtains (x-tokens)."""
    from string import Formatter

    schemes = contract.openapi.get("components", {}).get("securitySchemes") or {}
    used = {name for op in contract.operations() for name, _ in _requirements(contract, op)}
    for name in sorted(used):
        scheme = schemes.get(name)
        if not isinstance(scheme, dict):
            raise ContractFileError(f"{path}: security names scheme '{name}', not in components.securitySchemes")
        template = scheme.get("x-credential")
        if not isinstance(template, str):
            raise ContractFileError(f"{path}: securitySchemes.{name} has no x-credential (which credentials fill it)")
        tokens = scheme.get("x-tokens") or {}
        for _, field_name, _, _ in Formatter().parse(template):
            if field_name and field_name not in credentials and field_name not in tokens:
                raise ContractFileError(f"{path}: securitySchemes.{name}.x-credential names {field_name}, "
                                        "not among the credentials or x-tokens")
        for token, source in tokens.items():
            if source not in credentials:
                raise ContractFileError(f"{path}: securitySchemes.{name}.x-tokens.{token} comes from {source}, "
                                        "not among the credentials")


def _requirements(contract: Contract, operation: str) -> list[tuple[str, Any]]:
    op = contract.operation(operation)
    reqs = op["security"] if "security" in op else contract.openapi.get("security") or []
    return [(name, None) for req in reqs or [] for name in req]


def load_index(service: str) -> list[Statement]:
    """``schemas/<service>/statements.yaml`` checked against the document and the catalogue:
    every unit of the service's part present with its exact text (and nothing else), each
    accounted for, every rule, gap and conflict it names existing, every ``derived`` claim carried
    by a probe derive.py really produces, every cited rule reading some of its sentence, every
    member a covered sentence names read or held open unless ``part`` says what is checked
    (contract/claims.py), and every rule of the catalogue named by some statement."""
    contract = load_contract(service)
    path = schemas_dir() / service / "statements.yaml"
    if not path.is_file():
        raise ContractFileError(f"{path}: missing: every statement of the document needs accounting for "
                                f"(start from `conformance rules --coverage --skeleton --service {service}`)")
    raw = _read_yaml(path)
    _validate(raw, STATEMENTS_SCHEMA, path)
    if raw["service"] != service:
        raise ContractFileError(f"{path}: says service '{raw['service']}', expected '{service}'")
    cat = _read_yaml(schemas_dir() / service / "rules.yaml")
    units = {u.id: u for u in units_for(service, docs_dir() / cat["document"], cat["part"])}
    rules = {r.id: r for r in contract.rules}
    gaps = {g.id for g in contract.gaps}
    conflicts = {c.id for c in contract.conflicts}
    problems: list[str] = []
    out: list[Statement] = []
    seen: set[str] = set()
    for entry in raw["statements"]:
        sid = entry["id"]
        unit = units.get(sid)
        if unit is None:
            problems.append(f"{sid}: no such sentence or row in {cat['document']} part {cat['part']}")
            continue
        if sid in seen:
            problems.append(f"{sid}: listed twice")
        seen.add(sid)
        if entry["text"] != unit.text:
            problems.append(f"{sid}: text differs from the document (line {unit.line}): {unit.text!r}")
        for key, known in (("rules", set(rules)), ("gaps", gaps), ("conflicts", conflicts)):
            unknown = [n for n in entry.get(key) or () if n not in known]
            if unknown:
                problems.append(f"{sid}: {key} names {', '.join(unknown)}, not in the contract")
        problems += [f"{sid}: {problem}" for claim in entry.get("derived") or ()
                     if (problem := claims.derived_problem(contract, claim))]
        problems += _unread(sid, unit.text, [rules[r] for r in entry.get("rules") or () if r in rules], contract)
        problems += _unprobed(sid, unit.text, list(entry.get("derived") or ()), contract)
        problems += _unaccounted(sid, entry, contract)
        out.append(Statement(unit, Accounting(
            rules=tuple(entry.get("rules") or ()), gaps=tuple(entry.get("gaps") or ()),
            conflicts=tuple(entry.get("conflicts") or ()), derived=tuple(entry.get("derived") or ()),
            not_checkable=entry.get("not_checkable"), part=entry.get("part"),
            observations=tuple(r for r in entry.get("rules") or () if r in rules
                               and rules[r].params.get("check") == "gap-probe"))))
    missing = [u for uid, u in units.items() if uid not in seen]
    problems += [f"{u.id}: not accounted for (line {u.line}): {u.text!r}" for u in missing]
    named = {r for s in out for r in s.accounting.rules}
    claimed = {(op, where == claims.REQUEST_BODY) for s in out for c in s.accounting.derived
               if (parsed := claims.parse_derived(c)) for op, where in [parsed]}
    # A derived rule is named through a claim on its probes: request-body for the broken bodies
    # (kind body), a member for the field probes (kind fields).
    named |= {r.id for r in contract.rules if r.kind in DERIVED_KINDS
              and (r.operation, r.kind == "body") in claimed}
    problems += [f"rule {r}: names no statement of the document (no statement lists it"
                 f"{', nor claims its probes under derived' if r.split('.')[1].startswith('request-') else ''})"
                 for r in sorted(set(rules) - named)]
    if problems:
        raise ContractFileError(f"{path}: {len(problems)} problem(s):\n  " + "\n  ".join(problems))
    return out


def _unread(sid: str, text: str, cited: list[Rule], contract: Contract) -> list[str]:
    """A rule cited for a sentence must read some of its claim (contract/claims.py)."""
    terms = claims.sentence_terms(text)
    return [f"{sid}: rule {rule.id} reads none of the sentence (its operation, member, params and schema "
            f"name none of: {', '.join(sorted(terms)) or 'no words'})"
            for rule in cited if not (claims.rule_reads(contract, rule) & terms)]


def _unprobed(sid: str, text: str, derived: list[str], contract: Contract) -> list[str]:
    """A derived claim that holds must also send something of its sentence (contract/claims.py)."""
    terms = claims.sentence_terms(text)
    return [f"{sid}: derived claim {claim!r} sends none of the sentence (its operation, member, probes and bounds "
            f"name none of: {', '.join(sorted(terms)) or 'no words'})"
            for claim in derived
            if not claims.derived_problem(contract, claim) and not (claims.derived_reads(contract, claim) & terms)]


def _unaccounted(sid: str, entry: dict[str, Any], contract: Contract) -> list[str]:
    """A sentence covered by rules or probes names no member that nothing of its accounting reads,
    unless ``part`` says what is checked (contract/claims.py)."""
    if entry.get("part") or not (entry.get("rules") or entry.get("derived")):
        return []
    rules = {r.id: r for r in contract.rules}
    read: set[str] = set()
    for rid in entry.get("rules") or ():
        if rid in rules:
            read |= claims.rule_reads(contract, rules[rid])
    for claim in entry.get("derived") or ():
        read |= claims.derived_reads(contract, claim)
    for gap in contract.gaps:
        if gap.id in (entry.get("gaps") or ()):
            read |= claims.words(" ".join([gap.statement, *(w or op for op, w in gap.about)]))
    for conflict in contract.conflicts:
        if conflict.id in (entry.get("conflicts") or ()):
            read |= claims.words(" ".join([conflict.statement, *conflict.alternatives]))
    unread = [n for n in claims.names(entry["text"]) if n.lower() not in read]
    if not unread:
        return []
    return [f"{sid}: names {', '.join(unread)}, which no cited rule, derived probe, gap or conflict reads: "
            "say under part what is checked, or cite what checks or holds them open"]


def _check_fault_names(contract: Contract, rules_path: Path) -> None:
    """A hand-written fault breaks one rule: a name bound twice would make the kill matrix ask
    one fault to prove two rules."""
    seen: dict[str, str] = {}
    for rule in contract.rules:
        for name in rule.faults:
            if name in seen:
                raise ContractFileError(f"{rules_path}: fault '{name}' is bound to {seen[name]} and {rule.id}; "
                                        "a fault breaks one rule")
            seen[name] = rule.id


def _digest(openapi: dict[str, Any], catalogue: dict[str, Any]) -> str:
    """What a target is judged by, hashed: the parsed OpenAPI document and rule catalogue, less
    the fault bindings (``faults``, ``derived_faults``, ``derived_rules``), which prove the
    harness and never change a verdict. Parsed, not raw bytes: a comment or a reflowed line
    changes no verdict either, so it leaves recorded cassettes current."""
    judged = {**catalogue, "rules": [{k: v for k, v in rule.items() if k not in ("faults", "derived_faults")}
                                     for rule in catalogue["rules"]],
              # What a gap allows builds variants that prove the harness; it judges nothing.
              "gaps": [{k: v for k, v in gap.items() if k != "allows"} for gap in catalogue.get("gaps") or []]}
    judged.pop("derived_rules", None)
    text = json.dumps([openapi, judged], sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
