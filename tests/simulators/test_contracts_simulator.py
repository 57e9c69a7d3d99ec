"""The smart-contract platform simulator on its own: the three-part key, the estimate forms,
the contract record, and hostile input."""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance.services.contracts.simulator import BLOCKCHAINS, ContractsSimulator
from conformance.transport.model import Request, Response

CREDS = ContractsSimulator.credentials
KEY = f"{CREDS['KEY_PREFIX']}:{CREDS['KEY_ID']}:{CREDS['KEY_SECRET']}"
BYTECODE = "/v1/w3s/contracts/deploy/estimateFee"
SOURCE = {"blockchain": "BASE-SEPOLIA", "sourceAddress": "0xabc"}


def call(sim: ContractsSimulator, method: str, path: str, *, key: str | None = KEY, **kwargs: Any) -> Response:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    headers.update(kwargs.pop("headers", {}))
    return sim.handle(Request.build(method, path, headers=headers, **kwargs))


@pytest.mark.parametrize("key", [
    f"{CREDS['KEY_PREFIX']}:{CREDS['KEY_ID']}",
    f"{CREDS['KEY_PREFIX']}::{CREDS['KEY_SECRET']}",
    f":{CREDS['KEY_ID']}:{CREDS['KEY_SECRET']}",
    f"OTHER:{CREDS['KEY_ID']}:{CREDS['KEY_SECRET']}",
    KEY + ":extra",
])
def test_malformed_keys_are_refused_and_ping_needs_none(key: str) -> None:
    sim = ContractsSimulator()
    assert call(sim, "POST", BYTECODE, key=key, json_body={"bytecode": "0x00", **SOURCE}).status == 401
    assert call(sim, "POST", BYTECODE, json_body={"bytecode": "0x00", **SOURCE}).status == 200
    ping = call(sim, "GET", "/ping", key=None)
    assert ping.status == 200 and isinstance(ping.json()["message"], str)


def test_estimate_forms_are_exclusive_and_one_is_required() -> None:
    sim = ContractsSimulator()
    template = f"/v1/w3s/templates/{CREDS['TEMPLATE_ID']}/deploy/estimateFee"
    wallet = {"walletId": CREDS["WALLET_ID"]}
    for path, base in ((BYTECODE, {"bytecode": "0x6080"}), (template, {"templateParameters": {}})):
        assert call(sim, "POST", path, json_body={**base, **SOURCE}).status == 200
        assert call(sim, "POST", path, json_body={**base, **wallet}).status == 200
        for bad in ({**base, **SOURCE, **wallet}, {**base, "blockchain": "ETH", **wallet}, base,
                    {**base, "blockchain": "ETH"}, {**base, **SOURCE, "blockchain": "SOL"}):
            assert call(sim, "POST", path, json_body=bad).status == 400, bad


def test_fee_estimate_shape_and_constructor_defaults() -> None:
    sim = ContractsSimulator()
    omitted = call(sim, "POST", BYTECODE, json_body={"bytecode": "0x6080", **SOURCE}).json()["data"]
    explicit = call(sim, "POST", BYTECODE, json_body={"bytecode": "0x6080", "constructorSignature": "constructor()",
                                                      "constructorParameters": [], **SOURCE}).json()["data"]
    assert omitted == explicit
    assert set(omitted) == {"high", "low", "medium"}
    for fee in omitted.values():
        assert len(fee) == 8 and all(isinstance(v, str) for v in fee.values())
    assert float(omitted["high"]["maxFee"]) > float(omitted["low"]["maxFee"])
    for signature, status in (("", 400), ("c" * 1000, 200), ("c" * 1001, 400)):
        body = {"bytecode": "0x6080", "constructorSignature": signature, **SOURCE}
        assert call(sim, "POST", BYTECODE, json_body=body).status == status


def test_contract_record_fields() -> None:
    sim = ContractsSimulator()
    record = call(sim, "GET", f"/v1/w3s/contracts/{CREDS['CONTRACT_ID']}").json()["data"]["contract"]
    assert record["blockchain"] in BLOCKCHAINS
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", record["createDate"])
    assert all(re.fullmatch(r"0x[0-9a-f]+", record[n]) for n in ("txHash", "contractAddress", "deployerAddress"))
    assert call(sim, "GET", "/v1/w3s/contracts/not-a-uuid").status == 400
    assert call(sim, "GET", "/v1/w3s/contracts/00000000-0000-4000-8000-000000000000").status == 404


def test_unshown_operations_at_the_seeded_paths() -> None:
    sim = ContractsSimulator()
    listed = call(sim, "GET", CREDS["LIST_PATH"])
    assert listed.status == 200 and listed.json()["data"]["contracts"]
    update = CREDS["UPDATE_PATH"].replace("{CONTRACT_ID}", CREDS["CONTRACT_ID"])
    assert call(sim, "PATCH", update, json_body={"name": "Renamed"}).json()["data"]["contract"]["name"] == "Renamed"
    assert call(sim, "PATCH", update, key=None, json_body={}).status == 401
    assert call(sim, "POST", CREDS["DEPLOY_PATH"], json_body={}).status == 400


