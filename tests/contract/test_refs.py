"""One $ref look-up (Contract.resolve) for schemas, parameters and responses: chains followed,
a cycle or a dangling reference a contract error, never a hang or a KeyError."""

from __future__ import annotations

import dataclasses

import pytest

from conformance.contract import load_contract
from conformance.errors import ContractFileError


def _with_components(**components: dict[str, object]) -> object:
    contract = load_contract("tokenrisk")
    openapi = {**contract.openapi, "components": {**contract.openapi.get("components", {}), **components}}
    return dataclasses.replace(contract, openapi=openapi)


def test_a_chain_of_refs_is_followed_across_component_kinds() -> None:
    contract = _with_components(parameters={"A": {"$ref": "#/components/parameters/B"},
                                            "B": {"name": "limit", "in": "query", "schema": {"type": "integer"}}})
    assert contract.resolve({"$ref": "#/components/parameters/A"})["name"] == "limit"  # type: ignore[attr-defined]


@pytest.mark.parametrize("ref", ["#/components/schemas/Loop", "#/components/schemas/Nothing", "other.yaml#/x"])
def test_a_cycle_or_a_dangling_ref_is_one_contract_error(ref: str) -> None:
    contract = _with_components(schemas={"Loop": {"$ref": "#/components/schemas/Loop"}})
    with pytest.raises(ContractFileError, match=r"\$ref"):
        contract.resolve({"$ref": ref})  # type: ignore[attr-defined]


def test_parameters_come_resolved() -> None:
    contract = load_contract("marketplace")
    for operation in contract.operations():
        assert all("$ref" not in p for p in [*contract.parameters(operation), *contract.path_parameters(operation)])
