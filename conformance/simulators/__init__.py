"""What every hand-written simulator shares (clock, routing, hostile-input handling, ASGI).

The simulators themselves live in their service's package (``conformance/services/<id>/``);
each is an independent reading of its document, never generated from the contract. The core
is I/O free: ``Simulator.handle(Request) -> Response``; ``asgi.py`` serves it over HTTP.
"""

from __future__ import annotations

from conformance.errors import UsageError
from conformance.simulators.base import Clock, Simulator

__all__ = ["Clock", "Simulator", "create_simulator"]


def create_simulator(service: str, clock: Clock | None = None, **options: str) -> Simulator:
    """A fresh simulator; ``options`` are simulator settings (e.g. scanning's ``product``)."""
    from conformance.services import load_service

    factory = load_service(service).simulator
    try:
        return factory(clock=clock or Clock(), **options)
    except TypeError:
        raise UsageError(f"the {service} simulator takes no option {', '.join(sorted(options))}") from None
