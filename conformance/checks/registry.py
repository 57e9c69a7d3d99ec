"""Where checks are found, and what parameters each one takes.

A check is a plain function of a ``CheckContext`` registered with the params it reads (a JSON
Schema ``properties`` mapping plus the required names). The binding of a rule to its check is
data, in the rule's catalogue entry: Python never names a rule id. A rule's check is

* the one its entry names (``params.check`` -> ``@named``): a core check by its name
  (``route-served``) or a service's scenario check as ``<service>/<name>``;
* else the core check of its kind (``@for_kind``: limit, enum, required, auth).

Where rules are bound to checks (``conformance.runner.collect_cases``), every rule's ``params``
are validated against the declared ones (``check_params``), so a typo or a dead key is one line
naming the file and the rule, not a ``KeyError`` mid-run. A rule with no check is reported as
unchecked (skipped with that reason), never as passed.

Generic checks register on the first lookup; a service's checks register when its package
(``conformance.services.<id>``) is imported, which the caller does before looking rules up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import jsonschema

from conformance.errors import ContractFileError

if TYPE_CHECKING:
    from conformance.checks.context import CheckContext
    from conformance.contract import Rule

__all__ = ["CheckFn", "CheckSpec", "check_params", "for_kind", "named", "params_schema", "spec_for"]

CheckFn = Callable[["CheckContext"], None]

# Allowed on every rule: the name of the check itself, and the gap or conflict whose reading on
# the target the check reports (``ctx.observed``): declared here, never spelled in Python.
_COMMON: dict[str, Any] = {"check": {"type": "string"},
                           "observes": {"type": "string", "pattern": r"^[a-z]+\.(gap|conflict)\.[a-z0-9-]+$"}}


@dataclass(frozen=True)
class CheckSpec:
    """A registered check: its function and the params (JSON Schema properties) it reads."""

    name: str
    fn: CheckFn
    params: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()

    @property
    def core(self) -> bool:
        """Carried by a core check, counted by where the function lives (not by how the rule
        names it): a ``<service>/<name>`` check is that service's scenario code."""
        return _service_of(self.fn) is None

    def params_schema(self) -> dict[str, Any]:
        return params_schema(self.params, self.required)

    @cached_property
    def params_validator(self) -> jsonschema.protocols.Validator:
        """Built once: rules are bound to checks on every collection. The declaration itself is
        code, not input: tests/services/test_bindings.py checks every one against the metaschema
        (here it cost 9 ms a check, 1.5 s a run)."""
        schema = self.params_schema()
        return jsonschema.validators.validator_for(schema)(schema)


def _service_of(fn: CheckFn) -> str | None:
    """The service whose package defines ``fn`` (``conformance.services.<id>...``), None for the core."""
    parts = fn.__module__.split(".")
    return parts[2] if parts[:2] == ["conformance", "services"] and len(parts) > 2 else None


def params_schema(params: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": {**_COMMON, **params}, "required": list(required),
            "additionalProperties": False}


_BY_KIND: dict[str, CheckSpec] = {}
_BY_NAME: dict[str, CheckSpec] = {}

# The generic checks: imported once, on first lookup.
_GENERIC = (
    "conformance.checks.boundary",
    "conformance.checks.auth",
    "conformance.checks.properties",
    "conformance.checks.generic",
    "conformance.checks.paging",
    "conformance.checks.page_size",
    "conformance.checks.types",
    "conformance.checks.shape",
    "conformance.checks.headers",
    "conformance.checks.routes",
    "conformance.checks.wellformed",
    "conformance.checks.observatory",
    "conformance.checks.bodies",
    "conformance.checks.edits",
    "conformance.checks.authorization",
    "conformance.checks.derived",
    "conformance.checks.effects",
    "conformance.checks.filters",
    "conformance.checks.oauth",
    "conformance.checks.anywhere",
    "conformance.checks.rows",
    "conformance.checks.forms",
    "conformance.checks.lifecycle",
    "conformance.checks.rates",
    "conformance.checks.counters",
    "conformance.checks.alternatives",
    "conformance.checks.ordering",
    "conformance.checks.selection",
    "conformance.checks.times",
    "conformance.checks.spans",
    "conformance.checks.combine",
    "conformance.checks.values",
    "conformance.checks.exports",
    "conformance.checks.replaces",
    "conformance.checks.keyset",
    "conformance.checks.zones",
    "conformance.checks.prefixes",
    "conformance.checks.selects",
    "conformance.checks.units",
    "conformance.checks.export_values",
    "conformance.checks.methods",
    "conformance.checks.asked",
    "conformance.checks.kept",
)
_loaded = False

