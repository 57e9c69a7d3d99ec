"""Plausible foreign values of a string enum (contract/foreign.py): siblings from the vocabulary
chosen by overlap with the listed values, a numbered series' next number, another list's values,
the document's one-word gloss of a value; never a listed value in any letter case or spelling,
never a word a gap uses, never more than LIMIT; the derived off-list probes send them."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.contract import Contract
from conformance.contract.derive import field_probes
from conformance.contract.foreign import LIMIT, document_words, foreign_values, siblings
from conformance.contract.model import Gap, Source

SOURCE = Source("volume-0.md", "Endpoints", "A", "", "a")


def _contract(*enums: dict[str, Any], gaps: list[Gap] | None = None) -> Contract:
    properties = {f"m{i}": {"type": "string", **schema} for i, schema in enumerate(enums)}
    example = {name: schema["enum"][0] for name, schema in properties.items()}
    openapi = {"openapi": "3.1.0", "paths": {"/things": {"post": {
        "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "properties": properties}, "example": example}}},
        "responses": {"201": {"description": "made"}}}}}}
    return Contract("demo", "demo", openapi, [], gaps or [], [], {})


@pytest.mark.parametrize(("listed", "expected"), [
    (["pptx", "pdf", "png"], "xlsx"),
    (["csv", "json"], "xlsx"),
    (["active", "paused", "deleted"], "archived"),
    (["ETH", "ETH-SEPOLIA", "MATIC", "MATIC-AMOY"], "ETH-GOERLI"),
    (["A", "AAAA", "CNAME", "MX"], "PTR"),
    (["asc", "desc"], "ascending"),
    (["sub1", "sub2", "sub3"], "sub4"),
    (["12_hours", "24_hours"], "48_hours"),
])
def test_siblings_of_the_kind_the_listed_values_share(listed: list[str], expected: str) -> None:
    assert expected in foreign_values(_contract({"enum": listed}), listed)


def test_a_list_of_no_known_kind_gets_no_sibling() -> None:
    assert siblings(["aiGenerated", "webFreeToUseCommercially", "noImages"]) == []


def test_the_documents_gloss_in_brackets_is_a_foreign_value_and_other_items_are_not() -> None:
    text = "| textMode | string enum | yes | generate (topic to content), condense (summarize), preserve |"
    assert document_words(["generate", "condense", "preserve"], [text]) == ["summarize"]
    # "inactive" is another item of the list the document gives: documented, not foreign.
    listing = "Listing state: active (has quantity), inactive or edit (no longer active), sold_out, draft."
    assert document_words(["active", "sold_out", "draft"], [listing]) == []


def test_the_schema_description_is_read_for_glosses() -> None:
    listed = ["generate", "condense", "preserve"]
    contract = _contract({"enum": listed, "description": "generate (write), condense (summarize), preserve"})
    assert foreign_values(contract, listed)[:2] == ["write", "summarize"]


def test_another_list_sharing_a_value_lends_its_other_values() -> None:
    contract = _contract({"enum": ["12_hours", "24_hours"]}, {"enum": ["12_hours", "24_hours", "72_hours"]})
    assert "72_hours" in foreign_values(contract, ["12_hours", "24_hours"])


@pytest.mark.parametrize("listed", [["pdf", "PPTX", "png"], ["active", "Archived", "paused"], ["sold_out", "draft"]])
def test_no_foreign_value_is_a_listed_one_in_another_case_or_spelling(listed: list[str]) -> None:
    keys = {v.casefold().replace("_", "").replace("-", "") for v in listed}
    found = foreign_values(_contract({"enum": listed}), listed)
    assert found and all(v.casefold().replace("_", "").replace("-", "") not in keys for v in found)
    assert all(v not in {m for x in listed for m in (x[:-1], x + "s")} for v in found)  # near misses are sent anyway


def test_a_word_a_gap_uses_is_never_a_probe() -> None:
    gap = Gap("demo.gap.archive", "whether an archived thing can be filtered is not shown", SOURCE)
    listed = ["active", "paused", "deleted"]
    assert "archived" in foreign_values(_contract({"enum": listed}), listed)
    assert "archived" not in foreign_values(_contract({"enum": listed}, gaps=[gap]), listed)


def test_bounded_written_in_the_lists_case_and_strings_only() -> None:
    assert len(foreign_values(_contract({"enum": ["csv", "json"]}), ["csv", "json"])) == LIMIT
    assert all(v.isupper() for v in foreign_values(_contract({"enum": ["TCP", "UDP"]}), ["TCP", "UDP"]))
    assert foreign_values(_contract({"enum": ["a"]}), [1, 2, 3]) == []


def test_the_derived_off_list_probes_send_them_and_never_another_case() -> None:
    contract = _contract({"enum": ["pptx", "pdf", "png"], "x-outside": ["PDF", "ppt-x"]})
    values = [p.value for p in field_probes(contract, "POST /things") if p.label.startswith("off the list")]
    assert {"xlsx", "docx", "zz-not-listed", "ppt-x"} <= set(values)
    assert "PDF" not in values  # another case of a listed value (allowed variant case-folding-enums)


def test_a_list_of_integer_codes_gets_the_codes_between_its_members() -> None:
    contract = _contract({"enum": ["a"]})
    assert foreign_values(contract, [1, 2, 3, 4, 8]) == [5, 6, 7]
    assert foreign_values(contract, [0, 1]) == []
    assert foreign_values(contract, [True, False]) == []


def test_a_kinds_word_inside_a_camel_case_name_is_not_swapped() -> None:
    assert siblings(["noneGiven", "autoPick"]) == []
