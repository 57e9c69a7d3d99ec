"""Target settings of the marketplace contract: the paths the document does not show.

createDraftListing and getShopReceipts have no path in the document; the contract places them
under the `shop_resource` setting (default "shop"). A server that serves them under "shops"
(the real vendor's shape) must pass every rule once the setting says so, and fail the path rule
while it does not.
"""

from __future__ import annotations

import dataclasses

import pytest

from conformance.contract import load_contract
from conformance.runner import FAILED, PASSED, SKIPPED, collect_cases, run_case
from conformance.services import target_for
from conformance.services.marketplace.simulator import MarketplaceSimulator
from conformance.settings import RunSettings
from conformance.simulators import Simulator

_PATH_RULES = ("marketplace.endpoint.url-shape", "marketplace.endpoint.create-draft-listing",
               "marketplace.endpoint.shop-receipts", "marketplace.auth.scope-transactions-r",
               "marketplace.auth.scope-listings-w", "marketplace.paging.limit-range",
               "marketplace.receipts.status-values")


def _shops(sim: Simulator) -> Simulator:
    return MarketplaceSimulator(sim.clock, shop_resource="shops")


def _outcomes(shop_resource: str) -> dict[str, str]:
    contract = load_contract("marketplace")
    contract = dataclasses.replace(contract, settings={**contract.settings, "shop_resource": shop_resource})
    target = target_for(contract, RunSettings(target="sim", profile="gate"), decorate=_shops)
    return {case.id: run_case(case, target).status for case in collect_cases(contract) if case.id in _PATH_RULES}


def test_default_setting_points_at_the_documented_shape() -> None:
    contract = load_contract("marketplace")
    assert contract.prefix_for("GET /{shop_id}/receipts") == "/v3/application/shop"


@pytest.mark.parametrize("rule_id", _PATH_RULES)
def test_vendor_shape_passes_once_configured(rule_id: str) -> None:
    assert _outcomes("shops")[rule_id] in (PASSED, SKIPPED)


def test_vendor_shape_fails_the_path_rule_while_not_configured() -> None:
    assert _outcomes("shop")["marketplace.endpoint.url-shape"] == FAILED


def test_simulator_option_moves_only_the_unshown_paths() -> None:
    from conformance.services.marketplace.simulator import SIM_SHOP_ID
    from conformance.transport.model import Request

    sim = MarketplaceSimulator(shop_resource="shops")
    key = {"x-api-key": f"{sim.credentials['API_KEY']}:{sim.credentials['SHARED_SECRET']}"}
    moved = sim.handle(Request.build("GET", f"/v3/application/shops/{SIM_SHOP_ID}/receipts", headers=key))
    old = sim.handle(Request.build("GET", f"/v3/application/shop/{SIM_SHOP_ID}/receipts", headers=key))
    assert moved.status == 401  # served there: the bearer token is what is missing
    assert old.status == 404