Register = Callable[[CheckFn], CheckFn]


def _spec(name: str, fn: CheckFn, params: Mapping[str, Any] | None, required: tuple[str, ...]) -> CheckSpec:
    missing = [r for r in required if r not in (params or {})]
    if missing:
        raise RuntimeError(f"check {name}: required params {missing} are not declared")
    return CheckSpec(name, fn, dict(params or {}), tuple(required))


def for_kind(*kinds: str, params: Mapping[str, Any] | None = None, required: tuple[str, ...] = ()) -> Register:
    def register(fn: CheckFn) -> CheckFn:
        for kind in kinds:
            _BY_KIND[kind] = _spec(f"kind:{kind}", fn, params, required)
        return fn

    return register


def named(name: str, *, params: Mapping[str, Any] | None = None, required: tuple[str, ...] = ()) -> Register:
    """A parameterised check a rule chooses by name in its catalogue entry (``params.check``)."""

    def register(fn: CheckFn) -> CheckFn:
        # A check in a service package is that service's behaviour, and its name says so: the
        # catalogue then shows at a glance which rules a core check carries.
        service = _service_of(fn)
        if service is not None and not name.startswith(f"{service}/"):
            raise RuntimeError(f"check '{name}' of {fn.__module__} must be named '{service}/<name>'")
        if name in _BY_NAME and _BY_NAME[name].fn is not fn:
            raise RuntimeError(f"two checks registered as '{name}'")
        _BY_NAME[name] = _spec(name, fn, params, required)
        return fn

    return register



def _load_generic() -> None:
    global _loaded
    if not _loaded:
        for name in _GENERIC:
            importlib.import_module(name)
        _loaded = True


def spec_for(rule: Rule) -> CheckSpec | None:
    """The check of ``rule``; ``params.check`` naming no registered check is a contract error.
    The rule's service package must be loaded first (``conformance.services.load_service``):
    importing it registers the service's checks."""
    _load_generic()
    if "check" in rule.params:
        name = rule.params["check"]
        owner = name.split("/", 1)[0] if "/" in name else None
        if owner is not None and owner != rule.id.split(".", 1)[0]:
            # A scenario check is its service's behaviour: another service's rule cannot borrow it
            # (a check a second service needs belongs in the core).
            raise ContractFileError(f"{rule.id}: params.check names '{name}', a check of service '{owner}'")
        if name not in _BY_NAME:
            raise ContractFileError(f"{rule.id}: params.check names unknown check '{name}'; "
                                    f"known: {', '.join(sorted(_BY_NAME))}")
        return _BY_NAME[name]
    # Kind checks need an operation and (for body rules) a pointer to the schema.
    return _BY_KIND.get(rule.kind) if rule.operation else None


def check_params(rule: Rule, spec: CheckSpec | None) -> None:
    """A rule's params must be exactly what its check declares: no unknown, none missing, typed.
    The ``ContractFileError`` says what is wrong; the caller adds the file and the rule."""
    if spec is None:
        if set(rule.params) - {"check"}:
            raise ContractFileError("params given, but no check implements this rule to read them")
        return
    declared = spec.params_schema()["properties"]
    unknown = sorted(set(rule.params) - set(declared))
    if unknown:
        takes = ", ".join(sorted(set(declared) - set(_COMMON))) or "none"
        raise ContractFileError(f"unknown params {', '.join(unknown)} (check {spec.name} takes: {takes})")
    error = jsonschema.exceptions.best_match(spec.params_validator.iter_errors(rule.params))
    if error is not None:  # what jsonschema.validate would raise, without re-checking the schema
        place = "/".join(str(p) for p in error.absolute_path)
        raise ContractFileError(f"params{'.' + place if place else ''}: {error.message} (check {spec.name})")
