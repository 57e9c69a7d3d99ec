"""The core check ``gap-probe`` with a credential variant (``as``) and the operation's example as
body (``body: example``), against a tiny in-test server: the probe carries the swapped key and a
body whose ``x-unique`` member is new on every request; whatever a well-formed answer is (the
grant is the gap: 2xx or 403 alike), the rule ends observed, never passed; an answer ill-formed
for its declared media type fails."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conformance.checks.observatory import gap_probe
from conformance.checks.registry import check_params, spec_for
from conformance.contract import Contract, Rule
from conformance.contract.model import Gap
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped, SkipKind
from conformance.transport.model import Request, Response
from tests.checks.server import context

CREATE = "POST /things"
LIST = "GET /things"
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "security": [{"key": []}],
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "x-key", "x-credential": "{API_KEY}"}},
    },
    "paths": {
        "/things": {
            "post": {
                "requestBody": {"content": {"application/json": {
                    "schema": {"type": "object", "properties": {"email": {"type": "string"}}},
                    "x-unique": ["email"], "example": {"email": "probe@things.example"}}}},
                "responses": {"200": {"description": "made"}}},
            "get": {"responses": {"200": {"description": "all"}}},
        },
    },
}
SETTINGS = {"API_KEY": "k-main", "ALL_KEY": "k-all"}
GAP = "demo.gap.scope-list"
AS_ALL = {"swap": {"API_KEY": "ALL_KEY"}}

Handler = Callable[[Request], Response]


def server(seen: list[Request], *, all_key: int = 200, ill_formed: bool = False) -> Handler:
    """Serves the main key; answers the all key ``all_key`` (a grant the document leaves open)."""

    def handle(request: Request) -> Response:
        seen.append(request)
        key = request.header("x-key")
        if key == "k-all" and ill_formed:
            return Response(200, {"content-type": "application/json"}, b'{"email": ')
        if key == "k-all" and all_key != 200:
            return Response.json_response(all_key, {"error": "not granted"})
        if key not in ("k-main", "k-all"):
            return Response.json_response(401, {"error": "no key"})
        return Response.json_response(200, json.loads(request.body) if request.body else {"items": []})

    return handle


def run(handler: Handler, params: dict[str, Any], operation: str = CREATE) -> None:
    rule = Rule(id="demo.observe.all-creates", kind="auth", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, params={"check": "gap-probe", "gap": GAP, "operations": [operation],
                                             "record": "shape", **params})
    gap = Gap(id=GAP, statement="what all grants is not shown", source=None)  # type: ignore[arg-type]
    contract = Contract("demo", "demo", OPENAPI, [rule], [gap], [], {})
    gap_probe(context(contract, rule, handler, SETTINGS))


def test_the_probe_carries_the_swapped_key_and_a_fresh_example() -> None:
    seen: list[Request] = []
    with pytest.raises(RuleSkipped) as skipped:
        run(server(seen), {"as": AS_ALL, "body": "example"})
    assert skipped.value.kind is SkipKind.GAP_OBSERVED
    assert "API_KEY as ALL_KEY" in str(skipped.value) and "200" in str(skipped.value)
    [request] = seen
    assert request.header("x-key") == "k-all"
    email = json.loads(request.body)["email"]
    assert email != "probe@things.example" and email.startswith("probe+") and email.endswith("@things.example")


@pytest.mark.parametrize("status", [200, 403])
def test_any_well_formed_answer_is_observed_never_judged(status: int) -> None:
    # The document is silent on what the key grants: a server refusing it conforms as one serving it.
    with pytest.raises(RuleSkipped) as skipped:
        run(server([], all_key=status), {"as": AS_ALL, "body": "example"})
    assert skipped.value.kind is SkipKind.GAP_OBSERVED and str(status) in str(skipped.value)


def test_without_as_the_configured_key_is_sent() -> None:
    seen: list[Request] = []
    with pytest.raises(RuleSkipped):
        run(server(seen), {}, operation=LIST)
    assert [r.header("x-key") for r in seen] == ["k-main"]


def test_an_ill_formed_answer_to_the_probe_fails() -> None:
    with pytest.raises(ContractFailure):
        run(server([], ill_formed=True), {"as": AS_ALL, "body": "example"})


def test_an_unknown_variant_or_body_is_a_contract_error() -> None:
    for params in ({"as": {"swapp": {}}}, {"body": "sample"}):
        rule = Rule(id="demo.observe.all-creates", kind="auth", statement="s", source=None,  # type: ignore[arg-type]
                    operation=CREATE, params={"check": "gap-probe", "gap": GAP, "operations": [CREATE],
                                              "record": "shape", **params})
        with pytest.raises(ContractFileError):
            check_params(rule, spec_for(rule))
