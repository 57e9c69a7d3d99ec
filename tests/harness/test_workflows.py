"""The GitHub Actions workflows: valid for GitHub's schema, and running what the README says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
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


def _conformance_env(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """`conformance env ARGS` in this process, with no CONFORMANCE_ or SANDBOX_ variable set."""
    from conformance.cli import main

    for name in [k for k in os.environ if k.startswith(("CONFORMANCE_", "SANDBOX_"))]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(ROOT)
    code = main(["env", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_nightly_maps_what_the_configuration_file_refers_to(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The nightly targets are conformance.toml's `sandbox`: each service's run step maps exactly
    the names `conformance env --target-name sandbox --references` lists for it, credentials from
    secrets only, the rest from repository variables (or secrets); no step gets every secret
    (toJSON(secrets)); the file refers to every secret credential of each contract, so none is
    left out of the night."""
    from conformance.contract import load_contract

    text = (ROOT / ".github/workflows/nightly.yml").read_text()
    assert "toJSON(secrets)" not in text and not re.search(r"secrets\[", text)
    steps = _nightly_job()["steps"]
    for service in available_services():
        [step] = [s for s in steps if s.get("if") == f"matrix.service == '{service}'"]  # type: ignore[union-attr]
        listed = [line.split() for line in _conformance_env(monkeypatch, capsys, "--target-name", "sandbox",
                                                            "--references", "--service", service).splitlines()]
        wanted = {name: kind for name, kind, *_ in listed}
        env = step["env"]
        assert set(env) == set(wanted), (service, sorted(set(env) ^ set(wanted)))
        for name, value in env.items():
            used = set(re.findall(r"(secrets|vars)\.([A-Z0-9_]+)", value))
            assert {n for _, n in used} == {name}, (name, value)  # each variable reads its own name only
            kinds = {k for k, _ in used}
            assert kinds == ({"secrets"} if wanted[name] == "credential" else {"vars", "secrets"}), (name, value)
        assert step["run"] == f"bash .github/nightly-run.sh {service}"
        keys = {key.rsplit(".", 1)[1] for *_, key, _owner in listed}
        secrets = {c["name"].lower() for c in load_contract(service).settings.get("credentials", [])
                   if c.get("secret", True)}
        assert {"base_url"} | secrets <= keys, (service, sorted(secrets - keys))
    script = (ROOT / ".github/nightly-run.sh").read_text()
    assert "conformance run --target-name sandbox" in script and "CONFORMANCE_" + "TARGET" not in text


def test_nightly_job_outlasts_the_runs_own_bound(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    job = _nightly_job()
    # The bound is the file's (conformance.toml, target sandbox), as the run reads it.
    run_seconds = int(_conformance_env(monkeypatch, capsys, "--target-name", "sandbox", "--get",
                                       "CONFORMANCE_RUN_SECONDS"))
    assert run_seconds < 4 * 3600  # the file's, not the default
    # Set-up and the report need time after the run's bound: ten minutes at least.
    assert int(job["timeout-minutes"]) * 60 >= run_seconds + 600  # type: ignore[call-overload]


def test_both_workflows_are_scoped_cached_and_publish_junit() -> None:
    for name in ("gate.yml", "nightly.yml"):
        flow = yaml.safe_load((ROOT / ".github/workflows" / name).read_text())
        assert flow["permissions"]["contents"] == "read" and flow["permissions"]["checks"] == "write", name
        assert "group" in flow["concurrency"], name
        steps = [step for job in flow["jobs"].values() for step in job["steps"]]
        assert all(s.get("with", {}).get("cache") == "pip" for s in steps
                   if str(s.get("uses", "")).startswith("actions/setup-python")), name
        assert any(str(s.get("uses", "")).startswith("mikepenz/action-junit-report") for s in steps), name
        old = [s["uses"] for s in steps if str(s.get("uses", "")).startswith(("actions/checkout@v4",
                                                                             "actions/setup-python@v5",
                                                                             "actions/upload-artifact@v4"))]
        assert not old, (name, old)
