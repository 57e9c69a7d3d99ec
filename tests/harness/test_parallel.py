"""Services side by side (issue 25): `conformance run --jobs N` gives the serial run's verdict per rule,
one service per worker in serial order, one merged run directory; shards merge into one run."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.contract import load_contract
from conformance.parallel import ServiceScheduling, merge_worker_files, run_started
from conformance.runner import INTERRUPTED, PASSED
from conformance.settings import Limits, RunSettings
from tests.harness.inprocess import run_isolated

SERVICES = ("tokenrisk", "scanning")
# A signal mid-run: two services a worker (247 of the 462 rules), not all eight. The run is as far
# from its end when both workers have finished a rule (measured: 43 of 247 checked when the signal
# landed), and each process collects half the rules (start-up to the signal: 11 s -> 5.6 s).
SIGNAL_SERVICES = ("presentations", "social", "affiliate", "contracts")


def conformance(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    return subprocess.run([sys.executable, "-m", "conformance", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same two services serially, with --jobs 2, and as two one-service shards. Only the
    --jobs run is a process of its own (its workers are what is tested); the serial run and the
    shards run in this process, as `conformance run` in a fresh environment (one start-up each less)."""
    base = tmp_path_factory.mktemp("runs")
    selected = [a for s in SERVICES for a in ("--service", s)]
    out: dict[str, Any] = {"dir": base}
    for name, extra in (("serial", []), ("parallel", ["--jobs", "2"])):
        args = ("run", *selected, *extra, "--report-dir", str(base / name))
        proc = conformance(*args) if extra else run_isolated(args)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        out[name] = proc
    for service in SERVICES:
        proc = run_isolated(("run", "--service", service, "--report-dir", str(base / f"shard-{service}")))
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out


def _rules(run_dir: Path) -> dict[str, dict[str, Any]]:
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    return {r["id"]: r for s in summary["services"].values() for r in s["rules"]}


def _timeless(text: str) -> str:
    return re.sub(r"\d+(\.\d+)? ?(s|ms)\b", "N s", text)


def _same_run(a: Path, b: Path) -> None:
    """Rule by rule: status, skip kind, message (times aside); gaps, conflicts, counts; junit testcases;
    triage; Allure results by name and status."""
    ra, rb = _rules(a), _rules(b)
    assert list(ra) == list(rb)
    for rule, left in ra.items():
        right = rb[rule]
        assert (left["status"], left["skip_kind"], _timeless(left["message"])) == (
            right["status"], right["skip_kind"], _timeless(right["message"])), rule
    sa, sb = (json.loads((d / "summary.json").read_text(encoding="utf-8")) for d in (a, b))
    for key in ("counts", "skip_kinds", "missing_required", "target", "profile"):
        assert sa[key] == sb[key], key
    for service in sa["services"]:
        for key in ("gaps", "conflicts", "contract_digest", "path_settings"):
            assert sa["services"][service][key] == sb["services"][service][key], (service, key)
    # The checked share over the selection, held against the same floor; the run's own elapsed time.
    assert sa["checked"] == sb["checked"] and sb["checked"]["of"] == len(ra)
    assert sb["elapsed_seconds"] > 0 and sa["interrupted"] == sb["interrupted"] is None
    for service in sa["services"]:
        assert sa["services"][service]["checked"] == sb["services"][service]["checked"], service
    assert (a / "triage.md").read_text(encoding="utf-8") == (b / "triage.md").read_text(encoding="utf-8")
    assert _junit(a) == _junit(b)
    assert _junit_properties(a) == _junit_properties(b) and "conformance.checked" in _junit_properties(b)
    assert _allure(a) == _allure(b)


def _junit(run_dir: Path) -> dict[str, list[str]]:
    root = ET.parse(run_dir / "junit.xml").getroot()
    return {f"{c.get('classname')}::{c.get('name')}": sorted(x.tag for x in c) for c in root.iter("testcase")}


def _junit_properties(run_dir: Path) -> dict[str, str]:
    root = ET.parse(run_dir / "junit.xml").getroot()
    return {p.get("name", ""): p.get("value", "") for p in root.iter("property")
            if p.get("name", "").startswith("conformance.")}


def _allure(run_dir: Path) -> list[tuple[str, str]]:
    results = [json.loads(p.read_text(encoding="utf-8")) for p in (run_dir / "allure-results").glob("*-result.json")]
    return sorted((r["fullName"], r["status"]) for r in results)


@pytest.mark.slow
def test_jobs_give_the_serial_verdict_per_rule(runs: dict[str, Any]) -> None:
    _same_run(runs["dir"] / "serial", runs["dir"] / "parallel")
    assert len(_rules(runs["dir"] / "parallel")) == sum(len(load_contract(s).rules) for s in SERVICES)


