"""The GitHub Actions workflows: valid for GitHub's schema, and running what the README says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from conformance.contract.loader import available_services

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def test_workflows_pass_the_github_actions_schema() -> None:
    assert [w.name for w in WORKFLOWS] == ["gate.yml", "nightly.yml"]
    proc = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           *map(str, WORKFLOWS)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_schema_check_can_fail(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  gate:\n    runs-on: ubuntu-latest\n    stepz:\n      - run: echo\n")
    proc = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(broken)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1 and "stepz" in proc.stdout


def test_gate_runs_the_readme_test_command_and_nightly_covers_every_service() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    gate = yaml.safe_load((ROOT / ".github/workflows/gate.yml").read_text())
    commands = [step.get("run", "") for job in gate["jobs"].values() for step in job["steps"]]
    test_command = "bash scripts/setup && .venv/bin/python -m pytest tests conformance/suites"
    assert test_command in readme and test_command in commands
    nightly = yaml.safe_load((ROOT / ".github/workflows/nightly.yml").read_text())
    shard, merge = nightly["jobs"]["shard"], nightly["jobs"]["merge"]
    assert sorted(shard["strategy"]["matrix"]["service"]) == sorted(available_services())
    # One job per service, then one job merging the shards into one run, triage and report.
    assert merge["needs"] == "shard"
    merge_runs = "\n".join(step.get("run", "") for step in merge["steps"])
    assert "conformance merge" in merge_runs and "conformance triage" in merge_runs
    assert "conformance report" in merge_runs
    shard_runs = "\n".join(step.get("run", "") for step in shard["steps"])
    assert '--report-dir "shard/$SERVICE"' in shard_runs
