"""What every hand-written simulator shares (clock, routing, hostile-input handling, ASGI).

The simulators themselves live in their service's package (``conformance/services/<id>/``);
each is an independent reading of its document, never generated from the contract. The core
is I/O free: ``Simulator.handle(Request) -> Response``; ``asgi.py`` serves it over HTTP.
A service's simulator is made by ``conformance.services.create_simulator``.
"""

from __future__ import annotations

from conformance.simulators.base import Clock, Simulator

__all__ = ["Clock", "Simulator"]
