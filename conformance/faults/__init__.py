"""Faults and allowed variants: small wrappers applied to a simulator.

A fault makes the simulator break one rule (proof the checks can fail); an allowed variant
makes it choose differently where the document is silent (proof they do not fail a conforming
server). Both live in the service's package; ``conformance.services`` finds them by name
(``faults_for``, ``variants_for``, ``fault_decorator``).
"""

from __future__ import annotations

from conformance.faults.base import Fault, FaultySimulator, Variant, fault, variant

__all__ = ["Fault", "FaultySimulator", "Variant", "fault", "variant"]
