"""Checks: plain functions registered by rule kind, name or rule id, raising ``ContractFailure``."""

from conformance.checks.context import CheckContext
from conformance.checks.registry import CheckSpec, for_kind, named, spec_for

__all__ = ["CheckContext", "CheckSpec", "for_kind", "named", "spec_for"]
