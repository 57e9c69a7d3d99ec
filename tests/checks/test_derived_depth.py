"""The derived ``fields`` check below the example's depth: a member the example lacks is sent wrong
inside a scaffold (a documented value of the first missing member) that was accepted alone first.
A server that validates every depth passes, as does one that needs more than the smallest value (the
fullest is tried); one that takes a wrong type two levels down fails; a scaffold refused outright
drops only its own probes; a 5xx to a scaffold fails."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.derived import fields_refused
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.transport.model import Request, Response
from tests.checks.server import context

_OP = "POST /things"
SCHEMA: dict[str, Any] = {"type": "object", "required": ["n"], "properties": {
    "n": {"type": "integer"},
    "card": {"type": "object", "properties": {"frame": {"type": "object", "required": ["kind"], "properties": {
        "kind": {"type": "string", "enum": ["text", "logo"]}, "top": {"type": "object"}}}}}}}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/things": {"post": {
    "security": [],
    "requestBody": {"required": True, "content": {"application/json": {"schema": SCHEMA, "example": {"n": 1}}}},
    "responses": {"200": {"description": "ok"}}}}}}
RULE = Rule(id="demo.request-fields.post-things", kind="fields", statement="s", source=None,  # type: ignore[arg-type]
            operation=_OP)


def server(breaks: str = "") -> Any:
    seen: list[Any] = []

    def handle(request: Request) -> Response:
        body = json.loads(request.body)
        seen.append(body)
        if not isinstance(body, dict) or not isinstance(body.get("n"), int):
            return Response.json_response(400, {"error": "n"})
        if "card" not in body:
            return Response.json_response(200, {"ok": True})
        if breaks == "card-crashes":
            return Response.json_response(500, {"error": "internal"})
        if breaks == "card-refused":
            return Response.json_response(400, {"error": "cards are not open to this account"})
        card = body["card"]
        if not isinstance(card, dict):
            return Response.json_response(400, {"error": "card"})
        frame = card.get("frame", {"kind": "text", "top": {}} if breaks != "frame-needed" else None)
        if not isinstance(frame, dict) or frame.get("kind") not in ("text", "logo"):
            return Response.json_response(400, {"error": "frame"})
        if breaks == "frame-needs-top" and "top" not in frame:
            return Response.json_response(400, {"error": "frame.top"})
        if breaks != "top-lenient" and not isinstance(frame.get("top", {}), dict):
            return Response.json_response(400, {"error": "frame.top"})
        return Response.json_response(200, {"ok": True})

    handle.seen = seen  # type: ignore[attr-defined]
    return handle


def run(handle: Any) -> None:
    fields_refused(context(Contract("demo", "demo", OPENAPI, [RULE], [], [], {}), RULE, handle))


def test_a_server_validating_every_depth_passes_and_each_deep_member_was_sent_wrong() -> None:
    handle = server()
    run(handle)
    sent = [b for b in handle.seen if isinstance(b.get("card"), dict) and isinstance(b["card"].get("frame"), dict)]
    assert {"kind": "text", "top": "wrong-type"} in [b["card"]["frame"] for b in sent]
    assert {} in [b["card"]["frame"] for b in sent]  # kind left out (required)


def test_a_server_that_needs_more_than_the_smallest_value_passes_on_the_fullest() -> None:
    run(server("frame-needs-top"))


def test_a_wrong_type_two_levels_below_the_example_taken_fails() -> None:
    with pytest.raises(ContractFailure, match=r"body\.card\.frame\.top wrong type"):
        run(server("top-lenient"))


def test_a_scaffold_refused_outright_drops_only_its_own_probes() -> None:
    handle = server("card-refused")
    run(handle)  # n's probes were still judged
    assert any(b.get("n") == "not-a-number" for b in handle.seen)
    assert not any(isinstance(b.get("card"), dict) and b["card"].get("frame", {}).get("top") == "wrong-type"
                   for b in handle.seen)


def test_a_failure_names_the_scaffolds_refused() -> None:
    def handle(request: Request) -> Response:
        body = json.loads(request.body)
        if "card" in body:
            return Response.json_response(400, {"error": "cards are not open to this account"})
        return Response.json_response(200, {"ok": True})  # takes any n: n's probes fail

    with pytest.raises(ContractFailure, match=r"not sent \(their scaffold was refused alone\): body\.card = \{\}"):
        run(handle)


def test_a_5xx_to_a_scaffold_fails() -> None:
    with pytest.raises(ContractFailure, match=r"body\.card = \{\}.*answered 500"):
        run(server("card-crashes"))


def test_only_scaffolded_probes_all_refused_is_skipped() -> None:
    openapi = json.loads(json.dumps(OPENAPI))
    schema = openapi["paths"]["/things"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    schema["properties"]["n"] = {}  # untyped n and card: no probe of their own
    del schema["properties"]["card"]["type"]
    schema["required"] = []
    rule = RULE
    with pytest.raises(RuleSkipped, match="refused each"):
        fields_refused(context(Contract("demo", "demo", openapi, [rule], [], [], {}), rule, server("card-refused")))
