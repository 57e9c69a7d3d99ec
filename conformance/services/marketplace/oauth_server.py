"""The OAuth 2.0 server of the marketplace simulator (volume 3, part B, Authentication).

Authorization code grant with PKCE (S256) and the refresh_token grant, on the simulator's
clock. There is no person to ask for consent, so an authorization request that is valid is
granted at once for one seeded user (the ``consenting_user``). Token values are derived from
counters through a fixed seed: two runs issue the same tokens in the same order.

Written from the document, not from schemas/marketplace: the numbers are this module's own
reading of the text. Choices the document leaves open are marked SIM-CHOICE.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from conformance.simulators.base import Clock, SimError
from conformance.transport.model import Request, Response

__all__ = [
    "ACCESS_TOKEN_SECONDS",
    "CODE_SECONDS",
    "REFRESH_TOKEN_SECONDS",
    "SCOPES",
    "Grant",
    "OAuthServer",
    "pkce_challenge",
]

ACCESS_TOKEN_SECONDS = 60 * 60  # "Access token lives 1 hour"
REFRESH_TOKEN_SECONDS = 90 * 24 * 60 * 60  # "the refresh token lives 90 days"
# SIM-CHOICE: the code lifetime is not documented; RFC 6749 section 4.1.2 recommends at most
# ten minutes.
CODE_SECONDS = 10 * 60
# SIM-CHOICE: the full scope list is not documented. The five example scopes, plus the read
# and delete scopes of listings (deleteListingImage needs listings_d here).
SCOPES = frozenset(
    {
        "shops_r",
        "shops_w",
        "listings_r",
        "listings_w",
        "listings_d",
        "transactions_r",
        "transactions_w",
        "profile_r",
        "email_r",
    }
)
# SIM-CHOICE: verifier and challenge formats are not documented; RFC 7636 is followed
# (43-128 unreserved characters; the S256 challenge is base64url without padding, 43 chars).
_VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")
_BEARER = re.compile(r"Bearer ([0-9]{1,20})\.(\S{1,512})")
# SIM-CHOICE: a form larger than this is refused before parsing (413).
MAX_FORM_BYTES = 64 * 1024
_FORM_TYPE = "application/x-www-form-urlencoded"
# Token values are hashes of counters under this seed: deterministic, yet not trivially
# guessable from each other.
_SEED = "marketplace-sim-v1"


def pkce_challenge(verifier: str) -> str:
    """S256: base64url (no padding) of the SHA-256 of the ASCII verifier."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class Grant:
    """What a token stands for: a user's consent to an application, with scopes, until expires."""

    user_id: int
    client_id: str
    scopes: frozenset[str]
    expires: float


@dataclass
class AuthCode:
    grant: Grant
    redirect_uri: str
    challenge: str
    used: bool = False


def parse_form(request: Request) -> dict[str, str]:
    """A urlencoded UTF-8 form (or a flat JSON object, below); anything else is a 400, never an exception."""
    media, _, params = (request.header("content-type") or "").partition(";")
    if media.strip().lower() == "application/json":
        return _json_members(request)
    if media.strip().lower() != _FORM_TYPE:
        raise SimError(400, f"the body must be {_FORM_TYPE} (or a JSON object)", error="invalid_request")
    charset = params.strip().lower()
    if charset and charset.replace(" ", "") not in ("charset=utf-8", "charset=utf8"):
        raise SimError(400, "form posts are UTF-8 (charset=utf-8)", error="invalid_request")
    if len(request.body) > MAX_FORM_BYTES:
        raise SimError(413, f"form body over {MAX_FORM_BYTES} bytes", error="invalid_request")
    try:
        pairs = parse_qsl(
            request.body.decode("utf-8"),
            keep_blank_values=True,
            errors="strict",
            max_num_fields=200,
        )
    except (UnicodeDecodeError, ValueError):
        raise SimError(
            400, "the body is not a UTF-8 urlencoded form", error="invalid_request"
        ) from None
    return single_values(pairs)


def _json_members(request: Request) -> dict[str, str]:
    """A flat JSON object read as the form it stands for.

    SIM-CHOICE: the document says form posts are urlencoded and does not say JSON is refused;
    the vendor's own client posts createDraftListing and the refresh request as JSON. Scalar
    members become the text a form would carry (true/false, numbers as written); a null member
    is left out, as a form leaves out an unset field; a nested member is refused."""
    if len(request.body) > MAX_FORM_BYTES:
        raise SimError(413, f"body over {MAX_FORM_BYTES} bytes", error="invalid_request")
    try:
        body = json.loads(request.body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise SimError(400, "the body is not valid JSON", error="invalid_request") from None
    if not isinstance(body, dict):
        raise SimError(400, "the body must be a JSON object", error="invalid_request")
    out: dict[str, str] = {}
    for name, value in body.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, (int, float, str)):
            out[name] = value if isinstance(value, str) else json.dumps(value)
        else:
            raise SimError(400, f"{name} must be a string, number or boolean", error="invalid_request")
    return out


