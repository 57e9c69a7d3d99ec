"""Named faults: small deviations applied to a simulator so that it breaks one rule.

They prove the checks can fail. A fault is preferably a wrapper around the simulator (request
or response rewritten on the way) rather than a branch inside it, so the simulator stays clean.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from conformance.errors import UsageError
from conformance.faults.base import Fault, FaultySimulator, fault
from conformance.simulators import Simulator

__all__ = ["Fault", "FaultySimulator", "fault", "fault_decorator", "faults_for"]

_MODULES = {
    "presentations": "conformance.faults.presentations",
    "scanning": "conformance.faults.scanning",
    "marketplace": "conformance.faults.marketplace",
}


def faults_for(service: str) -> list[Fault]:
    module = _MODULES.get(service)
    if module is None:
        return []
    try:
        return list(importlib.import_module(module).FAULTS)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return []


def fault_decorator(service: str, name: str) -> Callable[[Simulator], Simulator]:
    for item in faults_for(service):
        if item.name == name:
            return item.apply
    known = ", ".join(f.name for f in faults_for(service)) or "none"
    raise UsageError(f"no fault '{name}' for {service}; known: {known}")
