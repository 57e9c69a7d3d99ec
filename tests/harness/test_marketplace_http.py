"""The marketplace suite over a real socket gives the verdicts it gives in process.

The simulator is served on 127.0.0.1 in a thread and the suite runs with ``target="http"``, the
way it would run against a sandbox: tokens from the pre-issued REFRESH_TOKEN, the PKCE flow
through the served /oauth/connect (the simulator consents automatically), redirects read and
never followed. Only rules whose skip reason is about the target may differ. The recorded run
must hold no credential (seeded or issued) and replay with the same verdicts.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.contract import load_contract
from conformance.errors import SkipKind
from conformance.runner import PASSED, SKIPPED, collect_cases, run_case
from conformance.services import target_for
from conformance.settings import ALLOWANCES, Limits, RunSettings, env_name
from conformance.targets import make_target

SERVICE = "marketplace"
# Our own served simulator: spending and writing are allowed (a vendor's live target needs --allow).
ALLOW_ALL = frozenset(ALLOWANCES)
UNBUDGETED = Limits(spend_budget=1_000_000)
# Waiting an hour (or 90 days) of real time is not done over HTTP; the simulator's clock does it.
TARGET_DEPENDENT = {"marketplace.oauth.access-token-lifetime", "marketplace.oauth.refresh-token-lifetime"}
_BUDGET_SECONDS = 120.0


def _verdicts(settings: RunSettings) -> dict[str, tuple[str, str, SkipKind | None]]:
    contract = load_contract(SERVICE)
    target = target_for(contract, settings)
    started = time.monotonic()
    out: dict[str, tuple[str, str, SkipKind | None]] = {}
    for case in collect_cases(contract):
        outcome = run_case(case, target)
        out[case.id] = (outcome.status, outcome.message, outcome.skip_kind)
        assert time.monotonic() - started < _BUDGET_SECONDS, f"suite over {_BUDGET_SECONDS} s at {case.id}"
    return out


@pytest.mark.slow
def test_http_tokens_come_from_the_refresh_grant(served: Callable[..., Any],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Without automatic consent (a live sandbox), the scoped rules still run on REFRESH_TOKEN."""
    with served(SERVICE) as (base_url, sim):
        monkeypatch.setenv(env_name(SERVICE, "BASE_URL"), base_url)
        for name, value in sim.credentials.items():
            if name != "AUTO_CONSENT":
                monkeypatch.setenv(env_name(SERVICE, name), value)
        monkeypatch.delenv(env_name(SERVICE, "AUTO_CONSENT"), raising=False)
        contract = load_contract(SERVICE)
        target = make_target(contract, RunSettings(target="http", allow=ALLOW_ALL, limits=UNBUDGETED))
        cases = {c.id: c for c in collect_cases(contract)}
        for rule in ("marketplace.auth.bearer-format", "marketplace.auth.scope-transactions-r",
                     "marketplace.oauth.refresh-grant"):
            assert run_case(cases[rule], target).status == PASSED, rule
        skipped = run_case(cases["marketplace.oauth.connect-redirect"], target)
        assert skipped.status == SKIPPED and "AUTO_CONSENT" in skipped.message


# -- recording: the OAuth traffic leaves no credential in a cassette --------------------------
_ISSUED = re.compile(r"(?<![\w])(code|access_token|refresh_token|code_verifier)(\\?\"?\s*[:=]\s*\\?\"?)"
                     r"([A-Za-z0-9._~-]{6,})")


@pytest.mark.slow
def test_recorded_oauth_traffic_is_scrubbed_and_replays(tmp_path: Path) -> None:
    from conformance.services.marketplace.simulator import MarketplaceSimulator

    recorded = _verdicts(RunSettings(target="sim", record=True, cassette_dir=str(tmp_path)))
    texts = {path.name: path.read_text(encoding="utf-8") for path in (tmp_path / SERVICE).glob("*.yaml")}
    assert texts
    # Every credential the contract does not mark as a plain setting (secret: false: ids, URLs).
    secret_names = [c["name"] for c in load_contract(SERVICE).settings["credentials"] if c.get("secret", True)]
    assert {"API_KEY", "SHARED_SECRET", "REFRESH_TOKEN", "LIMITED_REFRESH_TOKEN"} <= set(secret_names)
    seeded = MarketplaceSimulator.credentials
    for name, text in texts.items():
        for secret in (seeded[n] for n in secret_names if n in seeded):
            assert secret not in text, f"{name} holds a seeded credential"
        leaked = [m.group(0) for m in _ISSUED.finditer(text) if m.group(3) != "REDACTED"]
        assert not leaked, f"{name} holds issued values: {leaked[:3]}"
    assert any("code=REDACTED" in text for text in texts.values())  # the redirect's code, scrubbed
    replayed = _verdicts(RunSettings(target="replay", cassette_dir=str(tmp_path)))
    assert {k: v[0] for k, v in replayed.items()} == {k: v[0] for k, v in recorded.items()}
