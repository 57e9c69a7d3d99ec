"""No credential reaches disk or a log: a canary key is run through record, report and failure
attachments over real HTTP, then looked for in every file written and in all output."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.faults import fault_decorator
from conformance.simulators import Simulator
from conformance.services.presentations.simulator import Account

CANARY = "canary-7f3a9c41d2e84b6f"
RUN_TIMEOUT = 240


def _with_canary_account(sim: Simulator) -> Simulator:
    # A fault makes some rules fail, so the report carries failure attachments and curl lines.
    sim.accounts[CANARY] = Account("ultra", 1_000_000.0)  # type: ignore[attr-defined]
    return fault_decorator("presentations", "accepts-76-cards")(sim)


@pytest.mark.slow
def test_canary_key_never_reaches_disk_or_output(tmp_path: Path, served: Callable[..., object]) -> None:
    with served("presentations", clock_rate=200, decorate=_with_canary_account) as (url, sim):  # type: ignore[attr-defined]
        creds = dict(sim.credentials)
        env = {
            **os.environ,
            "CONFORMANCE_PRESENTATIONS_BASE_URL": url,
            "CONFORMANCE_PRESENTATIONS_API_KEY": CANARY,
            "CONFORMANCE_PRESENTATIONS_NO_CREDITS_API_KEY": creds["NO_CREDITS_API_KEY"],
            "CONFORMANCE_PRESENTATIONS_DENIED_API_KEY": creds["DENIED_API_KEY"],
            "CONFORMANCE_TIME_SCALE": "200",
        }
        proc = subprocess.run(
            [sys.executable, "-m", "conformance", "run", "--service", "presentations",
             "--target", "http", "--record", "--report-dir", str(tmp_path / "reports"),
             "--cassette-dir", str(tmp_path / "cassettes")],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=RUN_TIMEOUT,
        )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]  # the fault is caught
    assert "presentations.generate.num-cards-range" in proc.stdout
    secrets = [CANARY, creds["NO_CREDITS_API_KEY"], creds["DENIED_API_KEY"]]
    for secret in secrets:
        assert secret not in proc.stdout and secret not in proc.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".yaml" for p in written), "no cassette written"
    assert any(p.name.endswith("-attachment.txt") for p in written), "no failure attachment written"
    for path in written:
        data = path.read_bytes()
        for secret in secrets:
            assert secret.encode() not in data, f"{secret} leaked into {path.relative_to(tmp_path)}"
    assert any(b"REDACTED" in p.read_bytes() for p in written if p.suffix == ".yaml")
