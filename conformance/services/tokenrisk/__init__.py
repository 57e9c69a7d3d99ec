"""Token-risk service (volume 1, part A): a route table and little else; the test of "not shown".

Every rule runs on a core check, so the package registers none of its own."""

from conformance.services.base import ServicePackage
from conformance.services.tokenrisk.faults import FAULTS
from conformance.services.tokenrisk.simulator import TokenRiskSimulator
from conformance.services.tokenrisk.variants import VARIANTS

SERVICE = ServicePackage("tokenrisk", simulator=TokenRiskSimulator, faults=tuple(FAULTS), variants=tuple(VARIANTS))
