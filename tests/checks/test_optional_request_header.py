"""The core check ``optional-request-header`` against a tiny server: it passes a server that
answers the same with and without the header (echoing it or not: the document may leave that
open), fails one that refuses the header, and needs the call without the header to succeed (the
control). The derived fault ``header-refused`` makes the conforming server fail it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.checks.headers import optional_request_header
from conformance.contract import Contract, Gap, Rule
from conformance.errors import ContractFailure
from conformance.faults.headers import header_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/ping": {"get": {"security": [], "responses": {"200": {"description": "pong"}}}},
    "/things/{id}": {"get": {"security": [], "responses": {"200": {"description": "a thing"}}}}}}
GAP = Gap("demo.gap.echo", "whether the header is echoed is not shown", None)  # type: ignore[arg-type]
RULE = Rule(id="demo.trace.accepted", kind="header", statement="s", source=None,  # type: ignore[arg-type]
            operation="GET /ping", where="header.X-Trace",
            params={"check": "optional-request-header", "observes": GAP.id, "value": "t-1",
                    "probes": [{"operation": "GET /ping"},
                               {"operation": "GET /things/{id}", "path_values": {"id": "{THING_ID}"}}]})


def server(*, echo: bool = False, refuse: bool = False, down: bool = False) -> Any:
    def handle(request: Request) -> Response:
        trace = request.header("x-trace")
        if down:
            return Response.json_response(503, {"message": "down"})
        if refuse and trace is not None:
            return Response.json_response(400, {"message": "unknown header"})
        if request.path not in ("/ping", "/things/th-1"):
            return Response.json_response(404, {"message": "no such thing"})
        response = Response.json_response(200, {"ok": True})
        if echo and trace is not None:
            response.headers = {**response.headers, "x-trace": trace}
        return response

    return SimpleNamespace(handle=handle)


def run(sim: Any) -> dict[str, str]:
    contract = Contract("demo", "demo", OPENAPI, [RULE], [GAP], [], {})
    ctx = context(contract, RULE, sim.handle, {"THING_ID": "th-1"})
    optional_request_header(ctx)
    return ctx.observations


@pytest.mark.parametrize(("echo", "shown"), [(False, "not echoed"), (True, "echoed")])
def test_a_server_answering_the_same_passes_echoing_or_not(echo: bool, shown: str) -> None:
    assert run(server(echo=echo)) == {GAP.id: shown}


def test_a_server_refusing_the_header_fails() -> None:
    with pytest.raises(ContractFailure, match="must be answered as without it"):
        run(server(refuse=True))


def test_the_call_without_the_header_must_succeed_first() -> None:
    with pytest.raises(ContractFailure, match="without X-Trace"):
        run(server(down=True))


def test_the_derived_header_refused_fault_makes_a_conforming_server_fail() -> None:
    [fault] = header_faults(Contract("demo", "demo", OPENAPI, [RULE], [GAP], [], {}))
    assert fault.name == "header-refused:trace.accepted" and fault.breaks == RULE.id
    with pytest.raises(ContractFailure, match="must be answered as without it"):
        run(fault.apply(server()))
