"""The committed cassettes replay offline against today's contract and suite.

When this fails because the suite now sends other requests, re-record:
`conformance run --service <id> --record` (from the project root).
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from conformance.contract import load_contract
from conformance.runner import ERROR, FAILED, SKIPPED, collect_cases, run_case
from conformance.services import target_for
from conformance.settings import RunSettings
from conformance.targets import make_target

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"
SERVICES = sorted(p.name for p in CASSETTES.iterdir() if p.is_dir() and any(p.glob("*.yaml")))


@pytest.mark.parametrize("service", SERVICES)
def test_committed_cassettes_replay_offline(service: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay touched the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    contract = load_contract(service)
    # Every example drawn again (not taken from the cassette): the cassettes hold today's draws.
    target = make_target(contract, RunSettings(target="replay", cassette_dir=str(CASSETTES), draw_on_replay=True))
    sim = target_for(contract, RunSettings(target="sim"))
    bad = {}
    for case in collect_cases(contract):
        outcome = run_case(case, target)
        if outcome.status in (FAILED, ERROR):
            bad[case.id] = outcome.message.strip().splitlines()[0]
        elif outcome.status == SKIPPED and run_case(case, sim).status != SKIPPED:
            # A missing cassette is a skip; here it would hide a rule that was never replayed.
            bad[case.id] = outcome.message.strip().splitlines()[0]
    assert not bad, f"re-record with `conformance run --service {service} --record`: {bad}"


@pytest.mark.parametrize("service", SERVICES)
def test_committed_cassettes_name_the_contract_they_were_recorded_under(service: str) -> None:
    import json

    digest = load_contract(service).digest
    stale = [p.name for p in sorted((CASSETTES / service).glob("*.yaml"))
             if json.loads(p.read_text(encoding="utf-8")).get("contract_digest") != digest]
    assert not stale, f"re-record with `conformance run --service {service} --record`: {stale}"
