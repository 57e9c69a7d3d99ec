"""Which target a run gets: the one place that knows all three targets by name.

Apart from ``base.py`` because it imports every target and every target imports the base; checks
and the runner ask a target's ``Capabilities``, never which class it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from conformance.contract import Contract
from conformance.settings import RunSettings
from conformance.simulators import Simulator
from conformance.targets.base import Target
from conformance.targets.http import HttpTarget
from conformance.targets.replay import ReplayTarget
from conformance.targets.sim import SimTarget, SimulatorFactory

__all__ = ["make_target"]


def make_target(contract: Contract, settings: RunSettings,
                decorate: Callable[[Simulator], Simulator] | None = None,
                wait: Callable[[float], None] | None = None, *,
                simulator: SimulatorFactory | None = None, credentials: Mapping[str, str] | None = None) -> Target:
    """The target ``settings`` name; ``wait`` replaces real waiting over HTTP (a served simulator
    with a stepped clock). The sim target needs ``simulator`` and its seeded ``credentials``;
    ``decorate`` wraps each simulator (the fault or variant of ``settings.fault``).
    ``conformance.services.target_for`` hands all three from the service package."""
    if settings.target == "sim":
        if simulator is None or credentials is None:
            raise TypeError("the sim target needs simulator= and credentials= (conformance.services.target_for)")
        if decorate is None and settings.fault:
            raise TypeError(f"fault {settings.fault!r} not handed as decorate= (conformance.services.target_for)")
        return SimTarget(contract, settings, simulator, credentials, decorate)
    if settings.target == "http":
        return HttpTarget(contract, settings, wait)
    return ReplayTarget(contract, settings)
