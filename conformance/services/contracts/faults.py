"""Faults of the smart-contract platform simulator: each makes it break one documented rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.faults.base import Fault, fault, on_request
from conformance.faults.toolkit import Edit, operation, path, request_body, response_body, status
from conformance.services.contracts.simulator import KEY
from conformance.simulators import Simulator
from conformance.transport.model import Request

__all__ = ["FAULTS"]

# The fault module may know the simulator's seeded key and paths: they are its surface.
PREFIX, KEY_ID, SECRET = KEY
BYTECODE = "/v1/w3s/contracts/deploy/estimateFee"
TEMPLATE = "/v1/w3s/templates/"
# A contract record read (GET /v1/w3s/contracts/{id}, and anything under it).
RECORD = path("^/v1/w3s/contracts/", "GET")
_ESTIMATE = path("estimateFee$")
_CRASH = {"message": "internal error"}


def _key_edit(edit: Callable[[list[str]], list[str]]) -> Callable[[Simulator], Simulator]:
    """Rewrite the key's colon-separated parts before the simulator reads them."""
    def before(request: Request) -> Request:
        scheme, _, token = (request.header("authorization") or "").partition(" ")
        if scheme.lower() == "bearer":
            request.headers["authorization"] = "Bearer " + ":".join(edit(token.split(":")))
        return request
    return on_request(before)


def _estimate_under(prefix: str) -> Callable[[Request], bool]:
    """POSTs to a fee estimate whose path starts with ``prefix``."""
    return lambda r: r.method == "POST" and r.path.startswith(prefix) and _ESTIMATE(r)


def in_record(edit: Callable[[dict[str, Any]], None]) -> Edit:
    """An answer edit that changes the contract record it carries (``data.contract``) in place."""
    def change(body: Any) -> Any:
        edit(body["data"]["contract"])
        return body
    return change


def _set(name: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda record: record.__setitem__(name, value)


def _numeric_gas_limit(body: Any) -> Any:
    body["data"]["medium"]["gasLimit"] = int(body["data"]["medium"]["gasLimit"])
    return body


def _keyless_ping(request: Request) -> bool:
    return request.path == "/ping" and not request.header("authorization")


def _one_form(body: dict[str, Any]) -> dict[str, Any]:
    if "walletId" in body and ("blockchain" in body or "sourceAddress" in body):
        body.pop("walletId")
        body.setdefault("blockchain", "ETH-SEPOLIA")
        body.setdefault("sourceAddress", "0x4b2a7c3f5e1d0a9b8c7d6e5f4a3b2c1d0e9f8a7b")
    return body


def _no_form(body: dict[str, Any]) -> dict[str, Any]:
    if not {"walletId", "blockchain", "sourceAddress"} & set(body):
        body["walletId"] = "default-wallet"
    return body


def _other_default(body: dict[str, Any]) -> dict[str, Any]:
    body.setdefault("constructorSignature", "constructor(uint256 supply)")
    return body


def _coerce(name: str, kind: type, empty: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def edit(body: dict[str, Any]) -> dict[str, Any]:
        if name in body and not isinstance(body[name], kind):
            body[name] = empty
        return body
    return edit


def _abi_unparsable(request: Request) -> bool:
    if request.path != BYTECODE:
        return False
    try:
        json.loads(json.loads(request.body).get("abiJson", "[]"))
    except (ValueError, TypeError, AttributeError):
        return True
    return False


def _wallet_form(request: Request) -> bool:
    return _ESTIMATE(request) and b"walletId" in request.body


def _odd_bytecode(request: Request) -> bool:
    # A success that is no fee estimate, for bytecode that is not hex digits (asked of answers 200
    # only, so of bodies the simulator read as JSON).
    if request.path != BYTECODE:
        return False
    digits = str((json.loads(request.body or b"{}") or {}).get("bytecode", "")).removeprefix("0x")
    return not digits or any(c not in "0123456789abcdefABCDEF" for c in digits)


FAULTS: list[Fault] = [
    fault("ping-requires-auth", "ping without authorization answers 401")(
        status(_keyless_ping, 401, body={"message": "missing API key"})),
    fault("accepts-wallet-with-blockchain",
          "walletId together with blockchain/sourceAddress is accepted (walletId ignored)")(
        request_body(_estimate_under("/v1/w3s/"), _one_form)),
    fault("accepts-neither-form",
          "a body with neither walletId nor blockchain + sourceAddress gets a default wallet")(
        request_body(_estimate_under("/v1/w3s/"), _no_form)),
    fault("fee-as-number", "medium.gasLimit is returned as a number")(
        response_body(_ESTIMATE, _numeric_gas_limit)),
    fault("refuses-wallet-form", "the walletId form is refused with 400")(
        status(_wallet_form, 400, when=200, body={"message": "walletId is not supported"})),
    fault("create-date-without-zone", "createDate carries no UTC designator")(
        response_body(RECORD, in_record(_set("createDate", "2027-01-15T08:00:00")))),
    fault("drops-implementation-contract", "the record lacks implementationContract")(
        response_body(RECORD, in_record(lambda r: r.pop("implementationContract", None) and None))),
    fault("other-constructor-default",
          "an omitted constructorSignature defaults to constructor(uint256 supply)")(
        request_body(_estimate_under(BYTECODE), _other_default)),
    fault("coerces-constructor-parameters",
          "constructorParameters of another type is read as []")(
        request_body(_estimate_under(BYTECODE), _coerce("constructorParameters", list, []))),
    fault("list-not-served", "GET list contracts answers 404")(
        status(operation("GET", "/v1/w3s/contracts"), 404, body={"message": "not found"})),
    # Issue 21: 422-for-non-hex-bytecode became an allowed variant (the document lists 400 for the
    # estimates, not as the only refusal; which values are refused is not shown).
    fault("empty-estimate-for-odd-bytecode",
          "bytecode that is not hex digits is answered 200 with an empty data object, no fee estimate")(
        response_body(_odd_bytecode, lambda _body: {"data": {}})),
    fault("crashes-on-bad-abi-json",
          "an abiJson that does not parse crashes the bytecode estimate with 500")(
        status(_abi_unparsable, 500, when=200, body=_CRASH)),
]
