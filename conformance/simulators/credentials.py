"""The credentials the sim target uses: each simulator's seeded accounts, by contract name."""

from __future__ import annotations

from conformance.simulators import simulator_factories

__all__ = ["sim_credentials"]


def sim_credentials(service: str) -> dict[str, str]:
    factory = simulator_factories().get(service)
    return dict(getattr(factory, "credentials", {}) or {})
