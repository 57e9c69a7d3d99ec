"""Faults derived from the OAuth 2.0 rules (``checks/oauth.py``), on the endpoints the contract's
``oauth2`` scheme names (``authorizationUrl``, ``tokenUrl``): each is the server a rule's check
must tell from a conforming one, made by editing what travels, never the simulator's state.

On the redirect back (a 3xx Location of the authorization endpoint): ``code-dropped``
(``oauth-redirect-query``), ``state-replaced`` (``oauth-state-echoed``),
``error-description-dropped`` (``oauth-error-redirect``). On the authorization request:
``scope-first-only`` (``oauth-code-exchange``: only the first of the scopes is read). On the
token endpoint: ``refresh-token-withheld`` (``oauth-code-exchange`` with ``refresh_token``: a
code exchange answered without one), ``expires-in-doubled`` (``oauth-expires-in``),
``refresh-grant-refused`` (``oauth-refresh-grant``), and for ``oauth-token-refused`` by its
edit: ``code-replayed`` (``code-again``: a code exchanged again is answered as the first time),
``redirect-uri-ignored`` (``other-redirect-uri``: the redirect_uri of the authorization request
that issued the code is put in), ``fields-filled`` (``leave-out``: a missing grant_type, client_id
or redirect_uri is filled from the authorization request that issued the code).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, FaultySimulator, derived_fault, on_request, on_response
from conformance.faults.toolkit import Match, Wrap, operation, response_body
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["oauth_faults"]

_OK = range(200, 300)
Query = dict[str, str]


def _form(request: Request) -> Query:
    return dict(parse_qsl(request.body.decode("utf-8", "replace"), keep_blank_values=True))


def _redirect_edit(at: Match, edit: Callable[[Query], Query]) -> Wrap:
    def after(request: Request, response: Response) -> Response:
        location = response.header("location")
        if at(request) and 300 <= response.status < 400 and location and "?" in location:
            base, _, query = location.partition("?")
            response.headers = {**{k: v for k, v in response.headers.items() if k.lower() != "location"},
                                "location": base + "?" + urlencode(edit(dict(parse_qsl(query))))}
        return response

    return on_response(after)


def _grant(token: Match, kind: str) -> Match:
    return lambda request: token(request) and _form(request).get("grant_type") == kind


def _first_scope(at: Match) -> Wrap:
    def before(request: Request) -> Request:
        if at(request):
            request.query = [(k, v.split(" ")[0] if k == "scope" else v) for k, v in request.query]
        return request

    return on_request(before)


def _refused(request: Request, response: Response) -> Response:
    return Response.json_response(400, {"error": "invalid_grant"})


def _remembering(authorize: Match, token: Match, change: Callable[[Query, Query | None, dict[str, Response]],
                                                                  Response | None]) -> Wrap:
    """A wrapper that remembers, per code issued, the authorization request's query, and per
    code exchanged, the answer: ``change(form, query of the code, answers)`` edits the token
    request's form in place, or returns an answer to give instead."""

    def apply(sim: Simulator) -> Simulator:
        issued: dict[str, Query] = {}
        answers: dict[str, Response] = {}
        replay: dict[int, Response] = {}

        def before(request: Request) -> Request:
            if token(request):
                form = _form(request)
                instead = change(form, issued.get(form.get("code", "")), answers)
                if instead is not None:
                    replay[id(request)] = instead
                request.body = urlencode(form).encode("utf-8")
            return request

        def after(request: Request, response: Response) -> Response:
            if authorize(request):
                code = dict(parse_qsl(urlsplit(response.header("location") or "").query)).get("code")
                if code:
                    issued[code] = dict(request.query)
            if id(request) in replay:
                kept = replay.pop(id(request))
                return Response(kept.status, dict(kept.headers), kept.body)
            if token(request) and 200 <= response.status < 300:
                code = _form(request).get("code")
                if code:
                    answers.setdefault(code, Response(response.status, dict(response.headers), response.body))
            return response

        return FaultySimulator(sim, before=before, after=after)  # type: ignore[return-value]

    return apply


