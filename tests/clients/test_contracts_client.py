"""A real client library against the served smart-contract platform simulator.

``circle-smart-contract-platform`` (9.6.0, with ``circle-configurations`` for ping) is the
vendor's generated Python client of this kind of service. It is configured directly
(``Configuration(host=..., access_token=KEY)``): its ``init_smart_contract_platform_client``
helper fetches an entity-secret public key from the vendor's production host, which a test never
calls. Not a dependency of the project: the test is skipped where the library is not installed.

What the library shows beyond the document (left alone, reported): its template estimate
request requires ``blockchain`` even with ``walletId``, and its blockchain enum has 18 values
(AVAX, ARC, MONAD and their testnets) beside the document's 12.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.services.contracts.simulator import ContractsSimulator
from conformance.simulators.base import WallClock
from tests.conftest import serve

scp = pytest.importorskip("circle.web3.smart_contract_platform")
cfg = pytest.importorskip("circle.web3.configurations")

CREDS = ContractsSimulator.credentials
KEY = f"{CREDS['KEY_PREFIX']}:{CREDS['KEY_ID']}:{CREDS['KEY_SECRET']}"
SOURCE = {"blockchain": "BASE-SEPOLIA", "sourceAddress": "0x4b2a7c3f5e1d0a9b8c7d6e5f4a3b2c1d0e9f8a7b"}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serve(ContractsSimulator(WallClock())) as url:
        yield url


def client(base_url: str, key: str = KEY) -> Any:
    return scp.ApiClient(configuration=scp.Configuration(host=base_url, access_token=key))


def test_ping_without_a_key(base_url: str) -> None:
    health = cfg.HealthApi(cfg.ApiClient(configuration=cfg.Configuration(host=base_url)))
    assert isinstance(health.ping().message, str)


def test_both_fee_estimates(base_url: str) -> None:
    api = client(base_url)
    bytecode = scp.ContractDeploymentEstimateFeeRequest.from_dict({"bytecode": "0x6080", **SOURCE})
    fee = scp.DeployImportApi(api).estimate_contract_deploy(bytecode, x_request_id=uuid.uuid4()).data
    template = scp.ContractDeploymentEstimateRequest.from_dict({**SOURCE, "templateParameters": {"name": "X"}})
    fee2 = scp.TemplatesApi(api).estimate_contract_template_deploy(CREDS["TEMPLATE_ID"], template).data
    for estimate in (fee, fee2):
        for level in (estimate.high, estimate.low, estimate.medium):
            assert int(level.gas_limit) > 0 and float(level.network_fee) > 0


def test_get_list_update_and_import(base_url: str) -> None:
    view = scp.ViewUpdateApi(client(base_url))
    contract = view.get_contract(CREDS["CONTRACT_ID"]).data.contract
    assert str(contract.id) == CREDS["CONTRACT_ID"] and contract.create_date.utcoffset().total_seconds() == 0
    assert any(str(c.id) == CREDS["CONTRACT_ID"] for c in view.list_contracts().data.contracts)
    imported = scp.DeployImportApi(client(base_url)).import_contract(scp.ImportContractRequest.from_dict(
        {"idempotencyKey": str(uuid.uuid4()), "name": "Imported", "address": SOURCE["sourceAddress"],
         "blockchain": "MATIC"}))
    assert imported.data.contract.name == "Imported"
    renamed = view.update_contract(CREDS["CONTRACT_ID"], scp.PatchContractRequest.from_dict({"name": "Renamed"}))
    assert renamed.data.contract.name == "Renamed"


def test_a_two_part_key_is_refused(base_url: str) -> None:
    with pytest.raises(scp.ApiException) as refused:
        scp.ViewUpdateApi(client(base_url, KEY.rsplit(":", 1)[0])).get_contract(CREDS["CONTRACT_ID"])
    assert refused.value.status == 401
