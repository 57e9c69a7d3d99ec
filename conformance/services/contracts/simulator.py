"""Simulator of the smart-contract platform service (volume 1, part C).

Written from the document, not from schemas/contracts: the numbers and lists below are this
simulator's own reading of the text. Choices the document leaves open are marked SIM-CHOICE;
the harness never checks them (they are gaps in the rule catalogue). That includes the paths
of the five operations whose method alone is shown: the simulator serves them where it likes
and says where through its seeded settings (DEPLOY_PATH ...), as a vendor would.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timezone
from typing import Any, ClassVar

from conformance.services.contracts.interact import Interactions
from conformance.simulators.base import Clock, Handler, SimError, Simulator
from conformance.transport.model import Request, Response

__all__ = ["BLOCKCHAINS", "SOURCE_ADDRESS", "TEMPLATE_PARAMETERS", "ContractsSimulator", "fee_estimate"]

BLOCKCHAINS = ("ETH", "ETH-SEPOLIA", "MATIC", "MATIC-AMOY", "ARB", "ARB-SEPOLIA", "UNI", "UNI-SEPOLIA",
               "BASE", "BASE-SEPOLIA", "OP", "OP-SEPOLIA")
SIGNATURE_MIN, SIGNATURE_MAX = 1, 1000
DEFAULT_SIGNATURE = "constructor()"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)

# SIM-CHOICE: seeded key parts, prefixes, ids and paths (none is documented).
PREFIXES = {"TEST_API_KEY", "LIVE_API_KEY"}
KEY = ("TEST_API_KEY", "c0ffee5eed5a1d2e", "s1m5ecret9b7e4f21a0d")
TEMPLATES = {  # template id -> (kind, base gas of its deployment)
    "a1b2c3d4-0000-4000-8000-00000000701c": ("token", 1_200_000),
    "a1b2c3d4-0000-4000-8000-0000000007f7": ("nft", 2_400_000),
    "a1b2c3d4-0000-4000-8000-000000001155": ("multi-token", 2_900_000),
    "a1b2c3d4-0000-4000-8000-00000000a1d0": ("airdrop", 900_000),
}
WALLET_ID = "5e1f0a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
# SIM-CHOICE: the account's address and one template's parameters it hands out as settings;
# the clean simulator estimates from any address and parameters (the document is silent).
SOURCE_ADDRESS = "0x7e3a91c05d2b4f68a1c3e5d7f9b20486ac1de3f5"
TEMPLATE_PARAMETERS = {"name": "Sim Token", "symbol": "SIMT"}
CONTRACT_ID = "0d5a9c3e-7b1f-4e2a-9c8d-6f4e3a2b1c0d"
# SIM-CHOICE: gas price (gwei) and layer-2 data fee (wei) per chain; testnets cost the same.
_GAS_GWEI = {"ETH": 20, "MATIC": 60, "ARB": 1, "UNI": 1, "BASE": 1, "OP": 1}
_L2 = {"ARB", "UNI", "BASE", "OP"}
_LEVELS = {"low": 0.9, "medium": 1.0, "high": 1.25}


def _chain_family(blockchain: str) -> str:
    return blockchain.split("-", 1)[0]


def fee_estimate(blockchain: str, gas_limit: int) -> dict[str, dict[str, str]]:
    """high, low and medium, each with the eight documented members as strings."""
    family = _chain_family(blockchain)
    base_gwei = _GAS_GWEI[family]
    out: dict[str, dict[str, str]] = {}
    for level, factor in _LEVELS.items():
        priority = round(base_gwei * 0.1 * factor, 9)
        max_fee = round(base_gwei * 2 * factor + priority, 9)
        gas_price = round(base_gwei * factor + priority, 9)
        l1_wei = 150_000_000_000 * gas_limit // 1000 if family in _L2 else 0
        raw = int(gas_price * 1e9) * gas_limit + l1_wei
        out[level] = {
            "gasLimit": str(gas_limit), "gasPrice": f"{gas_price:g}", "maxFee": f"{max_fee:g}",
            "priorityFee": f"{priority:g}", "baseFee": f"{base_gwei:g}",
            "networkFee": f"{raw / 1e18:.18f}".rstrip("0").rstrip("."), "networkFeeRaw": str(raw),
            "l1Fee": f"{l1_wei / 1e18:.18f}".rstrip("0").rstrip("."),
        }
    return out


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _param(name: str, kind: str, indexed: bool = False) -> dict[str, Any]:
    return {"components": [], "indexed": indexed, "name": name, "type": kind, "flattenedType": kind}


_ABI: list[dict[str, Any]] = [
    {"type": "function", "name": "balanceOf", "stateMutability": "view",
     "inputs": [_param("account", "address")], "outputs": [_param("", "uint256")]},
    {"type": "function", "name": "transfer", "stateMutability": "nonpayable",
     "inputs": [_param("to", "address"), _param("value", "uint256")], "outputs": [_param("", "bool")]},
    {"type": "event", "name": "Transfer", "anonymous": False,
     "inputs": [_param("from", "address", True), _param("to", "address", True), _param("value", "uint256")]},
]


class ContractsSimulator(Simulator):
    service = "contracts"
    credentials: ClassVar[dict[str, str]] = {
        "KEY_PREFIX": KEY[0], "KEY_ID": KEY[1], "KEY_SECRET": KEY[2],
        "TEMPLATE_ID": next(iter(TEMPLATES)), "WALLET_ID": WALLET_ID, "CONTRACT_ID": CONTRACT_ID,
        "SOURCE_ADDRESS": SOURCE_ADDRESS, "TEMPLATE_PARAMETERS": json.dumps(TEMPLATE_PARAMETERS),
        # SIM-CHOICE: where this simulator serves the operations whose path is not shown.
        "DEPLOY_TEMPLATE_PATH": "/v1/w3s/templates/{TEMPLATE_ID}/deploy",
        "DEPLOY_PATH": "/v1/w3s/contracts/deploy",
        "IMPORT_PATH": "/v1/w3s/contracts/import",
        "LIST_PATH": "/v1/w3s/contracts",
        "UPDATE_PATH": "/v1/w3s/contracts/{CONTRACT_ID}",
    }

    def __init__(self, clock: Clock | None = None) -> None:
        super().__init__(clock)
        self.keys = {KEY}
        self.contracts: dict[str, dict[str, Any]] = {CONTRACT_ID: self._seed_contract()}
        self._counter = 0
        self.interactions = Interactions(self.contracts, self._new_id, lambda: _utc(self.clock.now()), self.json_body)
        # Annotated: the bound methods and the interactions' routes would otherwise join to `function`.
        routes: tuple[tuple[str, str, Handler], ...] = (
            *self.interactions.routes(),
            ("GET", "/ping", self.ping),
            ("POST", "/v1/w3s/templates/{template_id}/deploy/estimateFee", self.estimate_template),
            ("POST", "/v1/w3s/contracts/deploy/estimateFee", self.estimate_bytecode),
            ("POST", "/v1/w3s/templates/{template_id}/deploy", self.deploy_template),
            ("POST", "/v1/w3s/contracts/deploy", self.deploy),
            ("POST", "/v1/w3s/contracts/import", self.import_contract),
            ("GET", "/v1/w3s/contracts", self.list_contracts),
            ("GET", "/v1/w3s/contracts/{contract_id}", self.get_contract),
            ("PATCH", "/v1/w3s/contracts/{contract_id}", self.update_contract),
        )
        for method, path, handler in routes:
            self.route(method, path, handler)

    # -- authentication --------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        # Ping needs no authorization; everything else the three-part key (SIM-CHOICE: 401).
        if request.path != "/ping" and not self._authorized(request.header("authorization") or ""):
            return self.error_response(SimError(401, "missing or invalid API key"))
        return super().handle(request)

    def _authorized(self, header: str) -> bool:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer":
            return False
        parts = token.strip().split(":")
        if len(parts) != 3 or not all(parts) or parts[0] not in PREFIXES:
            return False
        return (parts[0], parts[1], parts[2]) in self.keys

    def error_response(self, err: SimError) -> Response:
        # SIM-CHOICE: the error body shape is not documented.
        return Response.json_response(err.status, {"code": err.status, "message": err.message})

    # -- helpers ---------------------------------------------------------------------------
    def _new_id(self) -> str:
        self._counter += 1
        return str(uuid.UUID(int=(0x5EED << 64) + self._counter, version=4))

    @staticmethod
    def _typed(body: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
        value = body.get(name)
        if name in body and (not isinstance(value, kind) or isinstance(value, bool)):
            raise SimError(400, f"{name} has the wrong type")
        return value

    def _source(self, body: dict[str, Any]) -> str:
        """The chain of the estimate: walletId, or blockchain with sourceAddress, never both."""
        blockchain = self._typed(body, "blockchain", str)
        self._typed(body, "sourceAddress", str)
        self._typed(body, "walletId", str)
        if blockchain is not None and blockchain not in BLOCKCHAINS:
            raise SimError(400, "blockchain is not a supported value")
        has_wallet = "walletId" in body
        has_address = "blockchain" in body or "sourceAddress" in body
        if has_wallet and has_address:
            raise SimError(400, "walletId excludes blockchain and sourceAddress")
        if has_wallet:
            # SIM-CHOICE: any wallet id is estimated as a wallet on ETH-SEPOLIA.
            return "ETH-SEPOLIA"
        if "blockchain" not in body or "sourceAddress" not in body:
            raise SimError(400, "give walletId, or blockchain together with sourceAddress")
        return str(blockchain)

    @staticmethod
    def _ok(data: Any, status: int = 200) -> Response:
        return Response.json_response(status, {"data": data})

    # -- documented operations -------------------------------------------------------------
    def ping(self, request: Request) -> Response:
        return Response.json_response(200, {"message": "pong"})

    def estimate_template(self, request: Request, template_id: str) -> Response:
        if template_id not in TEMPLATES:
            raise SimError(404, "no such template")  # SIM-CHOICE: the status is not shown
        body = self.json_body(request)
        params = self._typed(body, "templateParameters", dict) or {}
        chain = self._source(body)
        gas = TEMPLATES[template_id][1] + 16 * len(json.dumps(params, sort_keys=True))
        return self._ok(fee_estimate(chain, gas))

    def estimate_bytecode(self, request: Request) -> Response:
        body = self.json_body(request)
        bytecode = self._typed(body, "bytecode", str)
        if not bytecode:
            raise SimError(400, "bytecode is required and may not be empty")
        self._typed(body, "abiJson", str)
        signature = self._typed(body, "constructorSignature", str)
        if signature is None:
            signature = DEFAULT_SIGNATURE
        if not SIGNATURE_MIN <= len(signature) <= SIGNATURE_MAX:
            raise SimError(400, f"constructorSignature must be {SIGNATURE_MIN} to {SIGNATURE_MAX} characters")
        parameters = self._typed(body, "constructorParameters", list)
        if parameters is None:
            parameters = []
        chain = self._source(body)
        gas = 53_000 + 200 * len(bytecode) + 68 * len(signature) + 5_000 * len(parameters)
        return self._ok(fee_estimate(chain, gas))

    def get_contract(self, request: Request, contract_id: str) -> Response:
        if not _UUID.match(contract_id):
            raise SimError(400, "contract id is not a UUID")
        record = self.contracts.get(contract_id.lower())
        if record is None:
            raise SimError(404, "no such contract")  # SIM-CHOICE: the status is not shown
        return self._ok({"contract": record})

    # -- SIM-CHOICE: operations whose path and payload are not shown ------------------------
    def _required(self, body: dict[str, Any], *names: str) -> None:
        missing = [n for n in names if not isinstance(body.get(n), str) or not body.get(n)]
        if missing:
            raise SimError(400, f"missing {', '.join(missing)}")

    def deploy_template(self, request: Request, template_id: str) -> Response:
        if template_id not in TEMPLATES:
            raise SimError(404, "no such template")
        body = self.json_body(request)
        self._required(body, "name", "walletId", "blockchain")
        answer = self._deployed(body, "TEMPLATE", str(body["blockchain"]))
        # SIM-CHOICE: the payload is not shown; a template deployment may create several contracts,
        # so the vendor's client reads a contractIds list (contractId, this one, stays beside it).
        data = answer.json()["data"]
        return self._ok({**data, "contractIds": [data["contractId"]]}, answer.status)

    def deploy(self, request: Request) -> Response:
        body = self.json_body(request)
        self._required(body, "name", "walletId", "blockchain", "bytecode", "abiJson")
        return self._deployed(body, "BYTECODE", str(body["blockchain"]))

    def import_contract(self, request: Request) -> Response:
        body = self.json_body(request)
        self._required(body, "name", "address", "blockchain")
        blockchain = str(body["blockchain"])
        if blockchain not in BLOCKCHAINS:
            raise SimError(400, "blockchain is not a supported value")
        # An import deploys nothing: the record itself comes back.
        record = self._record(self._new_id(), str(body["name"]), blockchain, "IMPORT")
        record["contractAddress"] = str(body["address"])
        self.contracts[record["id"]] = record
        return self._ok({"contract": record}, 201)

    def _deployed(self, body: dict[str, Any], input_type: str, blockchain: str) -> Response:
        if blockchain not in BLOCKCHAINS:
            raise SimError(400, "blockchain is not a supported value")
        record = self._record(self._new_id(), str(body["name"]), blockchain, input_type)
        self.contracts[record["id"]] = record
        return self._ok({"contractId": record["id"], "transactionId": record["deploymentTransactionId"]}, 201)

    def list_contracts(self, request: Request) -> Response:
        return self._ok({"contracts": list(self.contracts.values())})

    def update_contract(self, request: Request, contract_id: str) -> Response:
        if not _UUID.match(contract_id) or contract_id.lower() not in self.contracts:
            raise SimError(404, "no such contract")
        body = self.json_body(request)
        record = self.contracts[contract_id.lower()]
        for name, kind in (("name", str), ("description", str), ("archived", bool)):
            if name in body:
                if not isinstance(body[name], kind):
                    raise SimError(400, f"{name} has the wrong type")
                record[name] = body[name]
        record["updateDate"] = _utc(self.clock.now())
        return self._ok({"contract": record})

    # -- records ---------------------------------------------------------------------------
    def _record(self, contract_id: str, name: str, blockchain: str, input_type: str) -> dict[str, Any]:
        now = _utc(self.clock.now())
        digest = uuid.uuid5(uuid.NAMESPACE_URL, contract_id).hex
        return {
            "id": contract_id, "archived": False, "blockchain": blockchain, "contractInputType": input_type,
            "name": name, "description": "", "status": "COMPLETE", "verificationStatus": "UNVERIFIED",
            "createDate": now, "updateDate": now,
            "sourceCode": [{"fileName": "Token.sol", "fileContent": "// SPDX-License-Identifier: MIT\n"}],
            "functions": [e for e in _ABI if e["type"] == "function"],
            "events": [e for e in _ABI if e["type"] == "event"],
            "abiJson": json.dumps(_ABI),
            "deployerWalletID": WALLET_ID, "deploymentTransactionId": str(uuid.uuid5(uuid.NAMESPACE_OID, digest)),
            "deployerUserID": str(uuid.uuid5(uuid.NAMESPACE_DNS, "sim-user")),
            "txHash": "0x" + (digest * 2), "contractAddress": "0x" + digest[:40],
            "deployerAddress": "0x4b2a7c3f5e1d0a9b8c7d6e5f4a3b2c1d0e9f8a7b",
            "deploymentErrorReason": "", "deploymentErrorDetails": "",
            "metadataLink": f"https://metadata.sim.invalid/contracts/{contract_id}",
            "implementationContract": {},
        }

    def _seed_contract(self) -> dict[str, Any]:
        return self._record(CONTRACT_ID, "Conformance Token", "ETH-SEPOLIA", "TEMPLATE")
