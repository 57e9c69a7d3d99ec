"""The core enum check with ``may_refuse`` (checks/boundary.py): a listed value the request may
still be refused for (creating a record already in a final state, a gap) is sent and may be
accepted or refused, never answered 5xx; every other listed value must be accepted, and values
off the list refused. A value ``may_refuse`` names that the enum does not list is a contract
error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.boundary import enum_values
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/links": {"post": {
    "requestBody": {"content": {"application/json": {
        "schema": {"type": "object", "properties": {"status": {"type": "string",
                                                              "enum": ["active", "paused", "deleted"]}}},
        "example": {"status": "active"}}}},
    "responses": {"200": {"description": "created"}, "400": {"description": "refused"}}}}}}


def links(refused: tuple[str, ...] = (), status: int = 400) -> Any:
    """Creates links in the listed states but ``refused``; off the list: 400."""

    def handle(request: Request) -> Response:
        value = json.loads(request.body).get("status")
        if value in refused:
            return Response.json_response(status, {"message": f"cannot create a link {value}"})
        ok = value in ("active", "paused", "deleted")
        return Response.json_response(200 if ok else 400, {"id": 1} if ok else {"message": "no"})

    return handle


def run(handle: Any, may_refuse: list[str] | None = None) -> None:
    params = {"may_refuse": may_refuse} if may_refuse else {}
    rule = Rule(id="demo.links.status-enum", kind="enum", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /links", where="body.status", params=params)
    enum_values(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, handle))


def test_a_listed_value_that_may_be_refused_passes_either_way() -> None:
    run(links(), ["deleted"])
    run(links(refused=("deleted",)), ["deleted"])


def test_without_may_refuse_every_listed_value_must_be_accepted() -> None:
    with pytest.raises(ContractFailure, match="'deleted' is listed and must be accepted"):
        run(links(refused=("deleted",)))


@pytest.mark.parametrize(("refused", "status", "message"), [
    (("paused",), 400, "'paused' is listed and must be accepted"),  # another listed value: still a rule
    (("deleted",), 500, "'deleted' is listed and must be accepted or refused"),  # a 5xx is never a refusal
])
def test_other_values_and_crashes_still_fail(refused: tuple[str, ...], status: int, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(links(refused=refused, status=status), ["deleted"])


def test_a_value_off_the_list_is_a_contract_error() -> None:
    with pytest.raises(ContractFileError, match="may_refuse names \\['archived'\\]"):
        run(links(), ["archived"])
