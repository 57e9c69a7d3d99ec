"""In-memory form of a service contract: OpenAPI operations plus the rule catalogue."""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from typing import Any

from conformance.errors import ContractFileError
from conformance.transport.model import Request

# Hops through chained $refs before the chain is called a cycle (real contracts chain one or two).
_MAX_REF_HOPS = 32

__all__ = ["Conflict", "Contract", "Gap", "Rule", "Source"]


@dataclass(frozen=True)
class Source:
    doc: str
    section: str
    part: str
    detail: str
    anchor: str

    @property
    def path(self) -> str:
        return f"docs/spec/{self.doc}"

    def text(self) -> str:
        return f"{self.doc} / {self.section} / {self.part}" + (
            f" / {self.detail}" if self.detail else ""
        )


@dataclass(frozen=True)
class Rule:
    id: str
    kind: str
    statement: str
    source: Source
    operation: str | None = None
    where: str | None = None
    violation: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    # Targets on which this rule cannot be checked, with the reason, e.g. {"http": "needs ..."}.
    requires: tuple[str, ...] = ()
    # The standard the rule rests on ("RFC 6749 section 4.1.2"), None for the document's own words.
    standard: str | None = None
    # Gaps the rule rests on: it is checked only where a target setting resolves each of them.
    depends_on: tuple[str, ...] = ()
    # The service package's hand-written faults that break this rule, by name (rules.yaml binds
    # them; a fault in Python never names the rule it breaks).
    faults: tuple[str, ...] = ()
    # Families of derived faults (``bound-accepted`` ...) that do not fit this rule's check; the
    # catalogue says why next to them.
    no_derived_faults: tuple[str, ...] = ()

    @property
    def basis(self) -> str:
        return "standard" if self.standard else "document"

    @property
    def method(self) -> str:
        return (self.operation or " ").split(" ", 1)[0]

    @property
    def path(self) -> str:
        return (self.operation or " ").split(" ", 1)[1]


@dataclass(frozen=True)
class Gap:
    id: str
    statement: str
    source: Source
    # What the gap says the documents do not show: operations, each optionally narrowed to a
    # ``where`` (``query.status``); a rule checking one of them must depend on the gap.
    about: tuple[tuple[str, str | None], ...] = ()
    # The target setting (a credential name) that resolves the gap on a target, if any.
    setting: str | None = None
    # Why the gap names no operation or member, when it has no ``about``.
    about_none: str | None = None
    # The conforming choices it leaves open: core variant families with their params.
    allows: tuple[dict[str, Any], ...] = ()
    # Points of ``about`` whose documented type the gap leaves open too (``type: open``: a member
    # the operation may ignore); elsewhere a wrong-typed value stays refused (contract/derive.py).
    open_types: tuple[str | None, ...] = ()

    def covers(self, rule: Rule) -> tuple[str, str | None] | None:
        """The point of ``about`` that ``rule`` checks, if any."""
        for operation, where in self.about:
            if rule.operation != operation:
                continue
            if where is None or (rule.where is not None and (rule.where == where
                                                             or rule.where.startswith(where + "."))):
                return operation, where
        return None


@dataclass(frozen=True)
class Conflict:
    id: str
    statement: str
    source: Source
    alternatives: tuple[str, ...]


def _form_value(value: Any) -> str:
    # Form posts carry arrays comma-separated and booleans spelled true/false.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_form_value(v) for v in value)
    return str(value)


