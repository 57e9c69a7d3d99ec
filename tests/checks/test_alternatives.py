"""The core ``either-accepted`` check against a tiny server offering a route under one of two
documented methods: either method served passes, and the one served is reported to the conflict;
neither served fails, and so does a crash of the other; its derived fault ``none-accepted`` is
caught on the same server."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.alternatives import either_accepted
from conformance.contract import Conflict, Contract, Rule
from conformance.errors import ContractFailure
from conformance.faults.alternatives import alternative_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

PATH = "/threads/{id}/read"
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {PATH: {
    "post": {"responses": {"200": {"description": "read"}}}, "patch": {"responses": {"200": {"description": "read"}}}}}}
CONFLICT = Conflict("demo.conflict.method", "s", None, ("POST", "PATCH"))  # type: ignore[arg-type]
RULE = Rule(id="demo.threads.read-method", kind="conflict", statement="s", source=None,  # type: ignore[arg-type]
            operation=f"POST {PATH}",
            params={"check": "either-accepted", "observes": CONFLICT.id,
                    "alternatives": [{"call": f"POST {PATH}", "path": {"id": "t1"}},
                                     {"call": f"PATCH {PATH}", "path": {"id": "t1"}}]})
CONTRACT = Contract("demo", "demo", OPENAPI, [RULE], [], [CONFLICT], {})


def serving(*methods: str, other: int = 405) -> Any:
    def handle(request: Request) -> Response:
        if request.method in methods:
            return Response.json_response(200, {"read": True})
        return Response.json_response(other, {"error": "not here"})

    return handle


def run(handle: Any) -> dict[str, str]:
    ctx = context(CONTRACT, RULE, handle)
    either_accepted(ctx)
    return ctx.observations


@pytest.mark.parametrize(("methods", "shown"), [(("POST",), "POST"), (("PATCH",), "PATCH"),
                                                (("POST", "PATCH"), "POST and PATCH")])
def test_either_method_served_passes_and_is_reported(methods: tuple[str, ...], shown: str) -> None:
    assert run(serving(*methods)) == {CONFLICT.id: shown}


def test_neither_served_fails() -> None:
    with pytest.raises(ContractFailure, match=r"none of the alternatives was accepted \(POST 405, PATCH 405\)"):
        run(serving())


def test_a_crash_of_the_other_fails() -> None:
    with pytest.raises(ContractFailure, match="crashed"):
        run(serving("POST", other=500))


def test_none_accepted_is_caught() -> None:
    (fault,) = alternative_faults(CONTRACT)
    assert fault.name == "none-accepted:threads.read-method" and fault.breaks == RULE.id

    class Server:
        handle = staticmethod(serving("POST", "PATCH"))

    with pytest.raises(ContractFailure):
        run(fault.apply(Server()).handle)  # type: ignore[arg-type]
