"""Allowed variants of the token-risk simulator: other choices where the document is silent.

Each must pass every rule (or skip honestly): the observatory records the difference and never
fails on it. Together with the generic variants (an extra header, reformatted JSON).
"""

from __future__ import annotations

import codecs
import json

from conformance.faults.base import FaultySimulator, Variant, on_request, on_response, variant
from conformance.faults.toolkit import path
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]

_CSV = path(r"^/v1/domains/data\.csv$")


class _Everything(set[str]):
    """Every name is a member: a target serving any ledger or provider name it is asked for."""

    def __contains__(self, item: object) -> bool:
        return True


def _any_segment(sim: Simulator) -> Simulator:
    sim.ledgers = _Everything()  # type: ignore[attr-defined]
    sim.providers = _Everything()  # type: ignore[attr-defined]
    return sim


def _plain_ping(request: Request, response: Response) -> Response:
    if request.path in ("/ping", "/v1/ping") and response.status == 200:
        return Response(200, {"content-type": "text/plain; charset=utf-8"}, b"pong")
    return response


def _csv_dressed(request: Request, response: Response) -> Response:
    # RFC 4180 line breaks (CRLF), a byte order mark and the optional header parameter.
    if _CSV(request) and response.status == 200:
        text = response.body.decode("utf-8").replace("\n", "\r\n")
        response.body = codecs.BOM_UTF8 + text.encode("utf-8")
        response.headers = {**response.headers, "content-type": "text/csv; header=present"}
    return response


def _csv_cp1252_ragged(request: Request, response: Response) -> Response:
    # No charset, cp1252 bytes (an accented name) and a record with a trailing extra field:
    # RFC 4180's SHOULDs, not its grammar (gap csv-columns).
    if _CSV(request) and response.status == 200:
        text = response.body.decode("utf-8") + "caf\u00e9.token,Ownr3333333333333333333333333333333333333,TR3,2027\n"
        response.body = text.encode("cp1252")
        response.headers = {**response.headers, "content-type": "text/csv"}
    return response


_OPEN = ("/ping", "/maintenance", "/v1/maintenance", "/v1/auth/login/")


class _CredentialRequired(FaultySimulator):
    """Every route but ping, maintenance and login wants the session login issues (401 without)."""

    def handle(self, request: Request) -> Response:
        if not request.path.startswith(_OPEN) and request.header("authorization") is None:
            return Response(401, {"content-type": "application/json", "www-authenticate": "Bearer"},
                            b'{"message":"login first"}')
        return super().handle(request)


def _problem_errors(request: Request, response: Response) -> Response:
    # RFC 9457 problem details, and 422 rather than 400 for payloads it cannot use.
    if 400 <= response.status < 500:
        status = 422 if response.status == 400 else response.status
        detail = (response.json() or {}).get("message", "") if isinstance(response.json(), dict) else ""
        return Response(status, {"content-type": "application/problem+json"},
                        json.dumps({"type": "about:blank", "title": "error", "status": status,
                                    "detail": detail}).encode())
    return response


def _versioned_ping(request: Request) -> Request:
    if request.path == "/v1/ping":
        request.path = "/ping"
    return request


VARIANTS: list[Variant] = [
    variant("any-ledger-and-provider",
            "every ledger and provider name is served (other values for the unnamed segments)")(_any_segment),
    variant("plain-text-ping", "ping answers text/plain 'pong' (its media type is not shown)")(
        on_response(_plain_ping)),
    variant("csv-crlf-bom-header-param", "data.csv with CRLF, a UTF-8 BOM and text/csv; header=present")(
        on_response(_csv_dressed)),
    variant("credential-required", "routes other than ping, maintenance and login answer 401 without a credential")(
        lambda sim: _CredentialRequired(sim)),  # type: ignore[arg-type,return-value]
    variant("problem-json-errors", "errors as application/problem+json (RFC 9457), 422 for unusable payloads")(
        on_response(_problem_errors)),
    variant("csv-cp1252-ragged", "data.csv in cp1252 without a charset, one record with an extra field")(
        on_response(_csv_cp1252_ragged)),
    variant("versioned-ping-too", "GET /v1/ping is served as well as GET /ping (the other reading of Versioning)")(
        on_request(_versioned_ping)),
]
