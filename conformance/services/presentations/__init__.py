"""Presentation-generation service (volume 1, part B): async generations, credits, cursor lists."""

from conformance.services.base import ServicePackage
from conformance.services.presentations.faults import FAULTS
from conformance.services.presentations.simulator import PresentationsSimulator
from conformance.services.presentations.variants import VARIANTS

SERVICE = ServicePackage("presentations", simulator=PresentationsSimulator, faults=tuple(FAULTS),
                         variants=tuple(VARIANTS))
