"""The derived faults that prove probes below the example's depth and at a gap's point
(faults/generic.py ``lenient-deep-field``, ``lenient-gap-type``), against a small in-test contract
and simulator: each makes the simulator take a wrong type where the clean one refuses it, and
leaves a right body alone."""

from __future__ import annotations

import json
from typing import Any

from conformance.contract import Contract, Rule
from conformance.contract.model import Gap, Source
from conformance.faults.generic import derived_faults
from conformance.transport.model import Request, Response

SOURCE = Source("volume-0.md", "Endpoints", "A", "", "a")
_OP = "POST /things"
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/things": {"post": {
    "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
        "n": {"type": "integer"}, "tag": {"type": "string"},
        "opts": {"type": "object", "properties": {"size": {"type": "integer"}}}}},
        "example": {"n": 1, "tag": "a"}}}},
    "responses": {"201": {"description": "made"}}}}}}
RULE = Rule("demo.request-fields.post-things", "fields", "s", SOURCE, operation=_OP)
GAP = Gap("demo.gap.tag-values", "values of tag are not shown", SOURCE, about=((_OP, "body.tag"),))


class Things:
    credentials: dict[str, str] = {}

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body)
        opts = body.get("opts", {})
        if type(body.get("n")) is not int or not isinstance(body.get("tag", ""), str) or not isinstance(opts, dict) \
                or type(opts.get("size", 0)) is not int:
            return Response.json_response(400, {"message": "refused"})
        return Response.json_response(201, {"id": "1"})


def _post(sim: Any, body: dict[str, Any]) -> int:
    return int(sim.handle(Request.build("POST", "/things", json_body=body)).status)


def test_each_fault_takes_the_wrong_type_the_clean_simulator_refuses() -> None:
    faults = {f.name: f for f in derived_faults(Contract("demo", "demo", OPENAPI, [RULE], [GAP], [], {}))}
    for name, wrong in (("lenient-deep-field:post-things", {"n": 1, "opts": {"size": "big"}}),
                        ("lenient-gap-type:post-things:tag", {"n": 1, "tag": {"x": 1}})):
        assert _post(Things(), wrong) == 400, name
        sim = faults[name].apply(Things())  # type: ignore[arg-type]
        assert _post(sim, {"n": 2, "tag": "b", "opts": {"size": 3}}) == 201  # a right body still taken
        assert _post(sim, wrong) == 201, name
        assert faults[name].breaks == RULE.id


def test_no_gap_no_gap_type_fault() -> None:
    names = {f.name for f in derived_faults(Contract("demo", "demo", OPENAPI, [RULE], [], [], {}))}
    assert "lenient-deep-field:post-things" in names and "lenient-gap-type:post-things:tag" not in names
