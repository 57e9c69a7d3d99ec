"""Assertions that raise ``ContractFailure`` with the rule id and the exchange attached.

Checks use them (through ``conformance.checks.expect``), and so does the OAuth client
(``conformance.auth.oauth``), which sits below the checks: hence they live with the contract."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from conformance.contract.model import Contract
from conformance.contract.validation import FORMAT_CHECKER, body_error, validator
from conformance.errors import ContractFailure, RuleSkipped, SkipKind
from conformance.transport.model import Exchange

__all__ = ["FORMAT_CHECKER", "expect", "expect_status", "expect_json_schema", "success_statuses", "validator"]


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
    if status not in codes and exchange.transient and any(200 <= c < 300 for c in codes):
        # A success was wanted and the target kept answering what its document says to retry:
        # nothing was shown about the rule either way (a storm is not a verdict).
        raise RuleSkipped(f"{why}: the target kept answering {exchange.transient}, which the document tells "
                          f"clients to retry: {exchange.response.summary()}", SkipKind.TARGET_TRANSIENT)
    if status not in codes:
        raise ContractFailure(
            rule_id, f"{why}: got status {status}",
            expected=f"status {' or '.join(str(c) for c in sorted(codes))}", exchange=exchange,
        )


def success_statuses(contract: Contract, operation: str) -> set[int]:
    return {s for s in contract.documented_statuses(operation) if 200 <= s < 300}


def expect_json_schema(rule_id: str, contract: Contract, exchange: Exchange,
                       schema: dict[str, Any], what: str) -> Any:
    body = exchange.response.json()
    if body is None:
        raise ContractFailure(rule_id, f"{what}: body is not JSON", expected="a JSON body", exchange=exchange)
    # Remembered per body (contract/validation.py): the matrix sees the same bodies again and again.
    error = body_error(contract, schema, exchange.response.body, body)
    if error is not None:
        place, message = error
        raise ContractFailure(
            rule_id, f"{what}: at {place}: {message}",
            expected="a body valid under the contract's schema", exchange=exchange,
        )
    return body
