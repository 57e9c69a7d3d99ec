"""Checks: plain functions registered by rule kind or rule id, raising ``ContractFailure``."""

from conformance.checks.context import CheckContext, CheckSkipped
from conformance.checks.registry import check_for, for_kind, for_rule, load_all

__all__ = ["CheckContext", "CheckSkipped", "check_for", "for_kind", "for_rule", "load_all"]
