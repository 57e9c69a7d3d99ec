"""Assertions that raise ``ContractFailure`` with the rule id and the exchange attached: the
building blocks of every check. They live in ``conformance/contract/expect.py`` so that the OAuth
client (``conformance.auth``, below the checks) can use them too."""

from conformance.contract.expect import (
    FORMAT_CHECKER,
    expect,
    expect_json_schema,
    expect_status,
    success_statuses,
    validator,
)

__all__ = ["FORMAT_CHECKER", "expect", "expect_status", "expect_json_schema", "success_statuses", "validator"]
