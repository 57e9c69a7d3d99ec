"""The derived families of ``faults/requests.py`` on the tiny servers the core checks are tested
against: each makes a conforming server fail its rule's check, for the reason the rule states."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.contract import Contract, Gap, Rule
from conformance.errors import ContractFailure
from conformance.faults.requests import request_faults
from tests.checks import test_credential_accepted, test_form_accepted, test_ids_in_path, test_typed_parameters


def _faults(openapi: dict[str, Any], rule: Rule) -> dict[str, Any]:
    gap = Gap("demo.gap.delete-again", "s", None)  # type: ignore[arg-type]
    found = {f.name.split(":")[0]: f for f in request_faults(Contract("demo", "demo", openapi, [rule], [gap], [], {}))}
    assert all(f.breaks == rule.id for f in found.values())
    return found


def _broken(fault: Any, handle: Any) -> Any:
    return fault.apply(SimpleNamespace(handle=handle)).handle


@pytest.mark.parametrize(("name", "rule", "reads"), [
    ("form-charset-refused", test_form_accepted.PLAIN, "charset=utf-8"),
    ("form-text-refused", test_form_accepted.TEXTED, "added to title"),
    ("form-text-garbled", test_form_accepted.TEXTED, "the answer's title is")])
def test_form_faults_break_form_accepted(name: str, rule: Rule, reads: str) -> None:
    fault = _faults(test_form_accepted.OPENAPI, rule)[name]
    with pytest.raises(ContractFailure, match=reads):
        test_form_accepted.run(rule, _broken(fault, test_form_accepted.server()))


def test_ids_from_headers_breaks_ids_in_path() -> None:
    rule = test_ids_in_path._rule("ids-in-path")
    fault = _faults(test_ids_in_path.OPENAPI, rule)["ids-from-headers"]
    store = test_ids_in_path.Store()
    with pytest.raises(ContractFailure, match="ids sent as headers reached the operation"):
        test_ids_in_path.run(rule, SimpleNamespace(handle=_broken(fault, store.handle)))  # type: ignore[arg-type]


def test_repeat_crashes_breaks_write_repeated() -> None:
    rule = test_ids_in_path._rule("write-repeated")
    fault = _faults(test_ids_in_path.OPENAPI, rule)["repeat-crashes"]
    with pytest.raises(ContractFailure, match="sent again crashed"):
        test_ids_in_path.run(rule, SimpleNamespace(handle=_broken(fault, test_ids_in_path.Store().handle)))  # type: ignore[arg-type]


def test_documented_credential_refused_breaks_credential_accepted() -> None:
    rule = test_credential_accepted.RULE
    fault = _faults(test_credential_accepted.OPENAPI, rule)["documented-credential-refused"]
    with pytest.raises(ContractFailure, match="in its documented form"):
        test_credential_accepted.run(_broken(fault, test_credential_accepted.server()))


def test_typed_value_taken_breaks_typed_parameters() -> None:
    rule = test_typed_parameters.INTEGER
    fault = _faults(test_typed_parameters.OPENAPI, rule)["typed-value-taken"]
    with pytest.raises(ContractFailure, match="'abc'"):
        test_typed_parameters.run(rule, SimpleNamespace(handle=_broken(fault, test_typed_parameters.server().handle)))
