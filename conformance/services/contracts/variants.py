"""Allowed variants of the smart-contract platform simulator: choices the document leaves open.

Every rule must pass under each: they prove the checks do not fail a conforming server that
chose differently where the document is silent.
"""

from __future__ import annotations

import re
from typing import Any

from conformance.faults.base import Variant, json_edit, on_response, variant
from conformance.services.contracts.faults import PREFIX, _key_edit
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]

_HEX = re.compile(r"^0x[0-9a-f]+$")


def _echo_request_id(request: Request, response: Response) -> Response:
    # Whether X-Request-Id is echoed is not shown (gap request-id-echo).
    value = request.header("x-request-id")
    if value is not None:
        response.headers = {**response.headers, "x-request-id": value}
    return response


def _mixed_case(text: str) -> str:
    # Like an EIP-55 checksum: letters of the hex digits in either case.
    return text[:2] + "".join(c.upper() if i % 2 else c for i, c in enumerate(text[2:]))


def _record_edit(request: Request, response: Response, edit: Any) -> Response:
    if request.method == "GET" and request.path.startswith("/v1/w3s/contracts/") and response.status == 200:
        def change(body: Any) -> Any:
            edit(body["data"]["contract"])
            return body
        response.body = json_edit(response.body, change)
    return response


def _checksum_hex(request: Request, response: Response) -> Response:
    # Letter case of hex strings is not shown (gap hex-prefix).
    def edit(record: dict[str, Any]) -> None:
        for name in ("contractAddress", "deployerAddress", "txHash"):
            if isinstance(record.get(name), str) and _HEX.match(record[name]):
                record[name] = _mixed_case(record[name])
    return _record_edit(request, response, edit)


def _offset_fractions(request: Request, response: Response) -> Response:
    # ISO 8601 UTC may be written with fractions of a second and a +00:00 offset.
    def edit(record: dict[str, Any]) -> None:
        for name in ("createDate", "updateDate"):
            if isinstance(record.get(name), str) and record[name].endswith("Z"):
                record[name] = record[name][:-1] + ".250+00:00"
    return _record_edit(request, response, edit)


def _forbidden_for_bad_keys(request: Request, response: Response) -> Response:
    # The status of a refused key is not shown (gap refusal-status): 403 instead of 401.
    if response.status == 401:
        response.status = 403
    return response


def _other_error_body(request: Request, response: Response) -> Response:
    # The error body shape is not shown (gap error-body-shape): plain text.
    if response.status >= 400:
        response.body = f"error {response.status}".encode()
        response.headers = {**response.headers, "content-type": "text/plain; charset=utf-8"}
    return response


def _extra_record_members(request: Request, response: Response) -> Response:
    # Members beyond the listed ones are not excluded; a newer record may carry more.
    def edit(record: dict[str, Any]) -> None:
        record["tags"] = ["conformance"]
        record["implementationContract"] = {"address": record.get("contractAddress", "")}
    return _record_edit(request, response, edit)


VARIANTS: list[Variant] = [
    # The document requires three parts; whether PREFIX is checked is not shown (gap prefix-checked).
    variant("prefix-not-checked", "any PREFIX is accepted with the right ID and SECRET")(
        _key_edit(lambda p: [PREFIX, *p[1:]] if len(p) == 3 else p)),
    variant("echoes-request-id", "responses echo X-Request-Id")(on_response(_echo_request_id)),
    variant("checksum-case-hex", "addresses and hashes in mixed (checksum) letter case")(on_response(_checksum_hex)),
    variant("utc-offset-fractions", "timestamps as 2027-01-15T08:00:00.250+00:00")(on_response(_offset_fractions)),
    variant("403-for-refused-keys", "a refused key is answered 403, not 401")(on_response(_forbidden_for_bad_keys)),
    variant("plain-text-errors", "error bodies are plain text")(on_response(_other_error_body)),
    variant("extra-record-members", "the contract record carries members beyond the listed ones")(
        on_response(_extra_record_members)),
]
