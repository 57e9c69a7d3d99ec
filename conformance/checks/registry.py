"""Where checks are found. A rule's check is the one registered for its id, else its kind's.

Generic checks register by kind (``limit``, ``enum`` ...) and read everything from the rule and
the contract; service scenarios register by rule id. A rule with neither is reported as
unchecked (skipped with that reason), never as passed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.checks.context import CheckContext
    from conformance.contract import Rule

__all__ = ["CheckFn", "check_for", "for_kind", "for_rule", "load_all", "named", "named_checks"]

CheckFn = Callable[["CheckContext"], None]

_BY_KIND: dict[str, CheckFn] = {}
_BY_RULE: dict[str, CheckFn] = {}
_BY_NAME: dict[str, CheckFn] = {}

# Modules that register checks; imported once, on first lookup.
_MODULES = (
    "conformance.checks.boundary",
    "conformance.checks.auth",
    "conformance.checks.properties",
    "conformance.checks.generic",
    "conformance.checks.paging",
    "conformance.checks.services.presentations",
    "conformance.checks.services.scanning",
    "conformance.checks.services.scanning_search",
    "conformance.checks.services.scanning_credits",
    "conformance.checks.services.scanning_dns",
    "conformance.checks.services.marketplace",
)
_loaded = False


def for_kind(*kinds: str) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        for kind in kinds:
            _BY_KIND[kind] = fn
        return fn

    return register


def named(name: str) -> Callable[[CheckFn], CheckFn]:
    """A generic check a rule chooses by name in its catalogue entry (``params.check``)."""

    def register(fn: CheckFn) -> CheckFn:
        _BY_NAME[name] = fn
        return fn

    return register


def for_rule(*rule_ids: str) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        for rule_id in rule_ids:
            if rule_id in _BY_RULE and _BY_RULE[rule_id] is not fn:
                raise RuntimeError(f"two checks registered for {rule_id}")
            _BY_RULE[rule_id] = fn
        return fn

    return register


def load_all() -> None:
    global _loaded
    if _loaded:
        return
    for name in _MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # a real import error inside the module: surface it
                raise
    _loaded = True


def check_for(rule: Rule) -> CheckFn | None:
    load_all()
    if rule.id in _BY_RULE:
        return _BY_RULE[rule.id]
    if "check" in rule.params:
        if rule.params["check"] not in _BY_NAME:
            from conformance.errors import ContractFileError

            raise ContractFileError(f"{rule.id}: params.check names unknown check '{rule.params['check']}'; "
                                    f"known: {', '.join(sorted(_BY_NAME))}")
        return _BY_NAME[rule.params["check"]]
    # Kind checks need an operation and (for body rules) a pointer to the schema.
    return _BY_KIND.get(rule.kind) if rule.operation else None


def named_checks() -> list[str]:
    load_all()
    return sorted(_BY_NAME)
