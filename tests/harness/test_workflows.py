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
    # CI's entry point runs one command: the README shows it and the gate workflow runs it.
    test_command = (ROOT / ".ci/run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert test_command.startswith("bash scripts/setup && .venv/bin/python -m pytest tests conformance/suites")
    # Run once, with the JUnit file CI publishes: the README's command, then output options only.
    assert test_command in readme and any(c == test_command or c.startswith(test_command + " --junitxml=")
                                          for c in commands)
    assert not any("scripts/run" in c for c in commands)  # the suites run once, in the test command
    assert gate["permissions"] == {"contents": "read", "checks": "write"}
    assert gate["concurrency"]["cancel-in-progress"] is True
    nightly = yaml.safe_load((ROOT / ".github/workflows/nightly.yml").read_text())
    shard, merge = nightly["jobs"]["shard"], nightly["jobs"]["merge"]
    assert sorted(shard["strategy"]["matrix"]["service"]) == sorted(available_services())
    # One job per service, then one job merging the shards into one run, triage and report.
    assert merge["needs"] == "shard"
    merge_runs = "\n".join(step.get("run", "") for step in merge["steps"])
    assert "conformance merge" in merge_runs and "conformance triage" in merge_runs
    assert "conformance report" in merge_runs
    # Each shard writes its own run directory, which its job uploads for the merge job.
    assert '--report-dir "shard/$SERVICE"' in (ROOT / ".github/nightly-run.sh").read_text()
    assert any(step.get("with", {}).get("path") == "shard/" for step in shard["steps"])


def _nightly_job() -> dict[str, object]:
    nightly = yaml.safe_load((ROOT / ".github/workflows/nightly.yml").read_text())
    job = nightly["jobs"]["shard"]  # the matrix job, one service each; "merge" runs no service
    return job  # type: ignore[no-any-return]


def test_nightly_maps_each_services_variables_explicitly() -> None:
    """No step gets every repository secret (toJSON(secrets)): each service's run step maps the
    names `conformance env` lists for it, credentials from secrets, base URLs and settings from
    repository variables."""
    import re

    from conformance.contract import load_contract
    from conformance.settings import env_name

    text = (ROOT / ".github/workflows/nightly.yml").read_text()
    assert "toJSON(secrets)" not in text and not re.search(r"secrets\[", text)
    steps = _nightly_job()["steps"]
    for service in available_services():
        [step] = [s for s in steps if s.get("if") == f"matrix.service == '{service}'"]  # type: ignore[union-attr]
        contract = load_contract(service)
        secret = {env_name(service, c["name"]) for c in contract.settings.get("credentials", [])
                  if c.get("secret", True)}
        wanted = ({env_name(service, "BASE_URL")} | {env_name(service, c["name"])
                                                     for c in contract.settings.get("credentials", [])}
                  | {env_name(service, n.upper()) for n in contract.server_variables()}
                  | ({env_name(service, "RATE_SCALE")} if contract.openapi.get("x-client-rate-limits") else set()))
        env = step["env"]
        assert set(env) == wanted, (service, sorted(set(env) ^ wanted))
        for name, value in env.items():
            used = set(re.findall(r"(secrets|vars)\.([A-Z0-9_]+)", value))
            assert {n for _, n in used} == {name}, (name, value)  # each variable reads its own name only
            kinds = {k for k, _ in used}
            assert kinds == ({"secrets"} if name in secret else {"vars", "secrets"}), (name, value)
        assert service in step["run"]


def test_nightly_job_outlasts_the_runs_own_bound() -> None:
    job = _nightly_job()
    run_seconds = int(job["env"]["CONFORMANCE_RUN_SECONDS"])  # type: ignore[index]
    # Set-up and the report need time after the run's bound: ten minutes at least.
    assert int(job["timeout-minutes"]) * 60 >= run_seconds + 600  # type: ignore[call-overload]
