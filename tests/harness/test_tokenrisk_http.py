"""The token-risk suite over real HTTP: segment values the document does not name.

A served simulator configured with another ledger name than the catalogue's default: without
the setting, the login rule is skipped as not exercised (a 404 with a default value may only
mean the target does not know that value), never failed; with the setting, it passes; and with
the setting and the route really missing, it is a stale-setting skip (never a pass).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance.contract import load_contract
from conformance.errors import SkipKind
from conformance.runner import PASSED, SKIPPED, Outcome, collect_cases, run_case
from conformance.services import faults_for
from conformance.services.tokenrisk.simulator import TokenRiskSimulator
from conformance.settings import RunSettings, env_name
from conformance.simulators.base import Clock, Simulator
from conformance.targets import make_target
from tests.conftest import serve

SERVICE = "tokenrisk"
LOGIN = "tokenrisk.auth.login"


def _login_outcome(sim: Simulator, monkeypatch: pytest.MonkeyPatch, **settings: str) -> Outcome:
    contract = load_contract(SERVICE)
    case = next(c for c in collect_cases(contract) if c.id == LOGIN)
    with serve(sim) as url:
        monkeypatch.setenv(env_name(SERVICE, "BASE_URL"), url)
        for name in TokenRiskSimulator.credentials:
            monkeypatch.delenv(env_name(SERVICE, name), raising=False)
        for name, value in settings.items():
            monkeypatch.setenv(env_name(SERVICE, name), value)
        target = make_target(contract, RunSettings(target="http"), wait=lambda seconds: None)
        return run_case(case, target)


def test_defaulted_ledger_unknown_to_the_target_is_not_exercised(monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = _login_outcome(TokenRiskSimulator(Clock(), ledger="ethereum"), monkeypatch)
    assert outcome.status == SKIPPED and outcome.skip_kind == SkipKind.NOT_EXERCISED, outcome.message
    assert env_name(SERVICE, "LEDGER") in outcome.message


def test_configured_ledger_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = _login_outcome(TokenRiskSimulator(Clock(), ledger="ethereum"), monkeypatch, LEDGER="ethereum")
    assert outcome.status == PASSED, outcome.message


def test_configured_ledger_on_a_missing_route_is_never_a_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    # A 404 with a configured value reads two ways (the value is wrong, or the route is gone):
    # the rule is skipped as a stale setting naming the variable and both readings, which makes
    # the run incomplete; the in-process kill matrix, with the default value, fails the rule.
    missing: Callable[[Simulator], Simulator] = next(f.apply for f in faults_for(SERVICE)
                                                      if f.breaks == LOGIN and f.name.startswith("route-missing:"))
    outcome = _login_outcome(missing(TokenRiskSimulator(Clock())), monkeypatch, LEDGER="solana")
    assert outcome.status == SKIPPED and outcome.skip_kind == SkipKind.STALE_SETTING, outcome.message
    assert "CONFORMANCE_TOKENRISK_LEDGER='solana'" in outcome.message
    assert "does not serve the route" in outcome.message
