"""The smart-contract platform simulator over a real socket.

(Same verdicts over HTTP as in process: tests/services/test_every_service.py.) Here: a target
that names no path for the five operations the document shows without one skips exactly their
rules, as credential-missing, and passes the rest; the request-id observation survives the wire;
the served simulator refuses malformed keys and answers ping without one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from conformance.contract import load_contract
from conformance.errors import SkipKind
from conformance.runner import PASSED, SKIPPED, collect_cases, run_case
from conformance.settings import RunSettings, env_name
from conformance.targets import make_target

SERVICE = "contracts"
PATH_SETTINGS = ("DEPLOY_TEMPLATE_PATH", "DEPLOY_PATH", "IMPORT_PATH", "LIST_PATH", "UPDATE_PATH")

pytestmark = pytest.mark.slow


def test_without_path_settings_only_their_rules_skip(served: Callable[..., Any],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with served(SERVICE) as (url, sim):
        monkeypatch.setenv(env_name(SERVICE, "BASE_URL"), url)
        for name, value in sim.credentials.items():
            if name in PATH_SETTINGS:
                monkeypatch.delenv(env_name(SERVICE, name), raising=False)
            else:
                monkeypatch.setenv(env_name(SERVICE, name), value)
        contract = load_contract(SERVICE)
        target = make_target(contract, RunSettings(target="http"))
        outcomes = {c.id: run_case(c, target) for c in collect_cases(contract)}
    needs_path = {r.id for r in contract.rules if set(r.requires) & set(PATH_SETTINGS)}
    assert len(needs_path) == 2 * len(PATH_SETTINGS)
    for rule_id, outcome in outcomes.items():
        if rule_id in needs_path:
            assert outcome.status == SKIPPED and outcome.skip_kind == SkipKind.CREDENTIAL_MISSING, rule_id
        else:
            assert outcome.status == PASSED, (rule_id, outcome.message)
    assert outcomes["contracts.request-id.accepted"].observations == {"contracts.gap.request-id-echo": "not echoed"}


def test_served_simulator_refuses_malformed_keys(served: Callable[..., Any]) -> None:
    with served(SERVICE) as (url, sim):
        creds = sim.credentials
        good = f"{creds['KEY_PREFIX']}:{creds['KEY_ID']}:{creds['KEY_SECRET']}"
        body = {"bytecode": "0x6080", "walletId": creds["WALLET_ID"]}
        with httpx.Client(base_url=url, timeout=30) as client:
            ping = client.get("/ping", headers={"X-Request-Id": "trace-1"})
            ok = client.post("/v1/w3s/contracts/deploy/estimateFee", json=body,
                             headers={"Authorization": f"Bearer {good}"})
            refused = [client.post("/v1/w3s/contracts/deploy/estimateFee", json=body,
                                   headers={"Authorization": f"Bearer {key}"})
                       for key in (good.rsplit(":", 1)[0], good + ":x", good.replace(":", "::", 1))]
    assert ping.status_code == 200 and isinstance(ping.json()["message"], str)
    assert ok.status_code == 200 and set(ok.json()["data"]) == {"high", "low", "medium"}
    assert [r.status_code for r in refused] == [401, 401, 401]
