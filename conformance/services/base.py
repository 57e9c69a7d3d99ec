"""What a service package exposes to the harness."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from conformance.checks.context import TokenSource
from conformance.faults.base import Fault, Variant
from conformance.simulators.base import Simulator

__all__ = ["ServicePackage", "TokenSource"]


@dataclass(frozen=True)
class ServicePackage:
    """A service: its simulator factory (``clock=``, options as keywords), the faults that prove
    its checks can fail, and the allowed variants that prove they do not fail a conforming server
    that chose differently where the document is silent."""

    id: str
    simulator: Callable[..., Simulator]
    faults: tuple[Fault, ...] = ()
    variants: tuple[Variant, ...] = ()
    # Obtains the credentials a security scheme lists under x-tokens (an OAuth 2.0 refresh).
    token_source: TokenSource | None = None

    def credentials(self) -> dict[str, str]:
        """The simulator's seeded credentials by the contract's names (what the sim target sends)."""
        return dict(getattr(self.simulator, "credentials", {}) or {})
