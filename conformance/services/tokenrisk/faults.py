"""Faults of the token-risk simulator: each makes it break one rule.

Most are "a listed route is missing" (one per table row, so every route rule is shown to
fail), then a listed method refused (405) or not implemented (501), the unversioned ping moved
under /v1, a path served only with a trailing slash, and answers ill-formed for their kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from conformance.faults.base import Fault, FaultySimulator, fault, on_request, on_response
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

# (rule id, method, listed path) of every table row: the fault module may know the simulator's
# surface, and these are the rows each "missing" fault removes.
_ROWS = (
    ("general.maintenance-unversioned", "GET", "/maintenance"),
    ("general.ping-unversioned", "GET", "/ping"),
    ("general.leaderboard", "GET", "/v1/leaderboard"),
    ("general.maintenance", "GET", "/v1/maintenance"),
    ("general.rpc-stats", "GET", "/v1/rpc/stats"),
    ("auth.login", "POST", "/v1/auth/login/{ledger}"),
    ("tokens.bulk-report", "POST", "/v1/bulk/tokens/report"),
    ("tokens.bulk-summary", "POST", "/v1/bulk/tokens/summary"),
    ("tokens.verify", "POST", "/v1/tokens/verify"),
    ("tokens.verify-eligible", "POST", "/v1/tokens/verify/eligible"),
    ("tokens.verify-transaction", "POST", "/v1/tokens/verify/transaction"),
    ("tokens.insider-graph", "GET", "/v1/tokens/{id}/insiders/graph"),
    ("tokens.report", "GET", "/v1/tokens/{id}/report"),
    ("tokens.report-submit", "POST", "/v1/tokens/{id}/report"),
    ("tokens.report-summary", "GET", "/v1/tokens/{id}/report/summary"),
    ("domains.list", "GET", "/v1/domains"),
    ("domains.csv-route", "GET", "/v1/domains/data.csv"),
    ("domains.lookup", "GET", "/v1/domains/lookup/{id}"),
    ("domains.records", "GET", "/v1/domains/records/{id}"),
    ("stats.new-tokens", "GET", "/v1/stats/new_tokens"),
    ("stats.recent", "GET", "/v1/stats/recent"),
    ("stats.trending", "GET", "/v1/stats/trending"),
    ("stats.verified", "GET", "/v1/stats/verified"),
    ("vaults.lockers", "GET", "/v1/tokens/{id}/lockers"),
    ("vaults.provider-lockers", "GET", "/v1/tokens/{id}/lockers/{provider}"),
    ("votes.submit", "POST", "/v1/tokens/{id}/vote"),
    ("votes.read", "GET", "/v1/tokens/{id}/votes"),
)


def _matcher(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)) + "$")


def _status(status: int, body: bytes = b'{"message":"fault"}') -> Response:
    return Response(status, {"content-type": "application/json"}, body)


def _missing_route(rule: str, method: str, template: str) -> Fault:
    """The listed method on the listed path answers 404: the route is missing."""
    pattern = _matcher(template)

    class _Missing(FaultySimulator):
        def handle(self, request: Request) -> Response:
            if request.method == method and pattern.match(request.path):
                return _status(404, b'{"message":"no such route"}')
            return super().handle(request)

    slug = template.strip("/").replace("/", "-").replace("{", "").replace("}", "")
    return Fault(f"missing-{method.lower()}-{slug}", f"tokenrisk.{rule}",
                 f"{method} {template} answers 404 (the listed route is missing)",
                 lambda s: _Missing(s))  # type: ignore[arg-type,return-value]


def _only_other_method(rule: str, method: str, template: str, other: str) -> Fault:
    """The route answers only ``other``: the listed method gets 405 with an Allow header."""
    pattern = _matcher(template)

    class _OtherOnly(FaultySimulator):
        def handle(self, request: Request) -> Response:
            if pattern.match(request.path):
                if request.method == method:
                    return Response(405, {"content-type": "application/json", "allow": other},
                                    b'{"message":"method not allowed"}')
                if request.method == other:
                    return Response(200, {"content-type": "application/json"}, b"[]")
            return super().handle(request)

    return Fault(f"{method.lower()}-route-answers-only-{other.lower()}-{rule.split('.')[1]}", f"tokenrisk.{rule}",
                 f"{method} {template} answers 405; the route serves only {other}",
                 lambda s: _OtherOnly(s))  # type: ignore[arg-type,return-value]


def _not_implemented(request: Request, response: Response) -> Response:
    if request.method == "POST" and _matcher("/v1/tokens/{id}/vote").match(request.path):
        return _status(501, b'{"message":"not implemented"}')
    return response


def _ping_only_versioned(request: Request) -> Request:
    # /ping moved under /v1: the versioned path reaches the handler, the unversioned one nothing.
    if request.path == "/v1/ping":
        request.path = "/ping"
    elif request.path == "/ping":
        request.path = "/nowhere/ping"
    return request


def _trailing_slash_only(request: Request) -> Request:
    if request.path == "/v1/stats/trending":
        request.path = "/v1/stats/trending-without-slash-is-not-served"
    elif request.path == "/v1/stats/trending/":
        request.path = "/v1/stats/trending"
    return request


def _csv_response(edit: bytes, ctype: str) -> Callable[[Simulator], Simulator]:
    def after(request: Request, response: Response) -> Response:
        if request.path == "/v1/domains/data.csv" and response.status == 200:
            response.headers = {**response.headers, "content-type": ctype}
            response.body = edit
        return response

    return on_response(after)


def _truncated_json(request: Request, response: Response) -> Response:
    if request.path == "/v1/rpc/stats" and response.status == 200:
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


# Rows naming a token's sub-resource: a 404 there may mean "none for this id" (gap none-status),
# so their rules skip a 404 and the fault that shows each can fail is a 405 instead.
_BY_ID = {"tokens.insider-graph", "vaults.lockers", "vaults.provider-lockers", "votes.read", "domains.lookup",
          "domains.records"}

FAULTS: list[Fault] = [
    *(_missing_route(rule, method, template) for rule, method, template in _ROWS if rule not in _BY_ID),
    *(_only_other_method(rule, method, template, "POST") for rule, method, template in _ROWS if rule in _BY_ID),
    _only_other_method("tokens.bulk-report", "POST", "/v1/bulk/tokens/report", "GET"),
    _only_other_method("auth.login", "POST", "/v1/auth/login/{ledger}", "GET"),
    fault("vote-not-implemented", "tokenrisk.votes.submit", "POST /v1/tokens/{id}/vote answers 501")(
        on_response(_not_implemented)),
    fault("ping-only-versioned", "tokenrisk.versioning.unversioned",
          "ping answers at /v1/ping only; unversioned GET /ping is 404")(on_request(_ping_only_versioned)),
    fault("trending-trailing-slash-only", "tokenrisk.stats.trending",
          "GET /v1/stats/trending is served only as /v1/stats/trending/ (404 without the slash)")(
        on_request(_trailing_slash_only)),
    fault("csv-served-as-json", "tokenrisk.domains.csv-body",
          "data.csv answers a JSON array declared application/json")(
        _csv_response(b'[{"name":"sim.token","owner":"x"}]', "application/json")),
    fault("csv-as-html", "tokenrisk.domains.csv-body", "data.csv answers an HTML page declared text/html")(
        _csv_response(b"<html><body><table><tr><td>sim.token</td></tr></table></body></html>",
                      "text/html")),
    # Ragged records are allowed (RFC 4180's SHOULD); these break its grammar or the declared charset.
    fault("csv-unclosed-quote", "tokenrisk.domains.csv-body", "data.csv has a quoted field that is never closed")(
        _csv_response(b'name,owner,token\n"sim.token,Ownr1,TR1\n', "text/csv")),
    fault("csv-text-after-quote", "tokenrisk.domains.csv-body",
          "data.csv has text after a closing quote (\"two, ltd\".token)")(
        _csv_response(b'name,owner,token\n"two, ltd".token,Ownr2,TR2\n', "text/csv")),
    fault("csv-wrong-declared-charset", "tokenrisk.domains.csv-body",
          "data.csv declares charset=utf-8 but is cp1252 bytes")(
        _csv_response("name,owner,token\ncaf\u00e9.token,Ownr3,TR3\n".encode("cp1252"), "text/csv; charset=utf-8")),
    fault("truncated-json", "tokenrisk.responses.well-formed",
          "GET /v1/rpc/stats declares application/json but its body is cut in half")(on_response(_truncated_json)),
    fault("html-error-bodies", "tokenrisk.observe.malformed-payloads",
          "4xx answers to POST routes declare application/json but carry an HTML page")(on_response(_html_errors)),
    fault("broken-unknown-id-answers", "tokenrisk.observe.unknown-id",
          "answers for unknown ids declare application/json but are cut-off JSON")(on_response(_broken_unknown_id)),
]
