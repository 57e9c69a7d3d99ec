"""The Allure results a run writes: one result per rule, and no container the report cannot show
(reporting/allure_files.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.harness.inprocess import run_main


def test_every_rule_has_its_result_and_no_container_is_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    for name in [k for k in os.environ if k.startswith("CONFORMANCE_")]:
        monkeypatch.delenv(name)
    proc = run_main(["run", "--service", "tokenrisk", "-k", "auth", "--report-dir", str(tmp_path)], capsys)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = tmp_path / "allure-results"
    rules = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert rules and len(rules) == sum(summary["counts"].values())
    containers = [json.loads(p.read_text()) for p in results.glob("*-container.json")]
    # The session's fixtures hold every rule; the rule's own parameter held none and is gone.
    assert containers and all(c.get("children") for c in containers)
