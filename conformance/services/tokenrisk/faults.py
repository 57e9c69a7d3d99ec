"""Faults of the token-risk simulator: each makes it break one rule.

A listed route missing (404) or its method missing (405) is derived by the core for every
route rule (faults/generic.py, route_faults); a path served only with a trailing slash answers
the listed path 404 as route-missing does. These are what the contract cannot state: a method
not implemented (501), the unversioned ping moved under /v1, and answers ill-formed for their kind.
"""

from __future__ import annotations

from conformance.faults.base import Fault, fault, on_request, on_response
from conformance.faults.toolkit import Wrap, path, status
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

_CSV, _RPC_STATS = path(r"^/v1/domains/data\.csv$"), path(r"^/v1/rpc/stats$")


def _ping_only_versioned(request: Request) -> Request:
    # /ping moved under /v1: the versioned path reaches the handler, the unversioned one nothing.
    if request.path == "/v1/ping":
        request.path = "/ping"
    elif request.path == "/ping":
        request.path = "/nowhere/ping"
    return request


def _csv_response(edit: bytes, ctype: str) -> Wrap:
    # Not the toolkit's response_body(): these answers are not JSON (nor is what replaces them).
    def after(request: Request, response: Response) -> Response:
        if _CSV(request) and response.status == 200:
            response.headers = {**response.headers, "content-type": ctype}
            response.body = edit
        return response

    return on_response(after)


def _truncated_json(request: Request, response: Response) -> Response:
    if _RPC_STATS(request) and response.status == 200:
        response.body = response.body[: len(response.body) // 2]
    return response


def _html_errors(request: Request, response: Response) -> Response:
    # Error answers to bad payloads keep declaring JSON but carry an HTML error page.
    if request.method == "POST" and 400 <= response.status < 500:
        response.body = b"<html><body>Bad Request</body></html>"
    return response


def _broken_unknown_id(request: Request, response: Response) -> Response:
    # Only answers for ids the simulator does not know: the default requests never see this.
    if "conformance-unissued-id" in request.path and 400 <= response.status < 500:
        response.body = b'{"message": "token not found'
    return response


FAULTS: list[Fault] = [
    fault("vote-not-implemented", "POST /v1/tokens/{id}/vote answers 501")(
        status(path(r"^/v1/tokens/[^/]+/vote$", "POST"), 501, body={"message": "not implemented"})),
    fault("ping-only-versioned",
          "ping answers at /v1/ping only; unversioned GET /ping is 404")(on_request(_ping_only_versioned)),
    fault("csv-served-as-json",
          "data.csv answers a JSON array declared application/json")(
        _csv_response(b'[{"name":"sim.token","owner":"x"}]', "application/json")),
    fault("csv-as-html", "data.csv answers an HTML page declared text/html")(
        _csv_response(b"<html><body><table><tr><td>sim.token</td></tr></table></body></html>",
                      "text/html")),
    # Ragged records are allowed (RFC 4180's SHOULD); these break its grammar or the declared charset.
    fault("csv-unclosed-quote", "data.csv has a quoted field that is never closed")(
        _csv_response(b'name,owner,token\n"sim.token,Ownr1,TR1\n', "text/csv")),
    fault("csv-text-after-quote",
          "data.csv has text after a closing quote (\"two, ltd\".token)")(
        _csv_response(b'name,owner,token\n"two, ltd".token,Ownr2,TR2\n', "text/csv")),
    fault("csv-wrong-declared-charset",
          "data.csv declares charset=utf-8 but is cp1252 bytes")(
        _csv_response("name,owner,token\ncaf\u00e9.token,Ownr3,TR3\n".encode("cp1252"), "text/csv; charset=utf-8")),
    fault("truncated-json",
          "GET /v1/rpc/stats declares application/json but its body is cut in half")(on_response(_truncated_json)),
    fault("html-error-bodies",
          "4xx answers to POST routes declare application/json but carry an HTML page")(on_response(_html_errors)),
    fault("broken-unknown-id-answers",
          "answers for unknown ids declare application/json but are cut-off JSON")(on_response(_broken_unknown_id)),
]
