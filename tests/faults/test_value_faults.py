"""The derived families of ```faults/values.py`` on the tiny servers the core checks are tested
against: each makes a conforming server fail its rule's check, for the reason the rule states."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.contract import Contract, Gap, Rule
from conformance.errors import ContractFailure
from conformance.faults.values import value_faults
from tests.checks import test_anywhere, test_declared_charset, test_row_values
from tests.checks import test_bodies_defaults_content as bodies
from tests.checks.server import context


def _fault(openapi: dict[str, Any], rule: Rule, name: str, settings: dict[str, Any] | None = None) -> Any:
    gap = Gap("demo.gap.alias", "s", None)  # type: ignore[arg-type]
    faults = {f.name.split(":")[0]: f for f in value_faults(Contract("demo", "demo", openapi, [rule], [gap], [],
                                                                     settings or {}))}
    assert faults[name].breaks == rule.id
    return faults[name]


def _broken(fault: Any, handle: Any) -> Any:
    return fault.apply(SimpleNamespace(handle=handle)).handle


ROWS = {"defaults": {"ITEMS_FIELD": "results"}}


def test_row_value_off_schema_breaks_a_listed_value_and_a_bound() -> None:
    fault = _fault(test_row_values.OPENAPI, test_row_values.STATUS, "row-value-off-schema", ROWS)
    assert "'Open'" in fault.description  # a near miss of the first listed value
    with pytest.raises(ContractFailure, match="'Open'"):
        test_row_values.run(test_row_values.STATUS, _broken(fault, test_row_values.receipts(test_row_values.ROWS)))
    quantity = test_row_values._rule(member="quantity", schema={"type": "integer", "exclusiveMinimum": 0})
    fault = _fault(test_row_values.OPENAPI, quantity, "row-value-off-schema", ROWS)
    with pytest.raises(ContractFailure, match="quantity 0"):
        test_row_values.run(quantity, _broken(fault, test_row_values.receipts([{"id": 1, "quantity": 2}])))


def test_row_filter_ignored_breaks_a_filter_rule() -> None:
    fault = _fault(test_row_values.OPENAPI, test_row_values.FILTER, "row-filter-ignored", ROWS)
    with pytest.raises(ContractFailure, match="returned a row whose state"):
        test_row_values.run_observed(test_row_values.FILTER, _broken(fault, test_row_values.listings()))


def test_object_member_dropped_breaks_objects_like() -> None:
    fault = _fault(test_anywhere.OPENAPI, test_anywhere.MONEY, "object-member-dropped")
    rule = test_anywhere.MONEY
    contract = Contract("demo", "demo", test_anywhere.OPENAPI, [rule], [], [], {})
    with pytest.raises(ContractFailure, match="is a required property"):
        test_anywhere.objects_like(context(contract, rule, _broken(fault, test_anywhere.server(
            {"price": test_anywhere.PRICE}))))


def test_charset_declared_other_breaks_declared_charset() -> None:
    rule = test_declared_charset.RULE
    fault = _fault(test_declared_charset.OPENAPI, rule, "charset-declared-other")
    with pytest.raises(ContractFailure, match="charset=iso-8859-1"):
        test_declared_charset.declared_charset(context(
            Contract("demo", "demo", test_declared_charset.OPENAPI, [rule], [], [], {}), rule,
            _broken(fault, test_declared_charset.server())))


def test_numbers_unquoted_breaks_numbers_as_strings() -> None:
    fault = _fault(test_anywhere.OPENAPI, test_anywhere.NUMBERS, "numbers-unquoted")
    rule = test_anywhere.NUMBERS
    contract = Contract("demo", "demo", test_anywhere.OPENAPI, [rule], [], [], {})
    with pytest.raises(ContractFailure, match="is the JSON number 1.5"):
        test_anywhere.numbers_as_strings(context(contract, rule, _broken(fault, test_anywhere.server(
            {"weight": "1.5"}))))


def test_content_not_json_breaks_a_member_declared_to_hold_json() -> None:
    fault = _fault(bodies.OPENAPI, bodies.MEMBERS, "content-not-json")
    with pytest.raises(ContractFailure, match="does not parse as JSON"):
        bodies.run(bodies.MEMBERS, _broken(fault, bodies.record("[]")))
