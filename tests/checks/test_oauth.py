"""The core OAuth 2.0 checks (``checks/oauth.py``) against a tiny in-test authorization server:
each passes a conforming server (also one that refuses a bad token request with 401 instead of
RFC 6749's 400, or states no expires_in: choices the documents leave open), fails a server that
deviates in the one point its rule states, and none reports a refusal without its control
(a server refusing every token request fails)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest

from conformance.checks import oauth
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.targets.base import Capabilities
from conformance.transport.model import Request, Response
from tests.checks.server import context

REDIRECT = "https://client.invalid/cb"
HOUR, DAYS_90 = 3600, 90 * 86400
_QUERY = {"type": "object", "additionalProperties": {"type": "string"}}
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "components": {
        "securitySchemes": {"oauth2": {
            "type": "oauth2", "x-credential": "Bearer {ACCESS_TOKEN}", "x-tokens": {"ACCESS_TOKEN": "REFRESH_TOKEN"},
            "x-pkce": {"code_challenge_method": "S256"},
            "x-client": {"client_id": ["CLIENT_ID", "API_KEY"], "redirect_uri": "REDIRECT_URI"},
            "flows": {"authorizationCode": {"authorizationUrl": "/oauth/connect", "tokenUrl": "/oauth/token",
                                            "scopes": {"read": "read things", "write": "write things"}}}}},
        "schemas": {
            "Granted": {**_QUERY, "required": ["code", "state"]},
            "Failed": {**_QUERY, "required": ["error", "state"], "properties": {
                "error": {"enum": ["invalid_request", "invalid_scope", "access_denied"]}}},
            "TokenRequest": {"type": "object", "properties": {
                "grant_type": {"type": "string", "enum": ["authorization_code", "refresh_token"]}}},
            "TokenResponse": {"type": "object", "required": ["access_token"],
                              "properties": {"access_token": {"type": "string"}, "expires_in": {"type": "integer"}}},
        }},
    "paths": {
        "/oauth/connect": {"get": {"security": [], "responses": {"3XX": {
            "description": "back to the client",
            "x-redirect-query": {"success": {"$ref": "#/components/schemas/Granted"},
                                 "failure": {"$ref": "#/components/schemas/Failed"}}}}}},
        "/oauth/token": {"post": {
            "security": [],
            "requestBody": {"content": {"application/x-www-form-urlencoded": {
                "schema": {"$ref": "#/components/schemas/TokenRequest"}}}},
            "responses": {"200": {"description": "tokens", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/TokenResponse"}}}}}}},
        "/things": {"get": {"security": [{"oauth2": ["write"]}], "responses": {"200": {"description": "things"}}}},
    },
}
SETTINGS = {"API_KEY": "app-1", "REDIRECT_URI": REDIRECT, "REFRESH_TOKEN": "rt-1", "UNSPENT_TOKEN": "rt-2"}


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


class Server:
    """A conforming authorization server, resource at /things (scope ``write``); ``breaks`` names
    one deviation, ``choice`` one conforming alternative."""

    def __init__(self, breaks: str = "", choice: str = "") -> None:
        self.breaks, self.choice, self.now, self.serial = breaks, choice, 0.0, 0
        self.codes: dict[str, dict[str, str]] = {}
        self.refresh: dict[str, float] = {"rt-1": 0.0, "rt-2": 0.0}  # issued at
        self.access: dict[str, tuple[float, str]] = {}  # token -> (issued at, scope)

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def handle(self, request: Request) -> Response:
        if request.path == "/oauth/connect":
            return self.connect(dict(request.query))
        if request.path == "/oauth/token":
            return self.token(dict(parse_qsl(request.body.decode("utf-8"))))
        token = (request.header("authorization") or "").removeprefix("Bearer ")
        issued, scope = self.access.get(token, (None, ""))
        alive = issued is not None and (self.breaks == "token-never-expires" or self.now - issued < HOUR)
        return Response.json_response(200, {}) if alive and "write" in scope.split() else \
            Response.json_response(401, {"error": "invalid_token"})

    def connect(self, q: dict[str, str]) -> Response:
        scopes = q.get("scope", "").split()
        if q.get("redirect_uri") != REDIRECT or q.get("client_id") != "app-1":
            return Response.json_response(400, {"error": "invalid_request"})
        state = {} if self.breaks == "state-dropped-on-error" else {"state": q.get("state", "")}
        if self.breaks == "error-as-400" and not set(scopes) <= {"read", "write"}:
            return Response.json_response(400, {"error": "invalid_scope"})
        if not scopes or not set(scopes) <= {"read", "write"}:
            description = "" if self.breaks == "no-description" else "unknown scope"
            error = "not_an_rfc_code" if self.breaks == "error-unlisted" else "invalid_scope"
            answer = {"error": error, "error_description": description, **state}
        else:
            self.serial += 1
            code = f"c-{self.serial}"
            granted = scopes[:1] if self.breaks == "first-scope-only" else scopes
            self.codes[code] = {**q, "scope": " ".join(granted)}
            answer = {"state": q.get("state", "")} if self.breaks == "no-code" else {"code": code, "state": q["state"]}
        return Response(302, {"location": f"{REDIRECT}?{urlencode(answer)}"}, b"")

    def _refused(self) -> Response:
        return Response.json_response(401 if self.choice == "refuse-401" else 400, {"error": "invalid_grant"})

    def _issue(self, scope: str, with_refresh: bool) -> Response:
        self.serial += 1
        access = f"at-{self.serial}"
        self.access[access] = (self.now, scope)
        body: dict[str, Any] = {"access_token": access, "token_type": "Bearer"}
        if self.choice != "no-expires-in":
            body["expires_in"] = 2 * HOUR if self.breaks == "expires-in-two-hours" else HOUR
        if with_refresh and self.breaks != "no-refresh-token":
            self.refresh[f"rt-{self.serial}"] = self.now
            body["refresh_token"] = f"rt-{self.serial}"
        return Response.json_response(200, body)

    def token(self, form: dict[str, str]) -> Response:
        if self.breaks == "refuses-everything":
            return self._refused()
        if form.get("grant_type") == "refresh_token" or (self.breaks == "grant-type-lenient"
                                                          and "refresh_token" in form):
            issued = self.refresh.get(form.get("refresh_token", ""))
            alive = issued is not None and (self.breaks == "refresh-never-expires" or self.now - issued < DAYS_90)
            if self.breaks == "refresh-broken" or not alive:
                return self._refused()
            return self._issue("read write", with_refresh=False)
        lenient = {"grant-type-lenient": "grant_type", "client-id-optional": "client_id",
                   "redirect-uri-unchecked": "redirect_uri", "verifier-unchecked": "code_verifier"}
        asked = self.codes.get(form.get("code", ""))
        if self.breaks != "code-reusable":
            self.codes.pop(form.get("code", ""), None)
        checks = {"grant_type": form.get("grant_type") == "authorization_code",
                  "client_id": form.get("client_id") == "app-1",
                  "redirect_uri": asked is not None and form.get("redirect_uri") == asked["redirect_uri"],
                  "code_verifier": asked is not None
                  and _challenge(form.get("code_verifier", "")) == asked["code_challenge"]}
        if asked is None or not all(ok or lenient.get(self.breaks) == name for name, ok in checks.items()):
            return self._refused()
        return self._issue(asked["scope"], with_refresh=True)


def _rule(check: str, operation: str, *, where: str | None = None, **params: Any) -> Rule:
    return Rule(id="demo.oauth.rule", kind="error", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, where=where, params={"check": check, **params})


USE_ON = {"operation": "GET /things"}
WAITS: dict[str, Any] = {"margin_seconds": 60, "max_real_wait_seconds": 120}
RULES: dict[str, Rule] = {
    "redirect-query": _rule("oauth-redirect-query", "GET /oauth/connect"),
    "state-echoed": _rule("oauth-state-echoed", "GET /oauth/connect", trigger={"scope": "no_such_scope"}),
    "error-redirect": _rule("oauth-error-redirect", "GET /oauth/connect", trigger={"scope": "no_such_scope"}),
    "code-exchange": _rule("oauth-code-exchange", "POST /oauth/token", refresh_token=True, use_on=USE_ON),
    "leave-out": _rule("oauth-token-refused", "POST /oauth/token", edit="leave-out",
                       fields=["grant_type", "client_id", "redirect_uri", "code", "code_verifier"]),
    "off-list": _rule("oauth-token-refused", "POST /oauth/token", where="body.grant_type", edit="off-list",
                      outside=["zz-not-listed"]),
    "other-redirect-uri": _rule("oauth-token-refused", "POST /oauth/token", edit="other-redirect-uri"),
    "other-verifier": _rule("oauth-token-refused", "POST /oauth/token", edit="other-verifier"),
    "code-again": _rule("oauth-token-refused", "POST /oauth/token", edit="code-again"),
    "refresh-grant": _rule("oauth-refresh-grant", "POST /oauth/token", use_on=USE_ON),
    "expires-in": _rule("oauth-expires-in", "POST /oauth/token", access_token_seconds=HOUR),
    "access-lifetime": _rule("oauth-access-token-lifetime", "GET /things", access_token_seconds=HOUR, **WAITS),
    "refresh-lifetime": _rule("oauth-refresh-token-lifetime", "POST /oauth/token", refresh_token_seconds=DAYS_90,
                              unspent="UNSPENT_TOKEN", **WAITS),
}
CHECKS: dict[str, Callable[..., None]] = {
    "oauth-redirect-query": oauth.redirect_query, "oauth-state-echoed": oauth.state_echoed,
    "oauth-error-redirect": oauth.error_redirect, "oauth-code-exchange": oauth.code_exchange,
    "oauth-token-refused": oauth.token_refused, "oauth-refresh-grant": oauth.refresh_grant,
    "oauth-expires-in": oauth.expires_in, "oauth-access-token-lifetime": oauth.access_token_lifetime,
    "oauth-refresh-token-lifetime": oauth.refresh_token_lifetime,
}
# The deviation each rule states, and the failure it reads as.
DEVIATIONS = {
    "redirect-query": [("no-code", "issued no code")],
    "state-echoed": [("state-dropped-on-error", "does not carry the state")],
    "error-redirect": [("no-description", "no readable text"), ("error-unlisted", "redirect query"),
                       ("error-as-400", "did not redirect back")],
    "code-exchange": [("no-refresh-token", "no refresh token"), ("first-scope-only", "every scope granted")],
    "leave-out": [("client-id-optional", "without client_id")],
    "off-list": [("grant-type-lenient", "outside the list")],
    "other-redirect-uri": [("redirect-uri-unchecked", "redirect_uri other than")],
    "other-verifier": [("verifier-unchecked", "code_verifier of another")],
    "code-again": [("code-reusable", "a second time")],
    "refresh-grant": [("refresh-broken", "refresh_token grant")],
    "expires-in": [("expires-in-two-hours", "expires_in is 7200")],
    "access-lifetime": [("token-never-expires", "after its lifetime ended")],
    "refresh-lifetime": [("refresh-never-expires", "past 7776000 s")],
}


def run(server: Server, rule: Rule) -> None:
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {})
    ctx = context(contract, rule, server.handle, SETTINGS)
    ctx.session.sleep = server.sleep  # the checks wait on the server's clock
    ctx.target.capabilities = Capabilities(steerable=True)  # a fresh server: its refresh tokens were issued now
    CHECKS[rule.params["check"]](ctx)


@pytest.mark.parametrize("choice", ["", "refuse-401"])
@pytest.mark.parametrize("name", [n for n in RULES if n != "expires-in"])
def test_a_conforming_server_passes(name: str, choice: str) -> None:
    run(Server(choice=choice), RULES[name])


@pytest.mark.parametrize(("name", "breaks", "reads"), [(n, b, r) for n, cases in DEVIATIONS.items() for b, r in cases])
def test_a_server_deviating_in_its_rules_point_fails(name: str, breaks: str, reads: str) -> None:
    with pytest.raises(ContractFailure, match=reads):
        run(Server(breaks=breaks), RULES[name])


@pytest.mark.parametrize("name", ["leave-out", "off-list", "other-redirect-uri", "other-verifier", "code-again"])
def test_a_refusal_needs_its_control_a_server_refusing_every_token_request_fails(name: str) -> None:
    with pytest.raises(ContractFailure, match="exchange of a fresh code"):
        run(Server(breaks="refuses-everything"), RULES[name])


def test_expires_in_is_checked_where_stated_and_skipped_where_not() -> None:
    run(Server(), RULES["expires-in"])
    with pytest.raises(RuleSkipped, match="states no expires_in"):
        run(Server(choice="no-expires-in"), RULES["expires-in"])


def test_the_refresh_lifetime_is_not_checked_where_the_refresh_tokens_age_is_unknown() -> None:
    rule = RULES["refresh-lifetime"]
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {})
    server = Server()
    ctx = context(contract, rule, server.handle, SETTINGS)
    with pytest.raises(RuleSkipped, match="configured refresh token was issued"):
        oauth.refresh_token_lifetime(ctx)