def _replayed(form: Query, query: Query | None, answers: dict[str, Response]) -> Response | None:
    return answers.get(form.get("code", ""))


def _redirect_uri_put_in(form: Query, query: Query | None, answers: dict[str, Response]) -> Response | None:
    if query and "redirect_uri" in query:
        form["redirect_uri"] = query["redirect_uri"]
    return None


def _fields_filled(form: Query, query: Query | None, answers: dict[str, Response]) -> Response | None:
    if form.get("code"):
        form.setdefault("grant_type", "authorization_code")
        for name in ("client_id", "redirect_uri"):
            if name not in form and query and name in query:
                form[name] = query[name]
    return None


def _endpoints(contract: Contract) -> tuple[Match, Match] | None:
    schemes: Mapping[str, Any] = contract.openapi.get("components", {}).get("securitySchemes") or {}
    flow = next((((s.get("flows") or {}).get("authorizationCode") or {}) for s in schemes.values()
                 if s.get("type") == "oauth2"), {})
    if "authorizationUrl" not in flow or "tokenUrl" not in flow:
        return None
    return operation("GET", str(flow["authorizationUrl"])), operation("POST", str(flow["tokenUrl"]))


def oauth_faults(contract: Contract) -> list[Fault]:
    endpoints = _endpoints(contract)
    if endpoints is None:
        return []
    authorize, token = endpoints
    faults: list[Fault] = []
    for rule in contract.rules:
        for name, description, wrap in _for(rule, authorize, token):
            faults.append(derived_fault(f"{name}:{rule.id.split('.', 1)[1]}", rule.id, description)(wrap))
    return faults


def _for(rule: Rule, authorize: Match, token: Match) -> list[tuple[str, str, Wrap]]:
    check, params = rule.params.get("check"), rule.params
    code_grant = _grant(token, "authorization_code")
    if check == "oauth-redirect-query":
        return [("code-dropped", "a granted authorization redirects back without the code",
                 _redirect_edit(authorize, lambda q: {k: v for k, v in q.items() if k != "code"}))]
    if check == "oauth-state-echoed":
        return [("state-replaced", "the redirect back carries a state of the server's own",
                 _redirect_edit(authorize, lambda q: {**q, "state": "conformance-other"} if "state" in q else q))]
    if check == "oauth-error-redirect":
        return [("error-description-dropped", "an error redirect has no error_description",
                 _redirect_edit(authorize, lambda q: {k: v for k, v in q.items() if k != "error_description"}))]
    if check == "oauth-code-exchange":
        out = [("scope-first-only", "only the first of the space-separated scopes is read", _first_scope(authorize))]
        if params.get("refresh_token"):
            out.append(("refresh-token-withheld", "a code exchange is answered without a refresh token",
                        response_body(code_grant, lambda b: {k: v for k, v in b.items() if k != "refresh_token"},
                                      _OK)))
        return out
    if check == "oauth-expires-in":
        return [("expires-in-doubled", "the token response states twice the lifetime",
                 response_body(token, lambda b: {**b, "expires_in": 2 * int(params["access_token_seconds"])}, _OK))]
    if check == "oauth-refresh-grant":
        return [("refresh-grant-refused", "every refresh_token grant is refused",
                 _answered(_grant(token, "refresh_token"), _refused))]
    if check == "oauth-token-refused":
        edits = {"code-again": ("code-replayed", "a code exchanged again is answered as the first time", _replayed),
                 "other-redirect-uri": ("redirect-uri-ignored", "the token request's redirect_uri is not compared",
                                        _redirect_uri_put_in),
                 "leave-out": ("fields-filled", "a token request's missing grant_type, client_id or redirect_uri "
                               "is filled in", _fields_filled)}
        if params["edit"] in edits:
            name, description, change = edits[params["edit"]]
            return [(name, description, _remembering(authorize, token, change))]
    return []


def _answered(match: Match, answer: Callable[[Request, Response], Response]) -> Wrap:
    def after(request: Request, response: Response) -> Response:
        return answer(request, response) if match(request) else response

    return on_response(after)

