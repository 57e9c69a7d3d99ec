"""Allowed variants of the smart-contract platform simulator: choices the document leaves open.

Every rule must pass under each: they prove the checks do not fail a conforming server that
chose differently where the document is silent.
"""

from __future__ import annotations

import json
import re
from typing import Any

from conformance.faults.base import Variant, on_response, variant
from conformance.faults.toolkit import response_body, sent_json, status
from conformance.services.contracts.faults import PREFIX, RECORD, _key_edit, in_record
from conformance.services.contracts.simulator import SOURCE_ADDRESS, TEMPLATE_PARAMETERS, WALLET_ID
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]

_HEX_BYTES = re.compile(r"^(0x)?[0-9a-fA-F]+$")
_BYTECODE = "/v1/w3s/contracts/deploy/estimateFee"


def _offset_fractions(record: dict[str, Any]) -> None:
    # ISO 8601 UTC may be written with fractions of a second and a +00:00 offset.
    for name in ("createDate", "updateDate"):
        if isinstance(record.get(name), str) and record[name].endswith("Z"):
            record[name] = record[name][:-1] + ".250+00:00"


def _extra_record_members(record: dict[str, Any]) -> None:
    # Members beyond the listed ones are not excluded; a newer record may carry more.
    record["tags"] = ["conformance"]
    record["implementationContract"] = {"address": record.get("contractAddress", "")}


def _unknown_values(request: Request) -> bool:
    # Estimates only from the account's own address, and only with the template's own
    # parameters (gap example-values); checked after the key, as a server authenticates first.
    if not request.path.endswith("estimateFee"):
        return False
    body = sent_json(request)
    known = body.get("sourceAddress", SOURCE_ADDRESS) == SOURCE_ADDRESS
    if request.path.startswith("/v1/w3s/templates/"):
        known = known and body.get("templateParameters", TEMPLATE_PARAMETERS) == TEMPLATE_PARAMETERS
    return not known


def _unknown_wallet(request: Request) -> bool:
    # The status for a wallet or address the account does not hold is not shown (gap
    # wallet-and-address): this server answers 404, as for a resource it cannot find.
    if not request.path.endswith("estimateFee"):
        return False
    body = sent_json(request)
    return body.get("walletId", WALLET_ID) != WALLET_ID or body.get("sourceAddress", SOURCE_ADDRESS) != SOURCE_ADDRESS


def _non_hex_bytecode(request: Request) -> bool:
    # Which bytecode is refused, and with which status beside the listed 400, is not shown (gap
    # bytecode-abi-format): bytecode that is not hex digits is answered 422.
    if request.path != _BYTECODE:
        return False
    digits = str(sent_json(request).get("bytecode", "")).removeprefix("0x")
    return not digits or any(c not in "0123456789abcdefABCDEF" for c in digits)


def _invalid_bytecode(request: Request) -> bool:
    # bytecode must be hex digits and abiJson must parse (gap bytecode-abi-format).
    if request.path != _BYTECODE:
        return False
    body = sent_json(request)
    try:
        json.loads(str(body.get("abiJson", "[]")))
        parses = True
    except ValueError:
        parses = False
    return not (_HEX_BYTES.match(str(body.get("bytecode", ""))) and parses)


def _testnets_only(request: Request, response: Response) -> Response:
    # A key limited to test networks (gap chain-availability): estimates on a mainnet are refused.
    if request.path.endswith("/deploy/estimateFee") and response.status == 200:
        chain = str(sent_json(request).get("blockchain", ""))
        if chain and "-" not in chain:
            return Response.json_response(400, {"message": f"{chain} is not available to this key"})
    return response


def _without_constructor_parameters(request: Request) -> bool:
    # "empty array when none" read as what a client must send (gap constructor-parameters-omitted).
    return request.path == _BYTECODE and "constructorParameters" not in sent_json(request)


def _basic_format_times(record: dict[str, Any]) -> None:
    # ISO 8601 basic format, and a comma fraction with a +0000 offset.
    stamp = str(record.get("createDate", ""))
    if stamp.endswith("Z") and len(stamp) == 20:
        record["createDate"] = stamp[:19].replace("-", "").replace(":", "") + "Z"
        record["updateDate"] = stamp[:19] + ",5+0000"



VARIANTS: list[Variant] = [
    # The document requires three parts; whether PREFIX is checked is not shown (gap prefix-checked).
    variant("prefix-not-checked", "any PREFIX is accepted with the right ID and SECRET")(
        _key_edit(lambda p: [PREFIX, *p[1:]] if len(p) == 3 else p)),
    variant("utc-offset-fractions", "timestamps as 2027-01-15T08:00:00.250+00:00")(
        response_body(RECORD, in_record(_offset_fractions))),
    variant("known-values-only", "estimates refuse (400) an address or template parameters the account does not "
            "hold")(
        status(_unknown_values, 400, when=200, body={"message": "unknown source address or template parameters"})),
    variant("unknown-wallet-404", "estimates answer 404 for a walletId or sourceAddress the account does not hold")(
        status(_unknown_wallet, 404, when=200, body={"message": "wallet or address not found"})),
    variant("422-for-non-hex-bytecode", "bytecode that is not hex digits is answered 422")(
        status(_non_hex_bytecode, 422, when=200, body={"message": "bytecode is not hex"})),
    variant("validates-bytecode", "the bytecode estimate refuses (400) bytecode that is not hex and abiJson that "
            "does not parse")(
        status(_invalid_bytecode, 400, when=200, body={"message": "bytecode must be hex and abiJson must be JSON"})),
    variant("testnets-only", "estimates on a mainnet blockchain are refused (400): a test key")(
        on_response(_testnets_only)),
    variant("constructor-parameters-required", "the bytecode estimate refuses (400) a body without "
            "constructorParameters")(
        status(_without_constructor_parameters, 400, when=200,
               body={"message": "constructorParameters is required ([] when none)"})),
    variant("utc-basic-format", "timestamps as 20270115T080000Z and 2027-01-15T08:00:00,5+0000")(
        response_body(RECORD, in_record(_basic_format_times))),
    variant("extra-record-members", "the contract record carries members beyond the listed ones")(
        response_body(RECORD, in_record(_extra_record_members))),
]
