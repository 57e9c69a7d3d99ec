"""The derived OAuth families (``faults/oauth.py``) on the in-test authorization server of
``tests/checks/test_oauth.py``: each makes the conforming server fail its rule's check, for the
reason the rule states (the same messages a deviating server gets there)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conformance.contract import Contract
from conformance.errors import ContractFailure
from conformance.faults.oauth import oauth_faults
from tests.checks import test_oauth

CASES = [
    ("redirect-query", "code-dropped", "issued no code"),
    ("state-echoed", "state-replaced", "state differs from the state sent"),
    ("error-redirect", "error-description-dropped", "no readable text"),
    ("code-exchange", "scope-first-only", "every scope granted"),
    ("code-exchange", "refresh-token-withheld", "no refresh token"),
    ("expires-in", "expires-in-doubled", "expires_in is 7200"),
    ("refresh-grant", "refresh-grant-refused", "refresh_token grant"),
    ("code-again", "code-replayed", "a second time"),
    ("other-redirect-uri", "redirect-uri-ignored", "redirect_uri other than"),
    ("leave-out", "fields-filled", "without grant_type"),
]


@pytest.mark.parametrize(("rule", "family", "reads"), CASES)
def test_each_derived_fault_makes_the_conforming_server_fail(rule: str, family: str, reads: str) -> None:
    contract = Contract("demo", "demo", test_oauth.OPENAPI, [test_oauth.RULES[rule]], [], [], {})
    [fault] = [f for f in oauth_faults(contract) if f.name.startswith(f"{family}:")]
    server = test_oauth.Server()
    faulty = fault.apply(SimpleNamespace(handle=server.handle))  # type: ignore[arg-type]
    server.handle = faulty.handle  # type: ignore[method-assign]
    with pytest.raises(ContractFailure, match=reads):
        test_oauth.run(server, test_oauth.RULES[rule])


def test_no_oauth2_scheme_derives_nothing() -> None:
    openapi = {"openapi": "3.1.0", "paths": {}}
    assert oauth_faults(Contract("demo", "demo", openapi, list(test_oauth.RULES.values()), [], [], {})) == []
