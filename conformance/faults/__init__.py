"""Faults and allowed variants: small wrappers applied to a simulator.

A fault makes the simulator break one rule (proof the checks can fail); an allowed variant
makes it choose differently where the document is silent (proof they do not fail a conforming
server). Both live in the service's package; this module finds them by name.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.errors import UsageError
from conformance.faults.base import Fault, FaultySimulator, Variant, fault, variant
from conformance.simulators.base import Simulator

__all__ = ["Fault", "FaultySimulator", "Variant", "fault", "fault_decorator", "faults_for", "variant",
           "variants_for"]


def faults_for(service: str) -> list[Fault]:
    """The service's own faults, then the generic ones its contract implies (faults/generic.py)."""
    from conformance.contract import load_contract
    from conformance.faults.generic import generic_faults
    from conformance.services import load_service

    return [*load_service(service).faults, *generic_faults(load_contract(service))]


def variants_for(service: str) -> list[Variant]:
    """The generic allowed variants, then the service's own."""
    from conformance.faults.variants import GENERIC_VARIANTS
    from conformance.services import load_service

    return [*GENERIC_VARIANTS, *load_service(service).variants]


def fault_decorator(service: str, name: str) -> Callable[[Simulator], Simulator]:
    """The wrapper of a named fault or allowed variant of ``service``."""
    items: list[Fault | Variant] = [*faults_for(service), *variants_for(service)]
    for item in items:
        if item.name == name:
            return item.apply
    known = ", ".join(f.name for f in items) or "none"
    raise UsageError(f"no fault or variant '{name}' for {service}; known: {known}")