@dataclass
class Contract:
    service: str
    title: str
    openapi: dict[str, Any]
    rules: list[Rule]
    gaps: list[Gap]
    conflicts: list[Conflict]
    settings: dict[str, Any]
    # sha256 of the contract's files: a verdict that changes while this stays is the target's doing.
    digest: str = ""
    # The rules.yaml it was loaded from: errors found later (a rule's params) name it.
    rules_file: str = ""

    def fault_bindings(self) -> dict[str, str]:
        """Each hand-written fault's name -> the id of the rule it breaks (rules.yaml's ``faults``);
        the loader has checked that no name is bound twice."""
        return {name: rule.id for rule in self.rules for name in rule.faults}

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)

    @property
    def base_path(self) -> str:
        """Path prefix of operations, from the first top-level server entry ('' when none)."""
        return self._server_prefix(self.openapi.get("servers"))

    def _server_prefix(self, servers: list[dict[str, Any]] | None) -> str:
        server = (servers or [{"url": ""}])[0]
        url = server["url"]
        for name, var in (server.get("variables") or {}).items():
            url = url.replace("{" + name + "}", self.server_variable(name, var["default"]))
        return url.rstrip("/")

    def server_variable(self, name: str, default: Any) -> str:
        """A path segment the document does not show is a target setting: the environment
        (``CONFORMANCE_<SERVICE>_<NAME>``, also set by ``conformance run --option``) wins over
        rules.yaml ``settings``, which win over the OpenAPI default. Read at call time, so a
        cached contract follows the environment."""
        env = os.environ.get(f"CONFORMANCE_{self.service.upper()}_{name.upper()}")
        if env is not None:
            return env
        return str(self.settings.get(name, default))

    def server_variables(self) -> dict[str, tuple[str, str]]:
        """Every server variable of the OpenAPI document: name -> (value in force, description)."""
        found: dict[str, tuple[str, str]] = {}
        groups = [self.openapi.get("servers") or []]
        for item in self.openapi.get("paths", {}).values():
            groups.append(item.get("servers") or [])
            groups += [op.get("servers") or [] for op in item.values() if isinstance(op, dict)]
        for servers in groups:
            for server in servers:
                for name, var in (server.get("variables") or {}).items():
                    found.setdefault(name, (self.server_variable(name, var.get("default", "")),
                                            str(var.get("description", "")).strip()))
        return found

    def prefix_for(self, operation: str | None) -> str:
        """The server prefix of one operation: path- or operation-level servers win."""
        if operation:
            method, path = operation.split(" ", 1)
            item = self.openapi["paths"].get(path, {})
            servers = item.get(method.lower(), {}).get("servers") or item.get("servers")
            if servers:
                return self._server_prefix(servers)
        return self.base_path

    def json_media(self, operation: str) -> dict[str, Any]:
        """The operation's ``application/json`` request media object ({} when none)."""
        content = self.operation(operation).get("requestBody", {}).get("content", {})
        return content.get("application/json") or {}

    def request_media(self, operation: str) -> str:
        content = self.operation(operation).get("requestBody", {}).get("content", {})
        return "application/json" if "application/json" in content or not content else next(iter(content))

    def body_request(self, operation: str, method: str, path: str, body: Any, **kwargs: Any) -> Request:
        """A Request carrying ``body`` in the operation's documented media type."""
        if body is None or body == {}:
            return Request.build(method, path, **kwargs)
        if self.request_media(operation) == "application/x-www-form-urlencoded":
            return Request.build(method, path, form={k: _form_value(v) for k, v in body.items()}, **kwargs)
        return Request.build(method, path, json_body=body, **kwargs)

    def security_for(self, operation: str | None) -> list[tuple[str, dict[str, Any]]]:
        """The schemes of the operation's first security requirement (operation-level, else
        top-level), by name; ``[]`` when the operation needs none."""
        requirements = self.openapi.get("security") or []
        if operation:
            op = self.operation(operation)
            if "security" in op:
                requirements = op["security"] or []
        if not requirements:
            return []
        schemes = self.openapi.get("components", {}).get("securitySchemes", {})
        return [(name, schemes[name]) for name in requirements[0]]

    def effects(self, operation: str) -> list[str]:
        """What calling the operation does beyond reading (``x-effects``: spend, write)."""
        return list(self.operation(operation).get("x-effects") or [])

    def operation(self, operation: str) -> dict[str, Any]:
        method, path = operation.split(" ", 1)
        return self.openapi["paths"][path][method.lower()]

    def operations(self) -> list[str]:
        out = []
        for path, item in self.openapi["paths"].items():
            for method in ("get", "post", "put", "patch", "delete"):
                if method in item:
                    out.append(f"{method.upper()} {path}")
        return out

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        """``node`` with its local ``$ref`` followed (``#/components/<kind>/<name>``, any kind,
        through chains): the one look-up every schema, parameter and response goes through. A
        cycle or a reference to nothing is a contract error, never a hang or a KeyError."""
        for _ in range(_MAX_REF_HOPS):
            ref = node.get("$ref") if isinstance(node, dict) else None
            if not isinstance(ref, str):
                return node
            parts = ref.removeprefix("#/").split("/")
            target: Any = self.openapi
            for part in parts:
                target = target.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(target, dict) else None
            if not ref.startswith("#/") or not isinstance(target, dict):
                raise ContractFileError(f"{self.service}: $ref {ref!r} points at nothing in openapi.yaml")
            node = target
        raise ContractFileError(f"{self.service}: $ref chain longer than {_MAX_REF_HOPS} (a cycle?) "
                                f"at {node.get('$ref')!r}")

    def deref(self, schema: dict[str, Any]) -> dict[str, Any]:
        return self.resolve(schema)

    def retry_statuses(self) -> dict[int, str]:
        """Statuses the document tells clients to retry (``x-retry-statuses``: status -> its words)."""
        return {int(code): str(words) for code, words in (self.openapi.get("x-retry-statuses") or {}).items()}

    def parameters(self, operation: str) -> list[dict[str, Any]]:
        """The operation's own parameters, resolved."""
        return [self.resolve(p) for p in self.operation(operation).get("parameters") or []]

    def path_parameters(self, operation: str) -> list[dict[str, Any]]:
        """The parameters of the operation's path item (shared by its methods), resolved."""
        return [self.resolve(p) for p in self.openapi["paths"][operation.split(" ", 1)[1]].get("parameters") or []]

    def standalone(self, schema: dict[str, Any]) -> dict[str, Any]:
        """A copy that validates on its own: component refs travel along under $defs."""
        out = copy.deepcopy(schema)
        comps = copy.deepcopy(self.openapi.get("components", {}).get("schemas", {}))
        text_refs = "#/components/schemas/"

        def rewrite(node: Any) -> Any:
            if isinstance(node, dict):
                return {
                    k: (v.replace(text_refs, "#/$defs/") if k == "$ref" and isinstance(v, str)
                        else rewrite(v))
                    for k, v in node.items()
                }
            if isinstance(node, list):
                return [rewrite(v) for v in node]
            return node

        out = rewrite(out)
        if comps:
            out["$defs"] = rewrite(comps)
        out.setdefault("$schema", "https://json-schema.org/draft/2020-12/schema")
        return out

    def request_schema(self, operation: str) -> dict[str, Any]:
        body = self.operation(operation).get("requestBody", {})
        content = body.get("content", {})
        media: dict[str, Any] = content.get("application/json") or next(iter(content.values()), {})
        return media.get("schema", {})

    def request_example(self, operation: str) -> dict[str, Any]:
        """The contract's own example of a valid request body (boundary checks start from it)."""
        body = self.operation(operation).get("requestBody", {})
        content = body.get("content", {})
        media: dict[str, Any] = content.get("application/json") or next(iter(content.values()), {})
        return copy.deepcopy(media.get("example", {}))

    def response_schema(self, operation: str, status: int) -> dict[str, Any] | None:
        responses = self.operation(operation).get("responses", {})
        spec = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX")
        if spec is None:
            return None
        spec = self.resolve(spec)
        content = spec.get("content") or {}
        media = content.get("application/json") or next(iter(content.values()), None)
        return None if media is None else media.get("schema", {})

    def documented_statuses(self, operation: str) -> set[int]:
        """Documented statuses; a range such as '2XX' stands for all hundred of its codes."""
        out: set[int] = set()
        for code in self.operation(operation).get("responses", {}):
            if code.isdigit():
                out.add(int(code))
            elif len(code) == 3 and code[0].isdigit() and code[1:].upper() == "XX":
                out.update(range(int(code[0]) * 100, int(code[0]) * 100 + 100))
        return out

    def _response_member(self, schema: dict[str, Any], part: str) -> dict[str, Any]:
        """One step into an answer's schema: a list's items by index (``data.0.created_time``), else
        the member ``part``; found in the schema and in those it is made of (``allOf``: an envelope
        and the rows it carries), several finds taken together as an ``allOf``."""
        found = []
        for candidate in (schema, *(self.deref(s) for s in schema.get("allOf") or ())):
            if part.isdigit() and "items" in candidate:
                found.append(self.deref(candidate["items"]))
            elif part in (candidate.get("properties") or {}):
                found.append(self.deref(candidate["properties"][part]))
        if not found:
            raise KeyError(part)
        return found[0] if len(found) == 1 else {"allOf": found}

    def where_schema(self, operation: str, where: str) -> dict[str, Any]:
        """Resolve a pointer like ``body.imageOptions.source`` or ``query.after`` to its schema."""
        area, _, rest = where.partition(".")
        if area == "body":
            schema = self.deref(self.request_schema(operation))
            for part in rest.split("."):
                # A list's items by index (body.a.0.b), as the derived probes name them.
                schema = self.deref(schema["items"] if part.isdigit() and "items" in schema
                                    else schema["properties"][part])
            return schema
        if area == "response":
            ok = sorted(s for s in self.documented_statuses(operation) if 200 <= s < 300)
            schema = self.deref(self.response_schema(operation, ok[0]) or {}) if ok else {}
            for part in rest.split("."):
                schema = self._response_member(schema, part)
            return schema
        if area in ("query", "header", "path"):
            # The operation's own parameters, then those of its path item (shared by its methods).
            for param in [*self.parameters(operation), *self.path_parameters(operation)]:
                if param["in"] == area and param["name"] == rest:
                    return self.deref(param["schema"])
        raise KeyError(f"{operation}: {where}")
