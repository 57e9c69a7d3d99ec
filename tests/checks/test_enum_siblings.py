"""The core enum check (checks/boundary.py) with the foreign values of contract/foreign.py: a
server refusing everything off the list passes, and so does one folding letter case (no document
says matching is case-sensitive); a server that also takes a sibling (``xlsx`` beside
pdf/pptx/png) fails, though it refuses a made-up word and the near misses, as the old probes
sent. The derived fault ``enum-sibling-accepted`` is such a server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.boundary import enum_values
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure
from conformance.faults.siblings import sibling_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

LISTED = ["pptx", "pdf", "png"]
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/exports": {"post": {
    "requestBody": {"content": {"application/json": {
        "schema": {"type": "object", "properties": {"exportAs": {"type": "string", "enum": LISTED}}},
        "example": {"exportAs": "pdf"}}}},
    "responses": {"201": {"description": "made"}, "400": {"description": "refused"}}}}}}
RULE = Rule(id="demo.exports.export-as-enum", kind="enum", statement="exportAs is pptx, pdf or png",
            source=None, operation="POST /exports", where="body.exportAs",  # type: ignore[arg-type]
            violation={"status": 400})
CONTRACT = Contract("demo", "demo", OPENAPI, [RULE], [], [], {})


def exports(*, also: tuple[str, ...] = (), fold: bool = False) -> Any:
    def handle(request: Request) -> Response:
        value = json.loads(request.body).get("exportAs")
        if fold and isinstance(value, str):
            value = value.casefold()
        if value in LISTED or value in also:
            return Response.json_response(201, {"exportAs": value})
        return Response.json_response(400, {"message": "exportAs is not listed"})

    return handle


def test_a_server_refusing_every_unlisted_value_passes() -> None:
    enum_values(context(CONTRACT, RULE, exports()))


def test_a_server_folding_letter_case_passes() -> None:
    enum_values(context(CONTRACT, RULE, exports(fold=True)))


@pytest.mark.parametrize("sibling", ["xlsx", "docx"])
def test_a_server_also_taking_a_sibling_fails(sibling: str) -> None:
    with pytest.raises(ContractFailure, match=f"exportAs='{sibling}' is not listed and must be refused"):
        enum_values(context(CONTRACT, RULE, exports(also=(sibling,))))


def test_a_server_taking_only_the_old_probes_values_is_still_caught() -> None:
    # The near misses and the made-up word: what the probes sent before the foreign values.
    with pytest.raises(ContractFailure, match="'ppt'"):
        enum_values(context(CONTRACT, RULE, exports(also=("ppt", "zz-not-listed"))))


def test_the_derived_sibling_fault_takes_a_sibling_and_nothing_else_off_the_list() -> None:
    (fault,) = [f for f in sibling_faults(CONTRACT) if f.breaks == RULE.id]
    assert fault.name == "enum-sibling-accepted:exports.export-as-enum"

    class Exports:
        credentials: dict[str, str] = {}

        def handle(self, request: Request) -> Response:
            return exports()(request)

    sim = fault.apply(Exports())  # type: ignore[arg-type]

    def status(value: str) -> int:
        return int(sim.handle(Request.build("POST", "/exports", json_body={"exportAs": value})).status)

    assert status("pdf") == 201  # the control, remembered as the value to put back
    assert status("xlsx") == 201
    assert [status(v) for v in ("zz-not-listed", "ppt", "pdfs")] == [400, 400, 400]
    with pytest.raises(ContractFailure, match="xlsx"):
        enum_values(context(CONTRACT, RULE, sim.handle))
