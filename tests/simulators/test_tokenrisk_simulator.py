"""The token-risk simulator on its own: every listed route served, data.csv as CSV, its own
choices (sessions, unknown names) consistent, hostile input answered with 4xx."""

from __future__ import annotations

import csv
import io
import json

import pytest

from conformance.services.tokenrisk.simulator import TokenRiskSimulator
from conformance.transport.model import Request

CREDS = TokenRiskSimulator.credentials
ROUTES = [
    ("GET", "/ping"), ("GET", "/maintenance"), ("GET", "/v1/maintenance"), ("GET", "/v1/leaderboard"),
    ("GET", "/v1/rpc/stats"), ("POST", "/v1/auth/login/{ledger}"), ("POST", "/v1/bulk/tokens/report"),
    ("POST", "/v1/bulk/tokens/summary"), ("POST", "/v1/tokens/verify"), ("POST", "/v1/tokens/verify/eligible"),
    ("POST", "/v1/tokens/verify/transaction"), ("GET", "/v1/tokens/{id}/insiders/graph"),
    ("GET", "/v1/tokens/{id}/report"), ("POST", "/v1/tokens/{id}/report"), ("GET", "/v1/tokens/{id}/report/summary"),
    ("GET", "/v1/domains"), ("GET", "/v1/domains/data.csv"), ("GET", "/v1/domains/lookup/{id}"),
    ("GET", "/v1/domains/records/{id}"), ("GET", "/v1/stats/new_tokens"), ("GET", "/v1/stats/recent"),
    ("GET", "/v1/stats/trending"), ("GET", "/v1/stats/verified"), ("GET", "/v1/tokens/{id}/lockers"),
    ("GET", "/v1/tokens/{id}/lockers/{provider}"), ("POST", "/v1/tokens/{id}/vote"), ("GET", "/v1/tokens/{id}/votes"),
]


def _path(template: str) -> str:
    return (template.replace("{ledger}", CREDS["LEDGER"]).replace("{provider}", CREDS["PROVIDER"])
            .replace("{id}", CREDS["TOKEN_ID"]))


def _post(sim: TokenRiskSimulator, path: str, body: object, **headers: str) -> tuple[int, object]:
    response = sim.handle(Request.build("POST", path, json_body=body, headers=headers))
    return response.status, response.json()


@pytest.mark.parametrize(("method", "template"), ROUTES)
def test_every_listed_route_is_served(method: str, template: str) -> None:
    status = TokenRiskSimulator().handle(Request.build(method, _path(template))).status
    assert status not in (404, 405, 501), f"{method} {template}: {status}"


def test_domains_csv_is_csv_with_even_records() -> None:
    response = TokenRiskSimulator().handle(Request.build("GET", "/v1/domains/data.csv"))
    assert response.status == 200 and response.header("content-type") == "text/csv"
    records = list(csv.reader(io.StringIO(response.body.decode())))
    assert len(records) > 1 and len({len(r) for r in records}) == 1  # a comma inside a name is quoted


def test_login_issues_a_session_the_simulator_then_accepts() -> None:
    sim = TokenRiskSimulator()
    status, body = _post(sim, f"/v1/auth/login/{CREDS['LEDGER']}",
                         {"wallet": "w1", "signature": "s1", "message": {"nonce": 1}})
    assert status == 200 and isinstance(body, dict)
    ok = sim.handle(Request.build("GET", "/v1/leaderboard", headers={"authorization": f"Bearer {body['token']}"}))
    wrong = sim.handle(Request.build("GET", "/v1/leaderboard", headers={"authorization": "Bearer never-issued"}))
    assert (ok.status, wrong.status) == (200, 401)


def test_unknown_segment_names_and_ids_are_not_found() -> None:
    sim = TokenRiskSimulator()
    assert _post(sim, "/v1/auth/login/elsewhere", {})[0] == 404
    assert sim.handle(Request.build("GET", _path("/v1/tokens/{id}/lockers/other"))).status == 404
    unknown = "TRsim" + "9" * 37
    assert sim.handle(Request.build("GET", f"/v1/tokens/{unknown}/report")).status == 404
    assert sim.handle(Request.build("GET", "/v1/tokens/not-an-address/report")).status == 400


def test_simulator_option_serves_another_ledger() -> None:
    sim = TokenRiskSimulator(ledger="ethereum", provider="other")
    body = {"wallet": "w", "signature": "s", "message": {}}
    assert _post(sim, "/v1/auth/login/ethereum", body)[0] == 200
    assert _post(sim, f"/v1/auth/login/{CREDS['LEDGER']}", body)[0] == 404


def test_votes_and_reports_change_state() -> None:
    sim = TokenRiskSimulator()
    token = CREDS["TOKEN_ID"]
    before = sim.handle(Request.build("GET", f"/v1/tokens/{token}/votes")).json()
    assert _post(sim, f"/v1/tokens/{token}/vote", {"up": True})[0] == 200
    after = sim.handle(Request.build("GET", f"/v1/tokens/{token}/votes")).json()
    assert after["up"] == before["up"] + 1
    assert _post(sim, f"/v1/tokens/{token}/report", {"reason": "scam"})[0] == 201
    assert _post(sim, "/v1/bulk/tokens/report", {"tokens": []})[0] == 400


@pytest.mark.parametrize("body", [b"{oops", b"[1]", b"\xff\xfe", b"[" * 5000 + b"]" * 5000, b'{"tokens": "x"}'])
def test_hostile_bodies_get_4xx(body: bytes) -> None:
    for path in ("/v1/bulk/tokens/summary", "/v1/tokens/verify", f"/v1/auth/login/{CREDS['LEDGER']}"):
        request = Request("POST", path, [], {"content-type": "application/json"}, body)
        assert 400 <= TokenRiskSimulator().handle(request).status < 500, (path, body[:10])


def test_error_bodies_are_json() -> None:
    response = TokenRiskSimulator().handle(Request.build("POST", "/v1/tokens/verify"))
    assert response.status == 400 and isinstance(json.loads(response.body), dict)


def test_variants_for_the_audit_findings_keep_their_promises() -> None:
    """not-found-when-empty answers 404 on the id routes only; csv-cp1252-ragged is cp1252 and ragged."""
    from conformance.services import variants_for

    by_name = {v.name: v for v in variants_for("tokenrisk")}  # not-found-when-empty: gap none-status allows it
    empty = by_name["not-found-when-empty"].apply(TokenRiskSimulator())
    assert empty.handle(Request.build("GET", _path("/v1/tokens/{id}/insiders/graph"))).status == 404
    assert empty.handle(Request.build("GET", _path("/v1/tokens/{id}/report"))).status == 200
    ragged = by_name["csv-cp1252-ragged"].apply(TokenRiskSimulator())
    response = ragged.handle(Request.build("GET", "/v1/domains/data.csv"))
    assert response.header("content-type") == "text/csv" and b"caf\xe9" in response.body
    widths = {len(r) for r in csv.reader(io.StringIO(response.body.decode("cp1252")))}
    assert len(widths) > 1