@pytest.mark.parametrize("body", [b"{oops", b"[1]", b"\xff\xfe", b"[" * 5000 + b"]" * 5000,
                                  b'{"bytecode": "0x00", "blockchain": "ETH", "sourceAddress": 5}',
                                  b'{"bytecode": "0x00", "walletId": "w", "constructorParameters": "x"}'])
def test_hostile_bodies_get_4xx(body: bytes) -> None:
    sim = ContractsSimulator()
    headers = {"content-type": "application/json", "authorization": f"Bearer {KEY}"}
    request = Request("POST", BYTECODE, [], headers, body)
    assert 400 <= sim.handle(request).status < 500


def test_seeded_source_settings_are_accepted_and_known_values_variant_refuses_others() -> None:
    """SOURCE_ADDRESS / TEMPLATE_PARAMETERS are the seeds the catalogue's defaults name; the
    known-values-only variant refuses other values, after the key."""
    import json

    from conformance.contract import load_contract
    from conformance.services.contracts.variants import VARIANTS

    defaults = load_contract("contracts").settings["defaults"]
    assert defaults["SOURCE_ADDRESS"] == CREDS["SOURCE_ADDRESS"]
    assert json.loads(defaults["TEMPLATE_PARAMETERS"]) == json.loads(CREDS["TEMPLATE_PARAMETERS"])
    strict = {v.name: v for v in VARIANTS}["known-values-only"].apply(ContractsSimulator())
    template = f"/v1/w3s/templates/{CREDS['TEMPLATE_ID']}/deploy/estimateFee"
    seeded = {"blockchain": "ETH", "sourceAddress": CREDS["SOURCE_ADDRESS"],
              "templateParameters": json.loads(CREDS["TEMPLATE_PARAMETERS"])}
    assert call(strict, "POST", template, json_body=seeded).status == 200  # type: ignore[arg-type]
    assert call(strict, "POST", template, json_body={**seeded, "sourceAddress": "0xabc"}).status == 400  # type: ignore[arg-type]
    assert call(strict, "POST", template, key=None, json_body={**seeded, "sourceAddress": "0xabc"}).status == 401  # type: ignore[arg-type]


@pytest.mark.parametrize(("stamp", "utc"), [
    ("2027-01-15T08:00:00Z", True), ("2027-01-15T08:00:00.250+00:00", True), ("20270115T080000Z", True),
    ("2027-01-15T08:00:00,5+0000", True), ("2027-01-15T08:00+00", True),
    ("2027-01-15T08:00:00", False), ("2027-01-15T08:00:00+01:00", False), ("2027-01-15 08:00:00Z", False),
])
def test_the_contract_timestamp_pattern_is_iso_8601_utc(stamp: str, utc: bool) -> None:
    from conformance.contract import load_contract

    pattern = load_contract("contracts").openapi["components"]["schemas"]["UtcTimestamp"]["pattern"]
    assert bool(re.match(pattern, stamp)) is utc


def test_query_monitors_and_logs_are_served_not_taken_for_a_contract_id() -> None:
    """Their paths are not shown; served as the vendor's client sends them, never read as {id}."""
    sim = ContractsSimulator()
    record = call(sim, "GET", f"/v1/w3s/contracts/{CREDS['CONTRACT_ID']}").json()["data"]["contract"]
    address = record["contractAddress"]
    query = call(sim, "POST", "/v1/w3s/contracts/query",
                 json_body={"address": address, "abiFunctionSignature": "balanceOf(address)"})
    assert query.status == 200 and query.json()["data"]["outputData"].startswith("0x")
    monitor = {"idempotencyKey": "k1", "blockchain": "ETH-SEPOLIA", "contractAddress": address,
               "eventSignature": "Transfer(address,address,uint256)"}
    created = call(sim, "POST", "/v1/w3s/contracts/monitors", json_body=monitor)
    assert created.status == 201
    again = call(sim, "POST", "/v1/w3s/contracts/monitors", json_body=monitor)  # same idempotency key
    assert again.json() == created.json()
    assert len(call(sim, "GET", "/v1/w3s/contracts/monitors").json()["data"]["eventMonitors"]) == 1
    assert call(sim, "GET", "/v1/w3s/contracts/events").json()["data"] == {"eventLogs": []}
    # The documented GET /contracts/{id} still refuses a non-UUID id with 400.
    assert call(sim, "GET", "/v1/w3s/contracts/not-a-uuid").status == 400


def test_template_deployment_lists_its_contracts() -> None:
    sim = ContractsSimulator()
    path = CREDS["DEPLOY_TEMPLATE_PATH"].replace("{TEMPLATE_ID}", CREDS["TEMPLATE_ID"])
    data = call(sim, "POST", path, json_body={"name": "T", "walletId": CREDS["WALLET_ID"],
                                              "blockchain": "ETH-SEPOLIA"}).json()["data"]
    assert data["contractIds"] == [data["contractId"]]