def single_values(pairs: list[tuple[str, str]]) -> dict[str, str]:
    # SIM-CHOICE: a repeated member is refused (RFC 6749 section 3.1 forbids repeats in OAuth
    # requests; the simulator applies the same rule to every form and OAuth query).
    out: dict[str, str] = {}
    for name, value in pairs:
        if name in out:
            raise SimError(400, f"{name} is given more than once", error="invalid_request")
        out[name] = value
    return out


def _https_uri(uri: str) -> bool:
    # SIM-CHOICE: printable ASCII only. The URI comes back in a Location header, which travels
    # as latin-1 bytes; an IRI or a control character could not be sent back safely.
    if not (uri.isascii() and uri.isprintable()) or " " in uri:
        return False
    try:
        parts = urlsplit(uri)
    except ValueError:
        return False
    # RFC 6749 section 3.1.2: a redirection endpoint has no fragment.
    return parts.scheme == "https" and bool(parts.hostname) and not parts.fragment


def _redirect(uri: str, params: dict[str, str]) -> Response:
    parts = urlsplit(uri)
    query = parse_qsl(parts.query, keep_blank_values=True) + list(params.items())
    return Response(
        302,
        {
            "location": urlunsplit(parts._replace(query=urlencode(query))),
            "cache-control": "no-store",
        },
        b"",
    )


