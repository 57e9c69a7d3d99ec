"""run_isolated: a command in this process sees the environment a subprocess of the tests would,
and leaves this process as it found it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.harness.inprocess import run_isolated


def test_the_command_sees_a_fresh_environment_plus_what_is_given(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_RUN_SECONDS", "77")  # this process's: not the command's
    proc = run_isolated(("env", "--service", "tokenrisk"), cwd=tmp_path, env={"CONFORMANCE_SPEND_BUDGET": "5"})
    assert proc.returncode == 0, proc.stderr
    listed = dict(re.findall(r"^(CONFORMANCE_[A-Z0-9_]+)\s+(\S+)", proc.stdout, re.M))
    assert listed["CONFORMANCE_SPEND_BUDGET"] == "5" and listed["CONFORMANCE_RUN_SECONDS"] != "77"
    assert os.environ["CONFORMANCE_RUN_SECONDS"] == "77" and "CONFORMANCE_SPEND_BUDGET" not in os.environ


def test_what_a_run_sets_is_put_back(tmp_path: Path) -> None:
    """`--option` sets the path setting's variable in the process (for the rules it runs)."""
    before, where = dict(os.environ), os.getcwd()
    run_isolated(("run", "--service", "marketplace", "--option", "auth_url=http://127.0.0.1:9/x", "--no-allure",
                  "-k", "no-such-rule-anywhere", "--report-dir", str(tmp_path / "r")), cwd=tmp_path)
    assert dict(os.environ) == before and os.getcwd() == where
