"""The core checks ``ids-in-path`` (checks/routes.py) and ``write-repeated`` (checks/effects.py)
against a tiny image store: ids moved into headers must not reach the operation; a delete is
accepted and a second one answered below 500 (a 404 or an idempotent 204: either is observed),
never a crash."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.effects import write_repeated
from conformance.checks.routes import ids_in_path
from conformance.contract import Contract, Gap, Rule
from conformance.errors import ContractFailure
from conformance.transport.model import Request, Response
from tests.checks.server import context

DELETE = "DELETE /shop/{shop_id}/images/{image_id}"
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/shop/{shop_id}/images/{image_id}": {"delete": {
    "security": [], "responses": {"204": {"description": "deleted"}}}}}}
IDS = {"shop_id": "{SHOP_ID}", "image_id": "{IMAGE_ID}"}
SETTINGS = {"SHOP_ID": "s1", "IMAGE_ID": "i1"}
GAP = Gap("demo.gap.delete-again", "what a second delete answers is not shown", None)  # type: ignore[arg-type]


class Store:
    def __init__(self, breaks: str = "", again: int = 404) -> None:
        self.images, self.breaks, self.again = {"i1"}, breaks, again

    def handle(self, request: Request) -> Response:
        path = request.path
        if self.breaks == "ids-from-headers" and path == "/shop/images":
            path = f"/shop/{request.header('shop_id')}/images/{request.header('image_id')}"
        if path != "/shop/s1/images/i1":
            return Response.json_response(404, {"error": "no such route"})
        if "i1" not in self.images:
            return Response.json_response(500 if self.breaks == "again-500" else self.again, {"error": "gone"})
        self.images.discard("i1")
        return Response(204, {}, b"")


def _rule(check: str, **params: Any) -> Rule:
    return Rule(id="demo.images.rule", kind="endpoint", statement="s", source=None,  # type: ignore[arg-type]
                operation=DELETE, params={"check": check, "path_values": IDS, **params})


def run(rule: Rule, store: Store) -> dict[str, str]:
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [GAP], [], {}), rule, store.handle, SETTINGS)
    (ids_in_path if rule.params["check"] == "ids-in-path" else write_repeated)(ctx)
    return ctx.observations


def test_ids_in_headers_do_not_reach_the_operation() -> None:
    run(_rule("ids-in-path"), Store())
    with pytest.raises(ContractFailure, match="ids sent as headers reached the operation"):
        run(_rule("ids-in-path"), Store("ids-from-headers"))


@pytest.mark.parametrize("again", [404, 204])
def test_a_second_delete_answered_below_500_passes_and_is_observed(again: int) -> None:
    observed = run(_rule("write-repeated", observes=GAP.id), Store(again=again))
    assert observed == {GAP.id: f"a second delete answered {again}"}


def test_a_second_delete_crashing_fails_and_a_first_refused_fails() -> None:
    with pytest.raises(ContractFailure, match="sent again crashed"):
        run(_rule("write-repeated"), Store("again-500"))
    store = Store()
    store.images.clear()
    with pytest.raises(ContractFailure, match="the first time"):
        run(_rule("write-repeated"), store)
