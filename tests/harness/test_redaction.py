"""Scrubbing by name and by value, in cassettes, summaries and report renderings."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

from conformance.reporting.redact import curl_line, render_request
from conformance.transport.model import Exchange, Request, Response
from conformance.transport.scrub import REDACTED, scrub_headers, scrub_json_text, scrub_text

LIVE = "live-secret-3c9e1f"


def test_long_request_body_is_scrubbed_before_it_is_cut() -> None:
    request = Request.build("POST", "/x", json_body={"refresh_token": LIVE, "note": "x" * 400})
    assert LIVE not in request.summary()


def test_issued_tokens_in_a_response_summary_are_masked() -> None:
    response = Response.json_response(200, {"access_token": LIVE, "refresh_token": LIVE, "expires_in": 5})
    assert LIVE not in response.summary() and "expires_in" in response.summary()


def test_secret_named_query_values_are_masked_in_summaries() -> None:
    assert LIVE not in Request.build("GET", "/x", params={"key": LIVE}).summary()


def test_code_inside_a_redirect_location_is_masked() -> None:
    headers = scrub_headers({"location": f"https://app.example/cb?code={LIVE}&state=s"}, [])
    assert LIVE not in headers["location"] and "state=s" in headers["location"]


def test_known_values_are_masked_anywhere() -> None:
    assert scrub_text(f"echo {LIVE} back", [LIVE]) == f"echo {REDACTED} back"
    body = json.dumps({"message": f"key {LIVE} is invalid"})
    assert LIVE not in scrub_json_text(body, [LIVE])


def test_form_bodies_are_scrubbed_by_field_name() -> None:
    assert LIVE not in scrub_json_text(f"grant_type=refresh_token&refresh_token={LIVE}", [])


def test_report_renderings_hold_no_credential() -> None:
    request = Request.build("POST", "/v1.0/generations", headers={"X-API-KEY": LIVE},
                            params={"key": LIVE}, json_body={"inputText": "hi"})
    exchange = Exchange(request, Response(401), "http://127.0.0.1:1")
    for text in (render_request(exchange, []), curl_line(exchange, [])):
        assert LIVE not in text and REDACTED in text


@pytest.mark.parametrize("encode", [
    lambda s: s, lambda s: quote(s, safe=""), quote_plus, lambda s: json.dumps(s)[1:-1],
    lambda s: base64.b64encode(s.encode()).decode(),
    lambda s: base64.urlsafe_b64encode(s.encode()).decode().rstrip("="),
], ids=["raw", "percent", "plus", "json-escaped", "base64", "base64url"])
def test_every_form_of_a_secret_is_masked(encode: Any) -> None:
    secret = "k3y with/odd+chars=\t\u00fc"
    assert encode(secret) not in scrub_json_text(f"prefix {encode(secret)} suffix", [secret])
    assert encode(secret) not in scrub_text(f"<p>{encode(secret)}</p>", [secret])


@pytest.mark.parametrize("body", [
    '\ufeff{"access_token": "tok-123456", "expires_in": 3600}',
    '{"access_token": "tok-123456"} trailing bytes',
    '{"accessToken": "tok-123456", "refreshToken": "ref-123456"}',
    "<html><p>access_token=tok-123456&amp;refresh_token=ref-123456</p></html>",
    "access_token: tok-123456",
])
def test_issued_tokens_are_masked_in_bodies_that_are_not_strict_json(body: str) -> None:
    out = scrub_json_text(body, [])
    assert "tok-123456" not in out and "ref-123456" not in out


def test_an_authorization_scheme_stays_readable_its_credentials_do_not() -> None:
    from conformance.transport.scrub import scrub_headers

    out = scrub_headers({"Authorization": "Bearer s3cr3t-token", "proxy-authorization": "Basic dXNlcjpwYXNz",
                         "x-api-key": "Bearer-looking key", "authorization-hint": "x"}, ["s3cr3t-token"])
    assert out["Authorization"] == "Bearer REDACTED"
    assert out["proxy-authorization"] == "Basic REDACTED"
    assert out["x-api-key"] == "REDACTED"  # not an authorization header: the whole value goes
    assert "s3cr3t" not in str(out) and "dXNlcjpwYXNz" not in str(out)
    assert scrub_headers({"authorization": "s3cr3t-token"}, [])["authorization"] == "REDACTED"


# -- credentials the target issues (issue 22, point 3) ------------------------------------------
TOKEN = "tok-9f3a7c21e5"


@pytest.mark.parametrize("body", [
    json.dumps({"access_token": TOKEN, "issued": TOKEN}).encode(),
    b"\xef\xbb\xbf" + json.dumps({"access_token": TOKEN}).encode(),
    json.dumps([{"access_token": TOKEN}]).encode(),
    json.dumps({"access_token": TOKEN}).encode() + b" and then some",
    json.dumps({"data": {"sessionToken": TOKEN}}).encode(),
    f"access_token={TOKEN}&token_type=bearer".encode(),
    f"access_token: {TOKEN}\n{{".encode(),
], ids=["member", "bom", "list", "trailing", "nested-camel", "form", "unparsable"])
def test_a_token_endpoint_answer_is_learned_by_value_whatever_its_shape(body: bytes) -> None:
    """Every later copy (a header, another member, a report line) is then scrubbed by value."""
    import httpx

    from conformance.transport.session import Session

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"x-issued": TOKEN}, content=body)

    client = httpx.Client(base_url="http://t.invalid", transport=httpx.MockTransport(answer))
    session = Session(client, base_url="http://t.invalid", sleep=lambda s: None, issuers=frozenset({"/oauth/token"}))
    session.send(Request.build("POST", "/oauth/token", form={"grant_type": "refresh_token"}))
    assert TOKEN in session.secrets
    assert TOKEN not in scrub_headers({"x-issued": TOKEN}, session.secrets)["x-issued"]
    assert TOKEN not in scrub_text(f"copy {base64.b64encode(TOKEN.encode()).decode()}", session.secrets)


def test_descriptive_token_members_are_not_learned() -> None:
    from conformance.transport.issued import issued_values

    body = json.dumps({"access_token": TOKEN, "token_type": "Bearer", "expires_in": 3600, "scope": "a b"})
    assert issued_values({}, body.encode()) == [TOKEN]


def test_a_cassette_is_scrubbed_again_by_value_when_saved(tmp_path: Any) -> None:
    """A token learned after its exchange was recorded (the answer that issued it) leaves no copy."""
    from conformance.recording.cassettes import CassetteFormat

    secrets: list[str] = []
    fmt = CassetteFormat(tmp_path / "c.yaml", secrets)
    secrets.append(TOKEN)  # learned after recording, before saving
    data = {"interactions": [{"response": {"headers": {"x-issued": [TOKEN]}, "body": {"string": TOKEN.encode()}}}]}
    assert TOKEN not in fmt.serialize(data)


# -- combined credentials (issue 22, point 4) ---------------------------------------------------
@pytest.mark.parametrize("service, joined", [
    ("contracts", "Bearer TEST_API_KEY:{KEY_ID}:{KEY_SECRET}"),
    ("contracts", "TEST_API_KEY:{KEY_ID}:{KEY_SECRET}"),
    ("contracts", "TEST_API_KEY:{KEY_ID}"),  # a rule's malformed key (the secret left out)
    ("marketplace", "{API_KEY}:{SHARED_SECRET}"),
    ("marketplace", "{API_KEY}:not-the-secret"),
    ("outreach", "Bearer {API_KEY}"),
    ("presentations", "Bearer {API_KEY}"),  # a rule presents the key as a bearer
    ("scanning", "{FREE_API_KEY}"),
    ("tokenrisk", "sim-session-5d1c9e0b7a"),  # AUTH_VALUE without its scheme word
])
def test_every_joined_credential_is_scrubbed_in_every_encoding(service: str, joined: str) -> None:
    from conformance.auth.forms import CredentialForms
    from conformance.contract import load_contract
    from conformance.services import load_service

    seeded = load_service(service).credentials()
    value = joined.format(**seeded)
    secrets = CredentialForms(load_contract(service), seeded.get).configured()
    raw = value.encode()
    for form in (value, base64.b64encode(raw).decode(), base64.b64encode(raw).decode().rstrip("="),
                 base64.urlsafe_b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode().rstrip("="),
                 quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1]):
        assert form not in scrub_text(f"<{form}>", secrets), form


def test_an_obtained_token_is_scrubbed_in_the_bearer_it_travels_in() -> None:
    from conformance.auth.forms import CredentialForms
    from conformance.contract import load_contract
    from conformance.services import load_service

    seeded = load_service("marketplace").credentials()
    forms = CredentialForms(load_contract("marketplace"), seeded.get)
    assert forms.issuers == frozenset({"/v3/public/oauth/token"})
    bearer = base64.b64encode(f"Bearer {seeded['USER_ID']}.{TOKEN}".encode()).decode()
    assert bearer not in scrub_text(bearer, forms.obtained(TOKEN))


def test_the_curl_line_reads_each_credential_from_the_variable_that_holds_it() -> None:
    """Headers and query parameters carrying a configured credential name its variable (the shell
    expands it); a secret no variable holds (a token the run obtained) stays REDACTED."""
    import shlex

    key, secret, issued = "k-live-123456", "s3cr3t-value", "issued-token-999"
    env = {key: "CONFORMANCE_X_API_KEY", secret: "CONFORMANCE_X_SHARED_SECRET"}
    request = Request("GET", "/v1/items", query=[("key", key), ("q", "it's")],
                      headers={"X-API-KEY": f"{key}:{secret}", "Authorization": f"Bearer {issued}"})
    line = curl_line(Exchange(request, Response(200), "http://h"), [key, secret, issued], env=env)
    assert key not in line and secret not in line and issued not in line
    assert '-H "x-api-key: ${CONFORMANCE_X_API_KEY}:${CONFORMANCE_X_SHARED_SECRET}"' in line, line
    assert "-H 'authorization: Bearer REDACTED'" in line, line
    words = shlex.split(line.replace("${CONFORMANCE_X_API_KEY}", key))
    assert f"http://h/v1/items?key={key}&q=it%27s" in words
