"""Internet-scanning service (volume 2, part B): host search, facets, credits, DNS, org."""

from conformance.services.base import ServicePackage
from conformance.services.scanning import checks, credit_checks, dns_checks, search_checks  # noqa: F401
from conformance.services.scanning.faults import FAULTS
from conformance.services.scanning.simulator import ScanningSimulator
from conformance.services.scanning.variants import VARIANTS

SERVICE = ServicePackage("scanning", simulator=ScanningSimulator, faults=tuple(FAULTS), variants=tuple(VARIANTS))
