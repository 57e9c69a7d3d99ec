"""One OAuth 2.0 client for the harness: authorization code grant (with PKCE where the contract
says so), code exchange, refresh grant, and the token's place in the scheme's credential.

Everything about the server comes from the contract's ``oauth2`` security scheme:
``flows.authorizationCode.authorizationUrl``, ``tokenUrl``, ``refreshUrl`` and ``scopes`` (the
default scope is all of them, space-separated), ``x-pkce.code_challenge_method`` (PKCE is used
only when the scheme carries ``x-pkce``), ``x-credential`` and ``x-tokens`` (how an obtained token
is presented). What only the service knows is passed in: the client id, the redirect URI, the
form's content type, and the authorization host when ``authorizationUrl`` is on another host;
``client_for`` reads them from the contract too: the scheme's ``x-client`` names the settings that
hold them (``client_id``: a list, the first configured wins), the form's type and charset are the
document's ``x-body-encoding``.

Verifier and state are derived from a seed (the rule id) and a counter, never drawn at random:
replay matches requests on their query and body, so a replayed run must send the bytes the
recorded one sent. Every code, verifier, state and token the client sees is registered with
``ctx.secret`` so that reports and cassettes never hold it.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from conformance.auth.variants import DEFAULT, AuthAs, apply_auth, render
from conformance.contract.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange, Request

if TYPE_CHECKING:
    from conformance.checks.context import CheckContext

__all__ = ["MISSING", "FORM", "OAuthClient", "Pkce", "Redirect", "client_for", "read_redirect", "refresh_grant_source"]

MISSING: Any = object()  # as a value of a query or form member: leave the member out
FORM = "application/x-www-form-urlencoded"

Value = str | Callable[[], str]


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class Pkce:
    """A code verifier, its challenge and a state, derived from ``seed`` and ``n``."""

    verifier: str
    challenge: str
    state: str
    method: str = "S256"

    @classmethod
    def derive(cls, seed: str, n: int, method: str = "S256") -> Pkce:
        digest = hashlib.sha256(f"conformance:{seed}:{n}".encode()).digest()
        # 64 random-looking bytes -> 86 base64url characters: RFC 7636's 43..128 unreserved.
        verifier = _b64url(digest + hashlib.sha256(digest).digest())
        if method == "S256":
            challenge = _b64url(hashlib.sha256(verifier.encode("ascii")).digest())
        elif method == "plain":
            challenge = verifier
        else:
            raise ContractFileError(f"x-pkce.code_challenge_method {method!r} is not S256 or plain")
        return cls(verifier, challenge, hashlib.sha256(digest + b"state").hexdigest()[:32], method)


@dataclass
class Redirect:
    """A 3xx answer's Location, read (never followed): the redirect host is the client's."""

    exchange: Exchange
    base: str  # scheme://host/path of the Location, without query or fragment
    params: dict[str, str]

    @property
    def code(self) -> str | None:
        return self.params.get("code") or None


def read_redirect(exchange: Exchange) -> Redirect | None:
    location = exchange.response.header("location")
    if not (300 <= exchange.response.status < 400 and location):
        return None
    base = location.split("?", 1)[0].split("#", 1)[0]
    return Redirect(exchange, base, dict(parse_qsl(urlsplit(location).query, keep_blank_values=True)))


def _operation_at(ctx: CheckContext, url: str) -> str:
    """The contract operation served at ``url`` (server prefix + path), for its security."""
    for operation in ctx.contract.operations():
        if ctx.contract.prefix_for(operation) + operation.split(" ", 1)[1] == url:
            return operation
    raise ContractFileError(f"{ctx.contract.service}: no operation in openapi.yaml is served at {url}")


class OAuthClient:
    """The client side of one ``oauth2`` scheme of the contract, for one check (``ctx``)."""

    def __init__(self, ctx: CheckContext, *, client_id: Value, redirect_uri: Value | None = None,
                 form_type: str = FORM, authorization_host: str = "", scheme: str | None = None) -> None:
        self.ctx = ctx
        schemes: Mapping[str, Any] = ctx.contract.openapi.get("components", {}).get("securitySchemes", {})
        names = [n for n, s in schemes.items() if s.get("type") == "oauth2"] if scheme is None else [scheme]
        if not names or names[0] not in schemes:
            raise ContractFileError(f"{ctx.contract.service}: no oauth2 security scheme in openapi.yaml")
        self.scheme_name = names[0]
        self.scheme: Mapping[str, Any] = schemes[self.scheme_name]
        self.flow: Mapping[str, Any] = (self.scheme.get("flows") or {}).get("authorizationCode") or {}
        self._client_id = client_id
        self._redirect_uri = redirect_uri
        self.form_type = form_type
        self.authorization_host = authorization_host.rstrip("/")
        self._counter = 0

    # -- configuration ---------------------------------------------------------------------
    @staticmethod
    def _value(value: Value) -> str:
        return value() if callable(value) else value

    @property
    def client_id(self) -> str:
        return self._value(self._client_id)

    @property
    def redirect_uri(self) -> str:
        if self._redirect_uri is None:
            self.ctx.skip("the OAuth client has no redirect URI configured")
        return self._value(self._redirect_uri)

    @property
    def scopes(self) -> list[str]:
        return list(self.flow.get("scopes") or {})

    @property
    def pkce_method(self) -> str | None:
        pkce = self.scheme.get("x-pkce")
        return str(pkce.get("code_challenge_method", "S256")) if isinstance(pkce, Mapping) else None

    @property
    def token_url(self) -> str:
        return str(self.flow["tokenUrl"])

    @property
    def refresh_url(self) -> str:
        return str(self.flow.get("refreshUrl") or self.flow["tokenUrl"])

    @property
    def token_operation(self) -> str:
        return _operation_at(self.ctx, self.token_url)

    @property
    def authorization_operation(self) -> str:
        return _operation_at(self.ctx, str(self.flow["authorizationUrl"]))

    # -- step 1 and 2: the authorization request ----------------------------------------------
    def pkce(self) -> Pkce:
        """The next verifier and state of this check (seeded by the rule id, so replay matches)."""
        self._counter += 1
        pkce = Pkce.derive(self.ctx.rule.id, self._counter, self.pkce_method or "S256")
        self.ctx.secret(pkce.verifier)
        return pkce

    def authorization_query(self, pkce: Pkce, **changes: Any) -> dict[str, str]:
        """A valid authorization request's query; ``changes`` replace members (MISSING drops one)."""
        query: dict[str, Any] = {"response_type": "code", "client_id": self.client_id,
                                 "redirect_uri": self.redirect_uri, "scope": " ".join(self.scopes),
                                 "state": pkce.state}
        if self.pkce_method:
            query.update(code_challenge=pkce.challenge, code_challenge_method=pkce.method)
        query.update(changes)
        return {k: v for k, v in query.items() if v is not MISSING}

    def authorize(self, query: Mapping[str, str], *, api_credentials: bool = False) -> Exchange:
        """Send the authorization request (no redirect is followed). A browser carries no
        credentials; ``api_credentials`` adds the API's top-level security (every request's)."""
        path = self.authorization_host + str(self.flow["authorizationUrl"])
        request = Request.build("GET", path, params=dict(query))
        if api_credentials:
            request = apply_auth(self.ctx.contract, None, request, DEFAULT, self.ctx.credential, self.ctx.token)
        exchange = self.ctx.send(request, backoff=False)
        redirect = read_redirect(exchange)
        if redirect and redirect.code:
            self.ctx.secret(redirect.code)
        return exchange

    def expect_code(self, exchange: Exchange, query: Mapping[str, str], pkce: Pkce) -> Redirect:
        """The client's duties on the redirect back: to the redirect_uri sent, with the state sent
        (abort otherwise), carrying a code and no error."""
        rule_id = self.ctx.rule.id
        redirect = read_redirect(exchange)
        expect(redirect is not None, rule_id, "a valid authorization request did not redirect back",
               exchange=exchange, expected="3xx with a Location to redirect_uri")
        assert redirect is not None
        expect(redirect.base == query["redirect_uri"], rule_id,
               f"the redirect goes to {redirect.base!r}, not to the redirect_uri sent", exchange=exchange,
               expected=f"Location on {query['redirect_uri']}")
        expect(redirect.params.get("state") == pkce.state, rule_id,
               "the redirect's state differs from the state sent: the client must abort",
               exchange=exchange, expected=f"state={pkce.state}")
        expect(bool(redirect.code) and "error" not in redirect.params, rule_id,
               "a valid, consented authorization request issued no code", exchange=exchange,
               expected="code in the redirect's query")
        return redirect

    # -- step 3 and 4: the token endpoint --------------------------------------------------
    def token_request(self, form: Mapping[str, Any], url: str | None = None) -> Exchange:
        """A form post to the token endpoint (MISSING members left out), with the credentials
        the token operation's security asks for."""
        fields = {k: v for k, v in form.items() if v is not MISSING}
        request = Request.build("POST", url or self.token_url, content=urlencode(fields).encode("utf-8"),
                                headers={"content-type": self.form_type})
        return self.ctx.send(self.ctx.auth(request, self.token_operation))

    def exchange_code(self, code: str, pkce: Pkce, /, **changes: Any) -> Exchange:
        form: dict[str, Any] = {"grant_type": "authorization_code", "client_id": self.client_id,
                                "redirect_uri": self.redirect_uri, "code": code}
        if self.pkce_method:
            form["code_verifier"] = pkce.verifier
        form.update(changes)
        return self.token_request(form)

    def refresh(self, refresh_token: str, /, **changes: Any) -> Exchange:
        """RFC 6749 section 6, with client_id (a public client identifies itself)."""
        form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id, **changes}
        return self.token_request(form, self.refresh_url)

    def tokens(self, exchange: Exchange, why: str) -> dict[str, Any]:
        """The token response: a documented success valid under the token operation's schema."""
        rule_id, operation = self.ctx.rule.id, self.token_operation
        expect_status(rule_id, exchange, success_statuses(self.ctx.contract, operation), why)
        schema = self.ctx.contract.response_schema(operation, exchange.response.status)
        body = exchange.response.json()
        if schema is not None:
            body = expect_json_schema(rule_id, self.ctx.contract, exchange, schema, "token response")
        if not isinstance(body, dict):
            raise ContractFileError(f"{self.ctx.contract.service}: the token response schema admits a non-object")
        for name in ("access_token", "refresh_token", "id_token"):
            if isinstance(body.get(name), str):
                self.ctx.secret(body[name])
        return body

    def obtain(self, refresh_token: str) -> str:
        """A fresh access token from ``refresh_token``, as its scheme's credential takes it."""
        body = self.tokens(self.refresh(refresh_token), "refresh_token grant")
        return self.credential_part(str(body["access_token"]))

    # -- presenting a token ------------------------------------------------------------------
    def _token_name(self) -> str:
        tokens = self.scheme.get("x-tokens") or {}
        if not tokens:
            raise ContractFileError(f"securitySchemes.{self.scheme_name} has no x-tokens (which name is the token)")
        return str(next(iter(tokens)))

    def credential_part(self, access_token: str) -> str:
        """What of ``access_token`` goes into the scheme's ``x-credential`` template.

        Where the template puts more before the token than the scheme word (``Bearer
        {USER_ID}.{ACCESS_TOKEN}``) and the server's token already starts with that text, the
        text is not sent twice. When the names it needs are not configured, the token is kept."""
        template = str(self.scheme.get("x-credential") or "")
        head = template.split("{" + self._token_name() + "}", 1)[0]
        head = head.split(" ", 1)[1] if " " in head else head
        try:
            prefix = render(head, self._configured)
        except LookupError:
            return access_token
        return access_token[len(prefix):] if prefix and access_token.startswith(prefix) else access_token

    def _configured(self, name: str) -> str:
        value = self.ctx.optional(name)
        if value is None:
            raise LookupError(name)
        return value

    def presenting(self, access_token: str) -> AuthAs:
        """The default credentials, with this scheme carrying ``access_token`` (not the one the
        case obtained): for a token the check got itself."""
        literal = self.credential_part(access_token).replace("{", "{{").replace("}", "}}")
        template = str(self.scheme["x-credential"]).replace("{" + self._token_name() + "}", literal)
        return AuthAs(values={self.scheme_name: template})


