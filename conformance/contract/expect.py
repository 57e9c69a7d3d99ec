"""Assertions that raise ``ContractFailure`` with the rule id and the exchange attached.

Checks use them (through ``conformance.checks.expect``), and so does the OAuth client
(``conformance.auth.oauth``), which sits below the checks: hence they live with the contract."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jsonschema

from conformance.contract.model import Contract
from conformance.errors import ContractFailure, RuleSkipped, SkipKind
from conformance.transport.model import Exchange

__all__ = ["FORMAT_CHECKER", "expect", "expect_status", "expect_json_schema", "success_statuses", "validator"]

_VALIDATORS: dict[int, jsonschema.protocols.Validator] = {}
# Formats are assertions, not annotations: a date-time member holding "not-a-date" breaks the
# contract. Which formats are really checked depends on jsonschema's optional dependencies
# (listed in pyproject.toml); tests/checks/test_formats.py fails if one of ours is not.
FORMAT_CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER


def expect(condition: bool, rule_id: str, message: str, *, exchange: Exchange | None = None,
           expected: str = "") -> None:
    if not condition:
        raise ContractFailure(rule_id, message, expected=expected, exchange=exchange)


def expect_status(rule_id: str, exchange: Exchange, allowed: int | Iterable[int], why: str) -> None:
    codes = {allowed} if isinstance(allowed, int) else set(allowed)
    status = exchange.response.status
    if status == 429 and 429 not in codes:
        # Too Many Requests says nothing about the rule: it was not checked (never "failed").
        raise RuleSkipped(f"{why}: the target answered 429 (rate-limited) {exchange.response.summary()}",
                          SkipKind.RATE_LIMITED)
    if status not in codes:
        raise ContractFailure(
            rule_id, f"{why}: got status {status}",
            expected=f"status {' or '.join(str(c) for c in sorted(codes))}", exchange=exchange,
        )


def success_statuses(contract: Contract, operation: str) -> set[int]:
    return {s for s in contract.documented_statuses(operation) if 200 <= s < 300}


def validator(contract: Contract, schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    # Keyed by identity of the contract's own schema object: contracts are cached and read-only.
    key = id(schema)
    if key not in _VALIDATORS:
        _VALIDATORS[key] = jsonschema.Draft202012Validator(contract.standalone(schema),
                                                           format_checker=FORMAT_CHECKER)
    return _VALIDATORS[key]


def expect_json_schema(rule_id: str, contract: Contract, exchange: Exchange,
                       schema: dict[str, Any], what: str) -> Any:
    body = exchange.response.json()
    if body is None:
        raise ContractFailure(rule_id, f"{what}: body is not JSON", expected="a JSON body", exchange=exchange)
    error = jsonschema.exceptions.best_match(validator(contract, schema).iter_errors(body))
    if error is not None:
        place = "/".join(str(p) for p in error.absolute_path) or "(body)"
        raise ContractFailure(
            rule_id, f"{what}: at {place}: {error.message}",
            expected="a body valid under the contract's schema", exchange=exchange,
        )
    return body
