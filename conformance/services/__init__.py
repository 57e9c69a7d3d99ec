"""One package per service: ``conformance/services/<id>/`` holds its simulator, its scenario
checks, its faults, its allowed variants and any client helper.

Packages are found by id (the folder name matches ``schemas/<id>/``); nothing shared lists them.
Importing a package registers its scenario checks and exposes ``SERVICE`` (a ``ServicePackage``).
A package that fails to import is a loud harness error naming it: a broken service never
silently disappears from a run.

What needs a service package is here, on the floor that knows them (the floors below are handed
what they need): a service's simulator, its faults and variants by name, and targets handed the
simulator, its seeded credentials and the fault or variant of a run.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

from conformance.contract import Contract, load_contract
from conformance.errors import HarnessError, UsageError, did_you_mean
from conformance.faults.base import Fault, Variant
from conformance.faults.generic import generic_faults
from conformance.faults.variants import GENERIC_VARIANTS, derived_variants
from conformance.services.base import ServicePackage
from conformance.settings import RunSettings
from conformance.simulators.base import Clock, Simulator
from conformance.targets import Target, make_target

__all__ = ["ServicePackage", "ServicePackageError", "bound_faults", "create_simulator", "fault_decorator", "faults_for",
           "load_service", "service_packages", "target_for", "variants_for"]

_CACHE: dict[str, ServicePackage] = {}


class ServicePackageError(HarnessError):
    """A service package exists but cannot be imported or does not expose ``SERVICE``."""


def service_packages() -> list[str]:
    """Ids of the service packages on disk (folders beside this file)."""
    here = str(Path(__file__).parent)
    return sorted(m.name for m in pkgutil.iter_modules([here]) if m.ispkg)


def load_service(service: str) -> ServicePackage:
    if service in _CACHE:
        return _CACHE[service]
    module_name = f"{__name__}.{service}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise UsageError(f"no service package for '{service}'{did_you_mean(service, service_packages())} "
                             f"(conformance/services/{service}/); "
                             f"available: {', '.join(service_packages()) or 'none'}") from None
        raise ServicePackageError(f"service package '{service}' failed to import: "
                                  f"{type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # any import-time bug: name the package, never hide it
        raise ServicePackageError(f"service package '{service}' failed to import: "
                                  f"{type(exc).__name__}: {exc}") from exc
    package = getattr(module, "SERVICE", None)
    if not isinstance(package, ServicePackage) or package.id != service:
        raise ServicePackageError(f"service package '{service}' must define SERVICE = ServicePackage('{service}', ...)")
    _CACHE[service] = package
    return package


def create_simulator(service: str, clock: Clock | None = None, **options: str) -> Simulator:
    """A fresh simulator; ``options`` are simulator settings (e.g. scanning's ``product``)."""
    factory = load_service(service).simulator
    try:
        return factory(clock=clock or Clock(), **options)
    except TypeError:
        raise UsageError(f"the {service} simulator takes no option {', '.join(sorted(options))}") from None


# Faults by (service, rules file, contract digest): every fault run of the kill matrix resolves its
# fault by name (fault_decorator), and deriving them all again cost 7 ms a run. Fault objects are
# frozen and their wrappers keep state only per simulator they wrap, so one list serves every run.
_FAULTS: dict[tuple[str, str, str], tuple[Fault, ...]] = {}


def faults_for(service: str) -> list[Fault]:
    """The service's own faults, each bound by rules.yaml to the rule it breaks, then the ones
    the core derives from its contract (faults/generic.py)."""
    contract = load_contract(service)
    key = (service, contract.rules_file, contract.digest)
    if key not in _FAULTS:
        _FAULTS[key] = tuple(_derive_faults(service, contract))
    return list(_FAULTS[key])


def _derive_faults(service: str, contract: Contract) -> list[Fault]:
    opted_out = {(rule.id, family) for rule in contract.rules for family in rule.no_derived_faults}
    derived = generic_faults(contract)
    unknown = {pair for pair in opted_out if not any((f.breaks, f.name.split(":")[0]) == pair for f in derived)}
    if unknown:
        raise ServicePackageError(f"{contract.rules_file}: derived_faults excepts {sorted(unknown)}, "
                                  "families the core derives nothing of for those rules")
    kept = [f for f in derived if (f.breaks, f.name.split(":")[0]) not in opted_out]
    return [*bound_faults(service, contract), *kept]


def bound_faults(service: str, contract: Contract) -> list[Fault]:
    """The package's hand-written faults with ``breaks`` filled from rules.yaml. A fault no rule
    names, or a name no fault has, is a harness error naming it: a fault that proves nothing, or
    a rule whose proof is gone, never passes quietly."""
    bindings = contract.fault_bindings()
    package = load_service(service).faults
    names = {f.name for f in package}
    unbound = sorted(names - set(bindings))
    if unbound:
        raise ServicePackageError(f"{service}: faults {', '.join(unbound)} are bound to no rule "
                                  f"(add `faults: [name]` to the rule each breaks in {contract.rules_file})")
    unknown = sorted(set(bindings) - names)
    if unknown:
        raise ServicePackageError(f"{service}: {contract.rules_file} binds {', '.join(unknown)}, "
                                  f"not a fault of conformance/services/{service}/")
    return [replace(f, breaks=bindings[f.name]) for f in package]


def variants_for(service: str) -> list[Variant]:
    """The generic allowed variants, those the contract implies, then the service's own."""
    return [*GENERIC_VARIANTS, *derived_variants(load_contract(service)), *load_service(service).variants]


def fault_decorator(service: str, name: str) -> Callable[[Simulator], Simulator]:
    """The wrapper of a named fault or allowed variant of ``service``."""
    items: list[Fault | Variant] = [*faults_for(service), *variants_for(service)]
    for item in items:
        if item.name == name:
            return item.apply
    known = ", ".join(f.name for f in items) or "none"
    raise UsageError(f"no fault or variant '{name}' for {service}{did_you_mean(name, [f.name for f in items])}; "
                     f"known: {known}")


def target_for(contract: Contract, settings: RunSettings,
               decorate: Callable[[Simulator], Simulator] | None = None,
               wait: Callable[[float], None] | None = None) -> Target:
    """``make_target`` handed what the sim target needs: the service's simulator, its seeded
    credentials, and (unless ``decorate`` is given) the wrapper of ``settings.fault``."""
    if settings.target != "sim":
        return make_target(contract, settings, decorate, wait)
    service = contract.service
    if decorate is None and settings.fault:
        decorate = fault_decorator(service, settings.fault)
    return make_target(contract, settings, decorate, wait, simulator=partial(create_simulator, service),
                       credentials=load_service(service).credentials())
