"""Smart-contract platform service (volume 1, part C): a three-part bearer key, two fee
estimates, get contract; the operations without a shown path run on target settings."""

from conformance.services.base import ServicePackage
from conformance.services.contracts.faults import FAULTS
from conformance.services.contracts.simulator import ContractsSimulator
from conformance.services.contracts.variants import VARIANTS

SERVICE = ServicePackage("contracts", simulator=ContractsSimulator, faults=tuple(FAULTS),
                         variants=tuple(VARIANTS))