class OAuthServer:
    """Authorization codes, access tokens and refresh tokens of one simulated marketplace."""

    def __init__(self, clock: Clock, clients: dict[str, str], consenting_user: int) -> None:
        self.clock = clock
        self.clients = clients
        self.consenting_user = consenting_user
        self.codes: dict[str, AuthCode] = {}
        self.access: dict[str, Grant] = {}
        self.refresh: dict[str, Grant] = {}
        self._counter = 0

    def _value(self, kind: str) -> str:
        self._counter += 1
        return hashlib.sha256(f"{_SEED}:{kind}:{self._counter}".encode()).hexdigest()[:40]

    def seed_refresh_token(
        self, token: str, user_id: int, client_id: str, scopes: frozenset[str]
    ) -> None:
        """A pre-issued refresh token, valid for the documented 90 days from now."""
        self.refresh[token] = Grant(
            user_id, client_id, scopes, self.clock.now() + REFRESH_TOKEN_SECONDS
        )

    # -- step 1 and 2: GET {auth_url}/oauth/connect ----------------------------------------
    def connect(self, request: Request) -> Response:
        query = single_values(list(request.query))
        client_id = query.get("client_id", "")
        redirect_uri = query.get("redirect_uri", "")
        # RFC 6749 section 4.1.2.1: with an unknown client or a bad redirect_uri the server must
        # not redirect. SIM-CHOICE: it answers 400 with a JSON error instead.
        if not client_id:
            raise SimError(400, "client_id is required", error="invalid_request")
        if client_id not in self.clients:
            raise SimError(400, "client_id is not a known application key", error="invalid_client")
        if not _https_uri(redirect_uri):
            raise SimError(
                400, "redirect_uri must be an https URI without a fragment", error="invalid_request"
            )
        # SIM-CHOICE: any https redirect_uri is accepted; registration is not documented.
        state = query.get("state", "")

        def fail(error: str, description: str) -> Response:
            params = {"error": error, "error_description": description}
            if state:  # an empty state cannot be echoed; the failure is still reported
                params = {"state": state, **params}
            return _redirect(redirect_uri, params)

        response_type = query.get("response_type")
        if response_type is None:
            return fail("invalid_request", "response_type is required")
        if response_type != "code":
            return fail("unsupported_response_type", "response_type must be code")
        if not state:
            return fail("invalid_request", "state is required and must not be empty")
        scopes = [s for s in query.get("scope", "").split(" ") if s]
        if not scopes:
            return fail("invalid_scope", "scope is required (space-separated scopes)")
        unknown = sorted(set(scopes) - SCOPES)
        if unknown:
            return fail("invalid_scope", f"unknown scope: {' '.join(unknown)}")
        if query.get("code_challenge_method") != "S256":
            return fail("invalid_request", "code_challenge_method must be S256")
        challenge = query.get("code_challenge", "")
        if not _CHALLENGE.fullmatch(challenge):
            return fail(
                "invalid_request", "code_challenge must be the base64url SHA-256 of the verifier"
            )
        # No person to ask: the seeded user consents to every valid request.
        code = self._value("code")
        grant = Grant(
            self.consenting_user, client_id, frozenset(scopes), self.clock.now() + CODE_SECONDS
        )
        self.codes[code] = AuthCode(grant, redirect_uri, challenge)
        return _redirect(redirect_uri, {"state": state, "code": code})

    # -- step 3 and 4: POST {base_url}/v3/public/oauth/token -------------------------------
    def token(self, request: Request, app_key: str) -> Response:
        """Both grants; ``app_key`` is the keystring of the request's (checked) x-api-key."""
        form = parse_form(request)
        grant_type = form.get("grant_type", "")
        if not grant_type:
            raise SimError(400, "grant_type is required", error="invalid_request")
        if grant_type == "authorization_code":
            grant = self._exchange_code(form, app_key)
            refresh = self._value("refresh")
            self.refresh[f"{grant.user_id}.{refresh}"] = Grant(
                grant.user_id,
                grant.client_id,
                grant.scopes,
                self.clock.now() + REFRESH_TOKEN_SECONDS,
            )
            refresh_token = f"{grant.user_id}.{refresh}"
        elif grant_type == "refresh_token":
            grant, refresh_token = self._use_refresh(form, app_key)
        else:
            raise SimError(
                400,
                "grant_type must be authorization_code or refresh_token",
                error="unsupported_grant_type",
            )
        access = f"{grant.user_id}.{self._value('access')}"
        self.access[access] = Grant(
            grant.user_id, grant.client_id, grant.scopes, self.clock.now() + ACCESS_TOKEN_SECONDS
        )
        # SIM-CHOICE: the body is RFC 6749 section 5.1; access_token already carries the
        # '<user_id>.' prefix, so it is sent as 'Bearer <access_token>' unchanged.
        body = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": ACCESS_TOKEN_SECONDS,
            "refresh_token": refresh_token,
        }
        response = Response.json_response(200, body)
        response.headers["cache-control"] = "no-store"
        return response

    def _client(self, form: dict[str, str], app_key: str) -> str:
        client_id = form.get("client_id", "")
        if not client_id:
            raise SimError(400, "client_id is required", error="invalid_request")
        # SIM-CHOICE: the client_id must be the keystring the request's x-api-key carries; a
        # client that sends the whole x-api-key value (keystring:secret) there names the same app.
        client_id = self._keystring(client_id, app_key)
        if client_id not in self.clients or client_id != app_key:
            raise SimError(401, "client_id is not this application's key", error="invalid_client")
        return client_id

    def _keystring(self, client_id: str, app_key: str) -> str:
        keystring, sep, secret = client_id.partition(":")
        if sep and keystring == app_key and hmac.compare_digest(secret, self.clients.get(app_key, "")):
            return keystring
        return client_id

    def _exchange_code(self, form: dict[str, str], app_key: str) -> Grant:
        for name in ("client_id", "redirect_uri", "code", "code_verifier"):
            if not form.get(name):
                raise SimError(400, f"{name} is required", error="invalid_request")
        client_id = self._client(form, app_key)
        entry = self.codes.get(form["code"])
        if entry is None:
            raise SimError(400, "the code was not issued here", error="invalid_grant")
        if entry.used:
            # SIM-CHOICE: codes are single-use (RFC 6749 section 4.1.2); the document is silent.
            raise SimError(400, "the code was already used", error="invalid_grant")
        # SIM-CHOICE: one attempt per code, so a verifier cannot be guessed by retrying.
        entry.used = True
        if self.clock.now() >= entry.grant.expires:
            raise SimError(400, "the code has expired", error="invalid_grant")
        if entry.grant.client_id != client_id:
            raise SimError(400, "the code was issued to another client", error="invalid_grant")
        if form["redirect_uri"] != entry.redirect_uri:
            raise SimError(
                400, "redirect_uri differs from the authorization request's", error="invalid_grant"
            )
        verifier = form["code_verifier"]
        if not _VERIFIER.fullmatch(verifier) or not hmac.compare_digest(
            pkce_challenge(verifier), entry.challenge
        ):
            raise SimError(
                400, "code_verifier does not match code_challenge", error="invalid_grant"
            )
        return entry.grant

    def _use_refresh(self, form: dict[str, str], app_key: str) -> tuple[Grant, str]:
        # SIM-CHOICE: refresh parameters are not documented; RFC 6749 section 6 plus client_id.
        token = form.get("refresh_token", "")
        if not token:
            raise SimError(400, "refresh_token is required", error="invalid_request")
        client_id = self._client(form, app_key)
        grant = self.refresh.get(token)
        if grant is None or self.clock.now() >= grant.expires:
            raise SimError(400, "the refresh token is unknown or expired", error="invalid_grant")
        if grant.client_id != client_id:
            raise SimError(
                400, "the refresh token belongs to another client", error="invalid_grant"
            )
        # SIM-CHOICE: refresh tokens are not rotated: the same token keeps its 90-day life.
        return grant, token

    # -- scoped operations -----------------------------------------------------------------
    def authenticate(self, authorization: str | None, app_key: str) -> Grant:
        """The grant behind 'Authorization: Bearer <USER_ID>.<ACCESS_TOKEN>', or a 401."""
        if not authorization:
            raise SimError(
                401,
                "this operation needs Authorization: Bearer <user_id>.<token>",
                error="invalid_token",
            )
        match = _BEARER.fullmatch(authorization)
        if match is None:
            raise SimError(
                401, "Authorization must be Bearer <user_id>.<token>", error="invalid_token"
            )
        grant = self.access.get(f"{match.group(1)}.{match.group(2)}")
        if grant is None:
            raise SimError(401, "the access token was not issued here", error="invalid_token")
        if self.clock.now() >= grant.expires:
            raise SimError(401, "the access token has expired", error="invalid_token")
        if grant.client_id != app_key:
            raise SimError(
                401, "the access token belongs to another application", error="invalid_token"
            )
        return grant
