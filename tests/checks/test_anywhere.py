"""The core checks ``numbers-as-strings`` and ``objects-like`` against a tiny list server: they
pass bodies that hold the convention (integers stay JSON numbers; a lone member is no object of
the schema), fail a fractional JSON number and an object missing a member of the schema, and
skip (never pass) where no answer carries such an object."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.anywhere import numbers_as_strings, objects_like
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "components": {"schemas": {"Money": {"type": "object", "required": ["amount", "divisor", "currency_code"],
                                         "properties": {"amount": {"type": "integer"}, "divisor": {"type": "integer"},
                                                        "currency_code": {"type": "string"}}}}},
    "paths": {"/items": {"get": {"security": [], "parameters": [
        {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}],
        "responses": {"200": {"description": "items"}}}}}}
PRICE = {"amount": 1250, "divisor": 100, "currency_code": "EUR"}


def server(item: dict[str, Any]) -> Any:
    def handle(request: Request) -> Response:
        assert dict(request.query) == {"limit": "100"}  # at_maximum: the largest page
        body = json.dumps({"count": 1, "results": [{"id": 7, **item}]})
        return Response(200, {"content-type": "application/json"}, body.encode())

    return handle


def _rule(check: str, **params: Any) -> Rule:
    return Rule(id="demo.values.rule", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation=None, params={"check": check, "operations": ["GET /items"], "at_maximum": ["limit"],
                                        **params})


NUMBERS, MONEY = _rule("numbers-as-strings"), _rule("objects-like", schema="Money", marks=2)


def run(rule: Rule, item: dict[str, Any]) -> None:
    check = numbers_as_strings if rule.params["check"] == "numbers-as-strings" else objects_like
    check(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server(item)))


def test_numbers_as_strings_passes_strings_and_integers_and_fails_a_fraction() -> None:
    run(NUMBERS, {"weight": "1.5", "price": PRICE})
    with pytest.raises(ContractFailure, match=r"results\[0\].weight is the JSON number 1.5"):
        run(NUMBERS, {"weight": 1.5})
    with pytest.raises(ContractFailure, match="JSON number"):
        run(NUMBERS, {"weight": 1e3})


def test_objects_like_holds_an_object_with_two_members_to_the_whole_schema() -> None:
    run(MONEY, {"price": PRICE, "currency_code": "EUR"})  # a lone currency_code is no Money
    with pytest.raises(ContractFailure, match="'divisor' is a required property"):
        run(MONEY, {"price": {"amount": 1250, "currency_code": "EUR"}})


def test_objects_like_is_skipped_where_no_answer_carries_one() -> None:
    with pytest.raises(RuleSkipped, match="no answer carries an object"):
        run(MONEY, {"currency_code": "EUR"})


def test_objects_like_with_members_holds_only_the_named_members() -> None:
    named = _rule("objects-like", schema="Money", members="price, total")
    run(named, {"price": PRICE, "weight": {"amount": 250, "divisor": 1, "unit": "g"}})  # like Money, not named
    with pytest.raises(ContractFailure, match=r"results\[0\].price is no Money"):
        run(named, {"price": "12.50"})
    with pytest.raises(RuleSkipped, match="no answer carries a member named price, total"):
        run(named, {"weight": {"amount": 250, "divisor": 1}})


def test_objects_like_takes_marks_or_members_not_both() -> None:
    with pytest.raises(ContractFileError, match="one of marks"):
        run(_rule("objects-like", schema="Money", marks=2, members="price"), {"price": PRICE})
