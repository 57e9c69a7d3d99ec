"""The checked share is part of the verdict: "checked N of M" everywhere, a floor that makes a
run that checked too little incomplete (exit 3, one line naming what kept the rules out), a
spend budget that lets `--allow spend` check every spending rule, and every run-wide variable
listed by `conformance env`."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from conformance.contract import load_contract
from conformance.reporting.checked import checked_share
from conformance.settings import Limits, MinChecked, RunSettings
from conformance.targets import make_target
from tests.harness.inprocess import run_isolated

PACKAGE = Path(__file__).resolve().parents[2] / "conformance"


def conformance(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """In this process, in a fresh environment: what is tested is what the run answers and writes."""
    return run_isolated(args, env=env)


def test_every_run_says_checked_n_of_m_in_every_report(tmp_path: Path) -> None:
    proc = conformance("run", "--service", "marketplace", "--report-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-1500:]
    line = re.search(r"conformance: checked (\d+) of (\d+) rules; not checked: ([^;]+); floor 80% of \d+ "
                     r"judgeable: met", proc.stdout)
    assert line, proc.stdout[-1500:]
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    checked = summary["checked"]
    assert (checked["checked"], checked["of"]) == (int(line.group(1)), int(line.group(2)))
    assert checked["checked"] < checked["of"] and checked["not_checked"] and checked["met"]
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert f'name="conformance.checked" value="{checked["checked"]}"' in junit
    assert f'name="conformance.rules" value="{checked["of"]}"' in junit
    env = (tmp_path / "allure-results" / "environment.properties").read_text(encoding="utf-8")
    assert f"checked={checked['checked']} of {checked['of']} rules" in env


def test_a_run_below_the_floor_is_incomplete_and_says_why(tmp_path: Path) -> None:
    proc = conformance("run", "--service", "marketplace", "--no-allure", "--report-dir", str(tmp_path),
                       "--min-checked", "100%")
    assert proc.returncode == 3, (proc.returncode, proc.stderr[-1500:])
    [line] = [x for x in proc.stderr.splitlines() if "below the floor" in x]
    assert "below the floor of 100%" in line and "not-exercised" in line
    count = conformance("run", "--service", "marketplace", "--no-allure", "--report-dir", str(tmp_path / "c"),
                        "--min-checked", "5")
    assert count.returncode == 0, count.stderr[-1500:]


@pytest.mark.parametrize("bad", ["80", "120%", "-1", "lots", "%"])
def test_a_bad_floor_is_one_line(bad: str) -> None:
    proc = conformance("run", "--service", "marketplace", "--min-checked", bad + ("" if bad != "80" else "x"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--min-checked takes a percentage" in proc.stderr


def test_the_floor_line_names_what_would_unlock_the_rules() -> None:
    rules = [{"status": "passed"}] * 4 + [
        {"status": "skipped", "skip_kind": "needs-allowance",
         "message": "POST /campaigns would write on a live target; run with --allow write"}] * 35 + [
        {"status": "skipped", "skip_kind": "credential-missing",
         "message": "needs CONFORMANCE_OUTREACH_NO_CREATE_API_KEY on target 'http'"}] * 4
    share = checked_share(rules, MinChecked.parse("80%"))
    assert not share.met and share.line().startswith("checked 4 of 43 rules")
    why = share.below_floor()
    assert "35 needs-allowance (set --allow write)" in why
    assert "4 credential-missing (set CONFORMANCE_OUTREACH_NO_CREATE_API_KEY)" in why


def test_gap_observed_rules_are_counted_but_not_held_against_the_floor() -> None:
    rules = [{"status": "passed"}] * 30 + [{"status": "skipped", "skip_kind": "gap-observed"}] * 12
    share = checked_share(rules, MinChecked.parse("100%"))
    assert share.total == 42 and share.judgeable == 30 and share.met


def test_the_default_spend_budget_lets_every_spending_rule_spend_what_it_needs() -> None:
    """94 spending requests is the most one rule (a property) sends to a served presentations
    simulator; 40 rules spend. Today's default stopped the run at 20 requests."""
    target = make_target(load_contract("presentations"), RunSettings(target="http", allow=frozenset({"spend"})))
    for _rule in range(40):
        target.rule_spent = 0  # what each rule's session does
        assert all(target.spend("POST /generations") is None for _ in range(94))
    capped = make_target(load_contract("presentations"),
                         RunSettings(target="http", limits=Limits(spend_budget=3), allow=frozenset({"spend"})))
    assert [capped.spend("x") for _ in range(4)][-1] == ("the run's spend budget of 3 requests is used up "
                                                          "(CONFORMANCE_SPEND_BUDGET)")


def test_env_lists_every_run_wide_variable_with_its_value() -> None:
    named = set()
    for path in PACKAGE.rglob("*.py"):
        named |= set(re.findall(r"[\"'](CONFORMANCE_[A-Z][A-Z0-9_]*[A-Z0-9])[\"']", path.read_text(encoding="utf-8")))
    proc = conformance("env", "--service", "tokenrisk", env={"CONFORMANCE_RUN_SECONDS": "77"})
    assert proc.returncode == 0
    listed = dict(re.findall(r"^(CONFORMANCE_[A-Z0-9_]+)\s+(\S+)", proc.stdout, re.M))
    run_wide = {n for n in named if not n.startswith("CONFORMANCE_TOKENRISK_") and n in listed or
                not any(n.startswith(f"CONFORMANCE_{s.upper()}_") for s in _services())}
    missing = sorted(run_wide - set(listed))
    assert not missing, f"run-wide variables `conformance env` does not list: {missing}"
    for name in ("CONFORMANCE_SPEND_BUDGET", "CONFORMANCE_MIN_CHECKED", "CONFORMANCE_REQUEST_SECONDS",
                 "CONFORMANCE_BREAKER_FAILURES", "CONFORMANCE_RETRY_AFTER_CEILING", "CONFORMANCE_DOCS_URL"):
        assert name in listed, name
    assert listed["CONFORMANCE_RUN_SECONDS"].startswith("77")


def _services() -> list[str]:
    from conformance.contract.loader import available_services

    return available_services()


def test_nightly_sets_allowances_spend_and_the_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """The nightly workflow and `tox -e nightly` run conformance.toml's target sandbox, which
    allows write and spend, gives spending rules their budget and sets the floor."""
    import configparser

    from conformance.cli import configfile

    root = PACKAGE.parent
    for name in [k for k in os.environ if k.startswith(("CONFORMANCE_", "SANDBOX_"))]:
        monkeypatch.delenv(name)
    config = configfile.load(str(root / "conformance.toml"), "sandbox")
    assert config is not None
    values = {name: entry.value for name, entry in config.entries.items()}
    assert values["CONFORMANCE_ALLOW"] == "write,spend" and values["CONFORMANCE_MIN_CHECKED"]
    assert "CONFORMANCE_SPEND_PER_RULE" in values and "CONFORMANCE_SPEND_BUDGET" in values
    assert "conformance run --target-name sandbox" in (root / ".github/nightly-run.sh").read_text(encoding="utf-8")
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(root / "tox.ini")
    assert "conformance run --target-name sandbox" in tox["testenv:nightly"]["commands"]
