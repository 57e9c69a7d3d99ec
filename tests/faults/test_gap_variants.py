"""Variants derived from gaps: a gap's ``allows`` names the conforming choices it leaves open, and
the core builds them for the service (faults/variants.py GAP_FAMILIES)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from conformance.contract import load_contract
from conformance.errors import ContractFileError
from conformance.faults.variants import gap_variants
from conformance.services import faults_for, service_packages, variants_for
from conformance.transport.model import Request, Response
from tests.faults.gap_entry import answering


def test_the_services_gaps_build_their_variants() -> None:
    # In the order of the gaps; named after the family unless the entry names the variant.
    assert [v.name for v in gap_variants(load_contract("presentations"))] == [
        "plain-text-errors", "items-named-items", "empty-prompt-refused", "option-values-validated",
        "unknown-generation-400"]
    assert [v.name for v in gap_variants(load_contract("outreach"))] == [
        "analytics-without-names", "named-campaign-states", "campaign-cursor-absent", "scope-refusal-401",
        "bodiless-actions", "other-error-body", "warmup-job-at-location"]


def test_an_unknown_family_is_a_contract_error() -> None:
    contract = load_contract("presentations")
    gap = dataclasses.replace(contract.gaps[0], allows=({"family": "no-such-family"},))
    with pytest.raises(ContractFileError, match="unknown variant family 'no-such-family'"):
        gap_variants(dataclasses.replace(contract, gaps=[gap, *contract.gaps[1:]]))


def test_other_error_body_fills_status_and_message_on_its_paths_only() -> None:
    after = answering({"family": "other-error-body", "body": {"error": {"code": "{status}", "detail": "{message}"}},
                       "paths": "^/api/"})
    request = Request.build("GET", "/api/x")
    answer = after(request, Response(404, {"content-type": "application/json"}, b'{"message": "no such x"}'))
    assert json.loads(answer.body) == {"error": {"code": 404, "detail": "no such x"}}
    other = after(Request.build("GET", "/oauth"), Response(400, {}, b'{"message": "m"}'))
    assert json.loads(other.body) == {"message": "m"}  # outside ``paths``: untouched
    ok = after(request, Response(200, {}, b'{"id": 1}'))
    assert json.loads(ok.body) == {"id": 1}  # a success is never an error body


def test_an_entry_may_name_its_variant_and_two_of_one_family_on_one_gap_must() -> None:
    contract = load_contract("presentations")
    twice = ({"family": "plain-text-errors"}, {"family": "plain-text-errors", "paths": "^/v1"})
    gap = dataclasses.replace(contract.gaps[0], allows=twice)
    with pytest.raises(ContractFileError, match="variant name 'plain-text-errors:.*' is taken .* give it a 'name'"):
        gap_variants(dataclasses.replace(contract, gaps=[gap, gap]))
    named = dataclasses.replace(contract.gaps[0], allows=(twice[0], {**twice[1], "name": "v1-plain-errors"}))
    assert [v.name for v in gap_variants(dataclasses.replace(contract, gaps=[named]))] == [
        "plain-text-errors", "v1-plain-errors"]


@pytest.mark.parametrize("service", service_packages())
def test_every_variant_of_a_service_has_its_own_name(service: str) -> None:
    # A name given twice (a gap's allows entry and the service's Python, or a fault) would run only the first.
    names = [f.name for f in faults_for(service)] + [v.name for v in variants_for(service)]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
