"""Rules derived from openapi.yaml: a field added to a contract gets its probes with no code."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from conformance.contract import load_contract
from conformance.contract.derive import MISSING, body_probes, derived_rules, field_probes, refusal_status
from conformance.contract.model import Contract, Gap, Source

_OP = "POST /things"


def _contract(schema: dict[str, Any], example: dict[str, Any], **op: Any) -> Contract:
    base = load_contract("presentations")
    openapi = copy.deepcopy(base.openapi)
    openapi.pop("x-refusal-status", None)
    openapi["paths"] = {"/things": {"post": {
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema, "example": example}}},
        "responses": {"200": {"description": "ok"}}, **op}}}
    return dataclasses.replace(base, openapi=openapi, rules=[], gaps=[], conflicts=[])


def _by_where(contract: Contract) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for probe in field_probes(contract, _OP):
        out.setdefault(probe.where, []).append(probe.value)
    return out


def test_every_documented_field_is_sent_wrong_at_every_depth() -> None:
    contract = _contract({
        "type": "object", "required": ["n", "inner"],
        "properties": {
            "n": {"type": "integer", "minimum": 1, "maximum": 5},
            "mail": {"type": "string", "format": "email"},
            "kind": {"type": "string", "enum": ["alpha", "beta"], "x-outside": ["gamma"]},
            "inner": {"type": "object", "required": ["at"],
                      "properties": {"at": {"type": "string", "format": "date-time"}}},
            "items": {"type": "array", "maxItems": 2,
                      "items": {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}}}},
            "out": {"type": "string", "readOnly": True},
        }}, {"n": 2, "inner": {"at": "2026-01-01T00:00:00Z"}, "items": [{"id": "x"}]})
    probes = _by_where(contract)
    assert probes["body.n"] == [MISSING, "not-a-number", 6, 0]
    assert "not-an-email" in probes["body.mail"]
    assert probes["body.kind"][1:] == ["zz-not-listed", "alph", "alphas", "bet", "betas", "gamma"]
    assert "ALPHA" not in probes["body.kind"]  # no document says matching is case-sensitive
    assert probes["body.inner.at"] == [MISSING, {"conformance": "wrong type"}, "not-a-date-time"]
    assert "not-a-uuid" in probes["body.items.0.id"]
    assert len(probes["body.items"][-1]) == 3  # maxItems + 1
    assert "body.out" not in probes  # documented as output only


def test_a_point_a_gap_leaves_open_is_not_probed_but_its_documented_type_is() -> None:
    contract = _contract({"type": "object", "properties": {
        "n": {"type": "integer", "maximum": 5}, "s": {"type": "integer"},
        "o": {"type": "object", "properties": {"in": {"type": "string", "enum": ["a", "b"]}}}}},
        {"n": 1, "s": 1, "o": {"in": "a"}})
    source = Source("volume-1.md", "Endpoints", "B", "", "endpoints")
    contract.gaps.append(Gap("presentations.gap.n", "values of n and o not shown", source,
                             about=((_OP, "body.n"), (_OP, "body.o"))))
    probes = _by_where(contract)
    assert probes["body.n"] == ["not-a-number"]  # its bound is open, its type is not
    assert probes["body.o.in"] == [{"conformance": "wrong type"}]  # below the point: the type only
    assert len(probes["body.s"]) == 1
    # A gap that says the type is open too (a member the operation may ignore) switches it off.
    contract.gaps[0] = Gap("presentations.gap.n", "n may be ignored", source, about=((_OP, "body.n"),),
                           open_types=("body.n",))
    assert "body.n" not in _by_where(contract)
    # A gap over the whole operation leaves all of it open.
    contract.gaps[0] = Gap("presentations.gap.n", "the body is not shown", source, about=((_OP, None),))
    assert _by_where(contract) == {}


def test_members_the_example_lacks_are_reached_through_a_scaffold() -> None:
    contract = _contract({"type": "object", "properties": {
        "n": {"type": "integer"},
        "card": {"type": "object", "properties": {"frame": {"type": "object", "required": ["kind"], "properties": {
            "kind": {"type": "string", "enum": ["text", "logo"]}, "top": {"type": "object"}}}}},
        "tags": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
        "codes": {"type": "array", "items": {"type": "string", "pattern": "^[A-Z]+$"}},
        "list": {"type": "array", "items": {"type": "integer"}}}}, {"n": 1, "list": []})
    by = {p.where: p for p in field_probes(contract, _OP) if p.aspect == "type"}
    # Two levels below the example: the first missing member carries the way down.
    assert by["body.card.frame.top"].scaffold == ("body.card", ({"frame": {"kind": "text"}},
                                                               {"frame": {"kind": "text", "top": {}}}))
    assert by["body.card.frame.top"].value == "wrong-type"
    # The smallest card ({}), then the fullest that can be made.
    assert by["body.card.frame"].scaffold == ("body.card", ({}, {"frame": {"kind": "text", "top": {}}}))
    assert by["body.tags.0.id"].scaffold == ("body.tags", ([{}], [{"id": "conformance"}]))
    assert by["body.list.0"].scaffold == ("body.list", ([1],))  # an empty list in the example: one item made
    assert "body.codes.0" not in by  # no item can be made without guessing its pattern
    assert by["body.n"].scaffold is None
    left_out = [p for p in field_probes(contract, _OP) if p.where == "body.card.frame.kind" and p.value is MISSING]
    assert left_out and left_out[0].scaffold == ("body.card", ({"frame": {"kind": "text"}},
                                                               {"frame": {"kind": "text", "top": {}}}))


def test_broken_bodies_and_documented_statuses() -> None:
    contract = _contract({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": 1},
                         **{"x-refusal-status": {"malformed": 400}})
    labels = [label for label, _media, _body in body_probes(contract, _OP)]
    assert len(labels) == 3 and any("empty" in label for label in labels)  # the body is required
    assert refusal_status(contract, _OP, "malformed") == 400
    assert refusal_status(contract, _OP, "invalid") is None  # not documented: any 4xx


def test_rules_are_derived_per_operation_unless_the_contract_says_why_not() -> None:
    schema, example = {"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": 1}
    source = Source("volume-1.md", "Endpoints", "B", "", "endpoints")
    ids = [r.id for r in derived_rules(_contract(schema, example), source)]
    assert ids == ["presentations.request-fields.post-things", "presentations.request-body.post-things"]
    quiet = _contract(schema, example, **{"x-no-derived-probes": "an OAuth step no fixed example can make"})
    assert derived_rules(quiet, source) == []
