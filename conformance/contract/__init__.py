"""Contracts: the OpenAPI document and rule catalogue of one service, loaded through one funnel."""

from conformance.contract.loader import load_contract
from conformance.contract.model import Conflict, Contract, Gap, Rule

__all__ = ["Conflict", "Contract", "Gap", "Rule", "load_contract"]
