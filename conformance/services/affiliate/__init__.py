"""Affiliate-tracking service (volume 3, part C): reports, click stream, dashboard, smart links, uploads."""

from conformance.services.affiliate.faults import FAULTS
from conformance.services.affiliate.simulator import AffiliateSimulator
from conformance.services.affiliate.variants import VARIANTS
from conformance.services.base import ServicePackage

SERVICE = ServicePackage("affiliate", simulator=AffiliateSimulator, faults=tuple(FAULTS), variants=tuple(VARIANTS))