def client_for(ctx: CheckContext, scheme: str | None = None) -> OAuthClient:
    """The client of the contract's ``oauth2`` scheme, configured from its ``x-client`` settings
    (module doc); a setting the client needs and the target lacks skips the rule when it is used."""
    schemes: Mapping[str, Any] = ctx.contract.openapi.get("components", {}).get("securitySchemes", {})
    named = scheme or next((n for n, s in schemes.items() if s.get("type") == "oauth2"), "")
    config: Mapping[str, Any] = (schemes.get(named) or {}).get("x-client") or {}
    ids = [str(n) for n in config.get("client_id") or []]
    if not ids or "redirect_uri" not in config:
        raise ContractFileError(f"{ctx.contract.service}: securitySchemes.{named} has no x-client "
                                "(client_id, redirect_uri): the settings the OAuth client is configured from")

    def client_id() -> str:
        return next((v for v in map(ctx.optional, ids) if v), None) or ctx.credential(ids[-1])

    encoding: Mapping[str, Any] = ctx.contract.openapi.get("x-body-encoding") or {}
    form_type = f"{encoding.get('form', FORM)}; charset={encoding['charset']}" if "charset" in encoding else FORM
    host = config.get("authorization_host")
    return OAuthClient(ctx, client_id=client_id, redirect_uri=lambda: ctx.credential(str(config["redirect_uri"])),
                       form_type=form_type, authorization_host=(ctx.optional(str(host)) if host else None) or "",
                       scheme=named or None)


def refresh_grant_source(ctx: CheckContext, name: str, source: str) -> str:
    """A service's ``token_source`` where its oauth2 scheme obtains ``name`` (``x-tokens``) from the
    configured refresh token ``source`` by the refresh grant (RFC 6749 section 6, with client_id)."""
    return client_for(ctx).obtain(ctx.credential(source))
