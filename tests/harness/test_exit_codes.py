"""Exit codes as the README promises: the run deadline is 3 (incomplete), an interrupted run is
130/143 even after a failure, and a report directory in use by another run is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import _exit_status
from conformance.reporting.lock import report_dir_lock
from tests.harness.inprocess import run_isolated


def conformance(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    return subprocess.run([sys.executable, "-m", "conformance", *args], capture_output=True, text=True,
                          timeout=300, env={**clean, **(env or {})}, check=False)


def test_run_deadline_reached_is_incomplete_not_a_harness_error(tmp_path: Path) -> None:
    # A deadline of a millisecond: the first rule may start, the others cannot. In this process
    # (what the run answers is tested, not how a process ends).
    proc = run_isolated(("run", "--service", "presentations", "--no-allure", "--report-dir", str(tmp_path),
                         "-k", "auth"), env={"CONFORMANCE_RUN_SECONDS": "0.001"})
    assert proc.returncode == 3, (proc.returncode, proc.stderr[-1500:])
    assert "run deadline (CONFORMANCE_RUN_SECONDS) was reached" in proc.stderr
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["skip_kinds"].get("run-deadline", 0) >= 1
    assert "HARNESS ERROR" not in proc.stdout


def _summary(tmp_path: Path, **counts: int) -> Path:
    (tmp_path / "summary.json").write_text(json.dumps({"counts": counts, "skip_kinds": {}, "services": {}}))
    return tmp_path


@pytest.mark.parametrize("pytest_code", [1, 2])
def test_interrupted_after_a_failure_is_130_not_1(tmp_path: Path, pytest_code: int) -> None:
    assert _exit_status(_summary(tmp_path, passed=3, failed=1, interrupted=1), pytest_code) == 130


def test_a_failure_without_interruption_is_still_1(tmp_path: Path) -> None:
    assert _exit_status(_summary(tmp_path, passed=3, failed=1), 1) == 1


def test_a_report_dir_in_use_is_refused_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "summary.json").write_text('{"the other run": "its summary"}')
    with report_dir_lock(tmp_path):
        proc = conformance("run", "--service", "presentations", "--no-allure", "--report-dir", str(tmp_path),
                           "-k", "key-required")
    assert proc.returncode == 2, proc.stderr[-1500:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "is in use by the run of process" in lines[0], proc.stderr
    assert str(os.getpid()) in lines[0]  # names the run that holds it
    # Nothing of the holder's was touched.
    assert (tmp_path / "summary.json").read_text() == '{"the other run": "its summary"}'
    # Once released, the directory is usable again.
    again = conformance("run", "--service", "presentations", "--no-allure", "--report-dir", str(tmp_path),
                        "-k", "key-required")
    assert again.returncode == 0, again.stderr[-1500:]