@pytest.mark.slow
def test_each_service_runs_whole_in_one_worker_in_serial_order(runs: dict[str, Any]) -> None:
    workers = sorted((runs["dir"] / "parallel" / "workers").iterdir())
    assert len(workers) == 2  # one directory (and file) per worker: no two write the same file
    started: dict[str, list[str]] = {}
    for worker in workers:
        lines = [json.loads(line) for line in (worker / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()]
        rules = [d["rule"] for d in lines if d["event"] == "start"]
        assert rules
        for service in {r.split(".", 1)[0] for r in rules}:
            started[service] = started.get(service, []) + [r for r in rules if r.startswith(service + ".")]
    for service in SERVICES:
        assert started[service] == [r.id for r in load_contract(service).rules]  # all of it, once, in order


@pytest.mark.slow
def test_progress_line_counts_what_the_serial_run_counts(runs: dict[str, Any]) -> None:
    def done(proc: subprocess.CompletedProcess[str]) -> str:
        [line] = [line for line in proc.stdout.splitlines() if line.endswith(" done")]
        return re.sub(r"\(\d+\.\d s\)", "", line)

    assert done(runs["parallel"]) == done(runs["serial"])
    assert "[" in done(runs["parallel"]) and "passed" in done(runs["parallel"])


@pytest.mark.slow
def test_shards_merge_into_the_one_run(runs: dict[str, Any], tmp_path: Path) -> None:
    shards = [str(runs["dir"] / f"shard-{s}") for s in SERVICES]
    proc = run_isolated(("merge", *shards, "--reports", str(tmp_path / "reports")))
    assert proc.returncode == 0, proc.stderr
    [merged] = (tmp_path / "reports" / "runs").iterdir()
    assert (tmp_path / "reports" / "latest").resolve() == merged.resolve()
    _same_run(runs["dir"] / "serial", merged)
    # triage takes the shards as the current run: nothing changed against the serial run.
    proc = run_isolated(("triage", str(runs["dir"] / "serial"), *shards, "--format", "json"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["new_failures"] == []
    # One service in two shards: which verdict? Refused in one line.
    proc = run_isolated(("merge", shards[0], shards[0], "--reports", str(tmp_path / "again")))
    assert proc.returncode == 2 and "is in both" in proc.stderr and "Traceback" not in proc.stderr
    assert not list((tmp_path / "again" / "runs").glob("*/summary.json"))


def test_jobs_below_one_is_one_line() -> None:
    proc = run_isolated(("run", "--service", "tokenrisk", "--jobs", "0"))
    assert proc.returncode == 2 and "--jobs must be 1 or more" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_every_worker_and_what_finished_is_written(tmp_path: Path, signum: int, code: int) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    selected = [a for s in SIGNAL_SERVICES for a in ("--service", s)]
    proc = subprocess.Popen([sys.executable, "-m", "conformance", "run", *selected, "--jobs", "2", "--no-allure",
                             "--report-dir", str(tmp_path)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        # Once both workers have finished a rule (every service takes seconds: far from the end).
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            files = list((tmp_path / "workers").glob("*/outcomes.jsonl"))
            if len(files) == 2 and all('"outcome"' in f.read_text(encoding="utf-8") for f in files):
                break
            time.sleep(0.2)
        else:
            pytest.fail("the workers never finished a rule")
        pids = [int(p.read_text(encoding="utf-8")) for p in (tmp_path / "workers").glob("*/pid")]
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    statuses = [r["status"] for r in _rules(tmp_path).values()]
    assert statuses.count(PASSED) >= 2  # what finished is written
    assert set(statuses) - {PASSED, "skipped"} <= {INTERRUPTED, "not run"}
    assert INTERRUPTED in statuses or "not run" in statuses
    # The share is over every selected rule (the workers' collection), not only those that ended.
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["checked"]["of"] == len(statuses) and summary["checked"]["checked"] < len(statuses)
    assert summary["interrupted"] == signal.Signals(signum).name
    assert set(summary["services"]) == set(SIGNAL_SERVICES)
    for pid in pids:  # no worker keeps running rules after the run ended
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()


def test_scheduler_groups_rules_by_service_and_other_tests_as_dist_asks() -> None:
    split = ServiceScheduling._split_scope
    sched = ServiceScheduling.__new__(ServiceScheduling)
    sched.config = SimpleNamespace(getvalue=lambda name: "loadscope")  # type: ignore[assignment]
    assert split(sched, "test_rules.py::test_rule[social.posts.limit]") == split(
        sched, "test_rules.py::test_rule[social.request-fields.post-x]")
    assert split(sched, "test_rules.py::test_rule[social.posts.limit]") != split(
        sched, "test_rules.py::test_rule[scanning.search.cost]")
    assert split(sched, "tests/harness/test_cli.py::test_x") == "tests/harness/test_cli.py"
    sched.config = SimpleNamespace(getvalue=lambda name: "load")  # type: ignore[assignment]
    assert split(sched, "tests/harness/test_cli.py::test_x") == "tests/harness/test_cli.py::test_x"
    assert split(sched, "test_rules.py::test_rule[social.posts.limit]") == "conformance service social"


def test_run_deadline_counts_from_the_run_start_not_the_target(tmp_path: Path) -> None:
    from conformance.services import target_for

    # A service whose first rule starts an hour into a one-hour run has no time left (serial or worker).
    settings = RunSettings(limits=Limits(run_seconds=3600), run_started=time.time() - 3601)
    assert target_for(load_contract("tokenrisk"), settings).run_seconds_left() <= 0
    fresh = RunSettings(limits=Limits(run_seconds=3600), run_started=time.time())
    assert target_for(load_contract("tokenrisk"), fresh).run_seconds_left() > 3000


def test_workers_take_the_controllers_start() -> None:
    class Worker:
        workerinput = {"conformance_run_started": 1234.5, "workerid": "gw0"}

    assert run_started(Worker()) == 1234.5  # type: ignore[arg-type]


def test_a_rule_started_but_never_finished_is_interrupted_not_passed(tmp_path: Path) -> None:
    rules = [r.id for r in load_contract("tokenrisk").rules]
    worker = tmp_path / "gw0"
    worker.mkdir()
    lines = [{"event": "start", "rule": rules[0]},
             {"event": "outcome", "rule": rules[0], "service": "tokenrisk", "status": "passed", "message": "",
              "skip_kind": None, "seconds": 0.1, "observations": {}, "missing_required": []},
             {"event": "start", "rule": rules[1]}]
    (worker / "outcomes.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines) + '{"event": "outc',
                                           encoding="utf-8")
    ids = [f"test_rules.py::test_rule[{r}]" for r in rules]
    summary, _urls = merge_worker_files(tmp_path, ids, "sim", "gate")
    assert [(o.case_id, o.status) for o in summary.outcomes.values()] == [(rules[0], PASSED), (rules[1], INTERRUPTED)]


@pytest.mark.slow
def test_the_harness_own_tests_under_xdist_leave_no_worker_files(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    # Two folders, one with its own conftest.py: pluggy then computes hook subsets over the
    # registered plugins, which must hash (a dataclass plugin with eq did not: every worker crashed).
    proc = subprocess.run([sys.executable, "-m", "pytest", str(root / "tests/harness/test_layers.py"),
                           str(root / "tests/clients/test_tokenrisk_client.py"), "-n", "2", "-q",
                           "-p", "no:cacheprovider", "--report-dir", str(tmp_path / "reports")],
                          capture_output=True, text=True, timeout=600, cwd=root, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert " passed" in proc.stdout and not (tmp_path / "reports" / "workers").exists()


def test_merged_shards_recompute_the_checked_share_from_the_merged_rules() -> None:
    from conformance.reporting.merge import merge_summaries

    def shard(service: str, statuses: list[tuple[str, bool]], floor: str) -> dict[str, Any]:
        rules = [{"id": f"{service}.r{i}", "status": st, "message": "", "skip_kind": None, "selected": sel}
                 for i, (st, sel) in enumerate(statuses)]
        return {"target": "http", "profile": "nightly", "harness_version": "1", "commit": "c",
                "counts": {}, "skip_kinds": {}, "elapsed_seconds": 3.0, "interrupted": None,
                "checked": {"floor": floor}, "services": {service: {"rules": rules}}}

    # One checked of two selected, and one of one; a rule outside the selection is not counted.
    a = shard("alpha", [("passed", True), ("not run", True), ("not run", False)], "50%")
    b = shard("beta", [("failed", True)], "50%")
    merged = merge_summaries([(Path("a"), a), (Path("b"), b)])
    assert (merged["checked"]["checked"], merged["checked"]["of"]) == (2, 3)
    assert merged["checked"]["floor"] == "50%" and merged["checked"]["met"]
    assert merged["elapsed_seconds"] == 3.0 and merged["interrupted"] is None
    b["interrupted"] = "SIGTERM"
    assert merge_summaries([(Path("a"), a), (Path("b"), b)])["interrupted"] == "SIGTERM"
    # Shards run with different floors cannot make one verdict: refused in one line.
    b["checked"] = {"floor": "3 rules"}
    with pytest.raises(Exception, match="different --min-checked floors"):
        merge_summaries([(Path("a"), a), (Path("b"), b)])
