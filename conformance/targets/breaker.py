"""The circuit breaker a target keeps: failures in a row, until one success starts the count again.

A target keeps two (transport failures, rate-limited rules) with the same threshold
(CONFORMANCE_BREAKER_FAILURES); once one is open the remaining rules are reported with that one
cause instead of each waiting out its own failure.
"""

from __future__ import annotations

__all__ = ["Breaker"]


class Breaker:
    """Counts failures in a row; ``failures`` keeps their reasons, first to last."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def fail(self, why: str, threshold: int) -> bool:
        """Count one failure; True once ``threshold`` have been counted in a row (the breaker is open)."""
        self.failures.append(why)
        return len(self.failures) >= threshold

    def succeed(self) -> None:
        self.failures.clear()
