"""Hand-written, in-memory simulators of the documented services.

Each is an independent reading of its document (not generated from the contract, so checks
against it are not tautological). The core is I/O free: ``Simulator.handle(Request) ->
Response``; ``asgi.py`` serves the same core over HTTP.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.errors import UsageError
from conformance.simulators.base import Clock, Simulator

__all__ = ["Clock", "Simulator", "create_simulator", "simulator_factories"]


def simulator_factories() -> dict[str, Callable[..., Simulator]]:
    # Imported lazily so one broken simulator cannot stop the others from loading.
    from conformance.simulators.presentations import PresentationsSimulator

    factories: dict[str, Callable[..., Simulator]] = {"presentations": PresentationsSimulator}
    try:
        from conformance.simulators.scanning import ScanningSimulator
        factories["scanning"] = ScanningSimulator
    except ImportError:
        pass
    try:
        from conformance.simulators.marketplace import MarketplaceSimulator
        factories["marketplace"] = MarketplaceSimulator
    except ImportError:
        pass
    return factories


def create_simulator(service: str, clock: Clock | None = None, **options: str) -> Simulator:
    """A fresh simulator; ``options`` are simulator settings (e.g. scanning's ``product``)."""
    factories = simulator_factories()
    if service not in factories:
        raise UsageError(f"no simulator for '{service}'; available: {', '.join(sorted(factories))}")
    try:
        return factories[service](clock=clock or Clock(), **options)
    except TypeError:
        raise UsageError(f"the {service} simulator takes no option {', '.join(sorted(options))}") from None
