"""A real client library against the served smart-contract platform simulator.

``circle-smart-contract-platform`` (9.6.0, with ``circle-configurations`` for ping) is the
vendor's generated Python client of this kind of service. It is configured directly
(``Configuration(host=..., access_token=KEY)``): its ``init_smart_contract_platform_client``
helper fetches an entity-secret public key from the vendor's production host, which a test never
calls. Not a dependency of the project: the test is skipped where the library is not installed.

The query call, event monitors and event logs exist in the document with neither method, path
nor payload; the simulator serves them where and as this client sends and reads them (its own
choice, never read by a rule). The template deployment's payload is not shown either: the
simulator's answer carries the client's contractIds list.

What the library shows beyond the document (left alone, reported): its template estimate
request requires ``blockchain`` even with ``walletId``, and its blockchain enum has 18 values
(AVAX, ARC, MONAD and their testnets) beside the document's 12.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
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


@pytest.fixture
def base_url(tally: Callable[[str], Any]) -> Iterator[str]:
    with serve(tally("contracts")(ContractsSimulator(WallClock()))) as url:
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


def test_deploy_from_a_template(base_url: str) -> None:
    request = scp.TemplateContractDeploymentRequest.from_dict(
        {"idempotencyKey": str(uuid.uuid4()), "entitySecretCiphertext": "c2lt", "blockchain": "BASE-SEPOLIA",
         "walletId": CREDS["WALLET_ID"], "name": "From template", "templateParameters": {"name": "X"},
         "feeLevel": "MEDIUM"})
    deployed = scp.TemplatesApi(client(base_url)).deploy_contract_template(CREDS["TEMPLATE_ID"], request).data
    assert len(deployed.contract_ids) == 1 and deployed.transaction_id
    view = scp.ViewUpdateApi(client(base_url)).get_contract(str(deployed.contract_ids[0])).data.contract
    assert view.name == "From template"


def test_query_monitors_and_event_logs(base_url: str) -> None:
    api = client(base_url)
    address = scp.ViewUpdateApi(api).get_contract(CREDS["CONTRACT_ID"]).data.contract.contract_address
    state = scp.InteractApi(api).query_contract(scp.ReadContractStateRequest.from_dict(
        {"address": address, "blockchain": "ETH-SEPOLIA", "abiFunctionSignature": "balanceOf(address)",
         "abiParameters": [SOURCE["sourceAddress"]]})).data
    assert state.output_data.startswith("0x") and state.output_values == [0]
    monitors = scp.EventMonitorsApi(api)
    created = monitors.create_event_monitor(create_event_monitor_request=scp.CreateEventMonitorRequest.from_dict(
        {"idempotencyKey": str(uuid.uuid4()), "blockchain": "ETH-SEPOLIA", "contractAddress": address,
         "eventSignature": "Transfer(address,address,uint256)"})).data.event_monitor
    assert created.is_enabled and created.contract_address == address
    listed = monitors.get_event_monitors(contract_address=address).data.event_monitors
    assert [m.id for m in listed] == [created.id]
    updated = monitors.update_event_monitor(created.id, update_event_monitor_request=scp.UpdateEventMonitorRequest(
        is_enabled=False)).data.event_monitor
    assert updated.is_enabled is False
    assert monitors.list_event_logs(contract_address=address).data.event_logs == []
    monitors.delete_event_monitor(created.id)
    assert monitors.get_event_monitors().data.event_monitors == []
