"""The command line: bad input gets one clear line and exit status 2, never a traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.harness.inprocess import run_isolated, run_main


def conformance(*args: str) -> subprocess.CompletedProcess[str]:
    """In this process, in a fresh environment: for what a run answers and writes."""
    return run_isolated(args)


def conformance_process(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """A process of its own: where separate runs must not share one interpreter's state (hash seed, ids)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    return subprocess.run([sys.executable, "-m", "conformance", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, check=False)


CLI = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> CLI:
    """``conformance ARGS`` in this process (``conformance.cli.main``), for what the answer says,
    not how a process starts or ends: the exit status main returns (or argparse's SystemExit), and
    stdout and stderr. An exception main lets out fails the test, as a traceback would. The
    environment is the subprocess's (no CONFORMANCE_ variable); the signal handlers and the
    interrupt record a run installs are put back; a serve past its checks fails instead of serving."""
    from conformance import interrupts

    for name in [k for k in os.environ if k.startswith("CONFORMANCE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setattr(interrupts, "_state", interrupts._State())

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("serve got past its checks and would have bound a port")

    monkeypatch.setattr("conformance.simulators.sandbox.bind", refuse)

    def call(*args: str) -> subprocess.CompletedProcess[str]:
        return run_main(args, capsys)

    return call


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--service", "nope"], "unknown service 'nope'"),
        (["run", "--fault", "x", "--target", "replay"], "--fault applies to the simulator target only"),
        (["run", "--service", "presentations", "--fault", "no-such-fault"], "no fault or variant 'no-such-fault'"),
        (["serve", "nope"], "no service package for 'nope'"),
        (["serve", "presentations", "--port", "70000"], "out of range"),
        (["rules", "--service", "nope"], "unknown service 'nope'"),
        (["serve", "presentations", "--option", "product=x"], "takes no option product"),
        (["serve", "scanning", "--option", "product"], "NAME=VALUE"),
        (["run", "--target", "http", "--service", "scanning"], "needs CONFORMANCE_SCANNING_BASE_URL"),
        (["run", "--max-falures", "2"], "did you mean '--max-failures'"),
        (["run", "--max-failures", "0"], "--max-failures must be 1 or more"),
        (["run", "--seed", "x"], "invalid int value"),
    ],
)
def test_bad_input_is_one_clear_line(cli: CLI, args: list[str], message: str) -> None:
    proc = cli(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr


def test_a_base_url_nobody_listens_on_is_one_line(cli: CLI, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a failure block per rule: one line, exit 2, before any rule (schemathesis stops too)."""
    import socket

    from conformance.cli.reachable import why_unreachable

    monkeypatch.setenv("CONFORMANCE_PRESENTATIONS_BASE_URL", "http://127.0.0.1:9")  # the discard port
    monkeypatch.setenv("CONFORMANCE_PRESENTATIONS_API_KEY", "k")
    proc = cli("run", "--target", "http", "--service", "presentations", "--no-allure")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert len(lines) == 1
    assert "nothing answers at http://127.0.0.1:9 for presentations (connection refused)" in lines[0]
    with socket.create_server(("127.0.0.1", 0)) as listening:  # something listens: the run goes on
        assert why_unreachable(f"http://127.0.0.1:{listening.getsockname()[1]}") is None
    assert why_unreachable("http://no-such-host.invalid") in ("no such host 'no-such-host.invalid'", None)


def test_replay_from_another_directory_reads_the_project_cassettes(
        cli: CLI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The cassettes are found beside the contracts, not in ./cassettes of wherever the user is."""
    monkeypatch.chdir(tmp_path)
    proc = cli("run", "--target", "replay", "--service", "tokenrisk", "-k", "general", "--no-allure",
               "--report-dir", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stdout[-2000:]
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    rules = [r for r in summary["services"]["tokenrisk"]["rules"] if r["selected"]]
    assert rules and all(r["status"] == "passed" for r in rules), [(r["id"], r["message"]) for r in rules]
    assert not (tmp_path / "cassettes").exists()


def test_the_marker_examples_the_readme_and_help_give_select_rules(cli: CLI, tmp_path: Path) -> None:
    from conformance.cli import _parser

    root = Path(__file__).resolve().parents[2]
    readme = "".join((root / name).read_text(encoding="utf-8") for name in ("README.md", "docs/reference.md"))
    run_help = _parser()._subparsers._group_actions[0].choices["run"].format_help()  # type: ignore[union-attr]
    examples = set(re.findall(r'`-m "([^"]+)"`', readme)) | set(re.findall(r"-m '([^']+)'", run_help))
    assert examples
    for i, expression in enumerate(sorted(examples)):
        proc = cli("run", "-m", expression, "--no-allure", "--report-dir", str(tmp_path / str(i)))
        assert proc.returncode == 0 and "no rule was selected" not in proc.stderr, (expression, proc.stderr)


def test_exitfirst_stops_at_the_first_failure_and_quiet_prints_the_verdict_only(cli: CLI, tmp_path: Path) -> None:
    proc = cli("run", "--service", "presentations", "--fault", "accepts-bearer", "-x", "-q", "--no-color",
               "--no-allure", "--report-dir", str(tmp_path / "r"))
    assert proc.returncode == 1
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    statuses = [r["status"] for r in summary["services"]["presentations"]["rules"]]
    assert statuses.count("failed") == 1 and "not run" in statuses  # stopped: the rest not run
    assert "FAIL  presentations.auth.bearer-rejected" in proc.stdout  # the verdict stays
    assert "starting" not in proc.stdout and "= FAILURES =" not in proc.stdout and "\x1b[" not in proc.stdout


def test_a_seed_draws_the_nightly_examples_again() -> None:
    """--seed (CONFORMANCE_SEED) seeds each rule's generation in the nightly profile; the gate's
    seed is the rule's own either way (its examples, and so its cassettes, never move)."""
    from types import SimpleNamespace

    from conformance.checks.context import CheckContext
    from conformance.settings import RunSettings

    def drawn(profile: str, seed: int | None) -> Any:
        target = SimpleNamespace(settings=RunSettings(seed=seed))
        ctx = CheckContext(None, SimpleNamespace(id="svc.rule"), target, None, profile)  # type: ignore[arg-type]
        return getattr(ctx.property_test("GET /x")(lambda: None), "_hypothesis_internal_use_seed", None)

    assert drawn("nightly", 5) == drawn("nightly", 5) != drawn("nightly", 6)
    assert drawn("nightly", None) is None  # random, as the profile says
    assert drawn("gate", None) == drawn("gate", 5) is not None


def test_rules_lists_each_rule_with_its_check(cli: CLI) -> None:
    proc = cli("rules", "--service", "scanning")
    assert proc.returncode == 0
    assert "scanning.search.query-required" in proc.stdout
    # Each rule shows the check rules.yaml names (or its kind's): a core check by name, a
    # service's scenario check as <service>/<name>.
    assert "kind:required" in proc.stdout and "scanning/error-body" in proc.stdout
    assert "UNCHECKED" not in proc.stdout
    # Counts change as the catalogue does; the line's shape and "every rule has a check" do not.
    totals = re.search(r"(\d+) rules \((\d+) with a check, (\d+) of them by a core check, \d+ resting on a "
                       r"standard\), \d+ gaps, \d+ conflicts", proc.stdout)
    assert totals and totals.group(1) == totals.group(2), proc.stdout[-300:]
    # Counted by where the check lives: a service's own check is never counted as core.
    service_checks = len(re.findall(r"^  scanning\.\S+ +\S+ +scanning/", proc.stdout, re.M))
    assert service_checks and int(totals.group(3)) == int(totals.group(1)) - service_checks


def test_selftest_lists_faults(cli: CLI) -> None:
    proc = cli("selftest", "--service", "presentations", "--list")
    assert proc.returncode == 0
    assert len(proc.stdout.strip().splitlines()) >= 12


@pytest.mark.parametrize(
    "args",
    [
        ["serve", "presentations", "--option", "clock=1"],
        ["serve", "presentations", "--clock-rate", "-5"],
        ["serve", "presentations", "--clock-rate", "nan"],
    ],
)
def test_serve_refuses_bad_clock_settings(cli: CLI, args: list[str]) -> None:
    proc = cli(*args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr


def test_harness_errors_alone_exit_2_not_1(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes" / "presentations"
    cassettes.mkdir(parents=True)
    (cassettes / "presentations.auth.key-required.yaml").write_text("interactions: [oops")
    proc = conformance("run", "--service", "presentations", "--target", "replay", "--no-allure",
                       "--cassette-dir", str(tmp_path / "cassettes"), "--report-dir", str(tmp_path / "r"),
                       "-k", "key-required")
    assert proc.returncode == 2, proc.stdout[-2000:]
    assert "HARNESS ERROR" in proc.stdout and "Traceback" not in proc.stdout


def test_each_run_writes_its_own_directory_and_latest_points_at_it(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "conformance", "run", "--service", "presentations",
                               "--no-allure", "-k", "key-required"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120, env=os.environ)

    first, second = run(), run()
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    runs = sorted((tmp_path / "reports" / "runs").iterdir())
    assert len(runs) == 2 and all((r / "summary.json").is_file() for r in runs)
    junit = (runs[-1] / "junit.xml").read_text(encoding="utf-8")
    assert 'testsuite name="conformance.presentations"' in junit and "presentations.auth.key-required" in junit
    assert (tmp_path / "reports" / "latest").resolve() == runs[-1].resolve()


def test_nothing_checked_is_not_green(tmp_path: Path) -> None:
    proc = conformance("run", "--service", "presentations", "--target", "replay", "--no-allure",
                       "--cassette-dir", str(tmp_path / "none"), "--report-dir", str(tmp_path / "r"))
    assert proc.returncode == 3, proc.stderr
    assert "incomplete run: no rule was checked" in proc.stderr
    allowed = conformance("run", "--service", "presentations", "--target", "replay", "--no-allure", "--allow-skips",
                          "--cassette-dir", str(tmp_path / "none"), "--report-dir", str(tmp_path / "r2"))
    assert allowed.returncode == 0, allowed.stderr


def test_triage_shows_what_changed_between_two_runs(tmp_path: Path, cli: CLI) -> None:
    import json as _json

    common = ["run", "--service", "presentations", "--no-allure", "-k", "num-cards or key-required"]
    assert conformance(*common, "--report-dir", str(tmp_path / "a")).returncode == 0
    assert conformance(*common, "--fault", "bound-accepted:generate.num-cards-range",
                       "--report-dir", str(tmp_path / "b")).returncode == 1
    proc = cli("triage", str(tmp_path / "a"), str(tmp_path / "b"))
    assert proc.returncode == 1, proc.stderr
    assert "## New failures (1)" in proc.stdout and "presentations.generate.num-cards-range" in proc.stdout
    data = _json.loads(cli("triage", str(tmp_path / "b"), str(tmp_path / "a"), "--format", "json").stdout)
    assert [c["rule"] for c in data["fixed"]] == ["presentations.generate.num-cards-range"]
    bad = cli("triage", str(tmp_path / "a"), str(tmp_path / "nowhere"))
    assert bad.returncode == 2 and "cannot read" in bad.stderr


def test_allure_history_ids_are_stable_across_runs(tmp_path: Path) -> None:
    import json as _json

    ids = []
    for name in ("one", "two"):
        proc = conformance_process("run", "--service", "presentations", "-k", "key-required or invalid-key",
                           "--report-dir", str(tmp_path / name))
        assert proc.returncode == 0, proc.stderr
        results = [_json.loads(p.read_text()) for p in (tmp_path / name / "allure-results").glob("*-result.json")]
        ids.append({r["name"].split(":")[0]: r["historyId"] for r in results})
    assert ids[0] == ids[1] and len(ids[0]) == 2


def test_the_curl_line_of_a_sim_failure_reproduces_it_against_the_served_simulator(
        tmp_path: Path, served: Callable[..., Any]) -> None:
    """The report's reproduction runs as printed: served as it says, with the variables it names
    exported, the faulty simulator answers the curl line with the status the report shows."""
    import json
    import shutil

    from conformance.services import fault_decorator

    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    proc = conformance("run", "--service", "presentations", "--fault", "accepts-bearer", "-k", "bearer",
                       "--report-dir", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    [result] = [json.loads(p.read_text()) for p in (tmp_path / "allure-results").glob("*-result.json")]
    curl = next(a for a in result["attachments"] if a["name"] == "reproduce with curl")
    text = (tmp_path / "allure-results" / curl["source"]).read_text()
    assert "conformance serve presentations --port 8080 --fault accepts-bearer" in text
    line = next(x for x in text.splitlines() if x.startswith("curl "))
    assert '"authorization: Bearer ${CONFORMANCE_PRESENTATIONS_API_KEY}"' in line, line
    assert "REDACTED" not in line and "presentations.sim" not in line  # no value, no placeholder to edit
    response = next(a for a in result["attachments"] if a["name"] == "response")
    reported = (tmp_path / "allure-results" / response["source"]).read_text().split()[1]
    with served("presentations", decorate=fault_decorator("presentations", "accepts-bearer")) as (url, sim):
        port = url.rsplit(":", 1)[1]
        env = {"PATH": os.environ["PATH"], "CONFORMANCE_PRESENTATIONS_API_KEY": sim.credentials["API_KEY"]}
        # The line as printed, through a shell; only the port differs from the one it names.
        answer = subprocess.run(["bash", "-c", line.replace(":8080", f":{port}", 1)
                                 + " -o /dev/null -w '%{http_code}'"], capture_output=True, text=True,
                                timeout=30, check=False, env=env)
        without = subprocess.run(["bash", "-c", line.replace(":8080", f":{port}", 1)
                                  + " -o /dev/null -w '%{http_code}'"], capture_output=True, text=True,
                                 timeout=30, check=False, env={"PATH": os.environ["PATH"]})
    assert answer.stdout == reported == "200", (answer.stdout, reported, answer.stderr)  # a bearer token accepted
    assert without.stdout == "401"  # the variable is what carries the key


def test_run_selects_by_marker_and_reports_its_version(tmp_path: Path) -> None:
    # The README's selection by marker works on `conformance run` too, not only under pytest.
    from conformance.cli import main

    code = main(["run", "--service", "presentations", "-m", "presentations and enum", "--no-allure",
                 "--report-dir", str(tmp_path)])
    assert code == 0
    import json

    summary = json.loads((tmp_path / "summary.json").read_text())
    run = [r for r in summary["services"]["presentations"]["rules"] if r["status"] != "not run"]
    assert run and {r["kind"] for r in run} == {"enum"}
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0


def test_env_lists_each_variable_once(cli: CLI) -> None:
    proc = cli("env")
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("CONFORMANCE_")]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    auth = next(line for line in proc.stdout.splitlines() if line.startswith("CONFORMANCE_MARKETPLACE_AUTH_URL "))
    assert "--option auth_url=" in auth
    assert "CONFORMANCE_SOCIAL_RATE_SCALE" in names  # the sandbox rate, apart from the clock scale


def test_a_shortened_message_never_cuts_the_variable_to_set() -> None:
    from conformance.reporting.text import shorten

    message = ("the report window holds no rows: nothing to compare; " * 3 +
               "set CONFORMANCE_AFFILIATE_TODAY to the target's date and CONFORMANCE_AFFILIATE_EMAIL too")
    for limit in range(120, len(message)):
        short = shorten(message, limit)
        assert "CONFORMANCE_AFFILIATE_TODAY" in short and "CONFORMANCE_AFFILIATE_EMAIL" in short, (limit, short)
        assert not short.rstrip(" .)").endswith(("CON", "CONFORMANCE_AFF")), short
    assert shorten("short", 160) == "short"


def test_report_exits_with_the_status_of_the_run_it_reports(tmp_path: Path) -> None:
    """tox -e report: the report is built even when the run failed, and the failure shows."""
    import configparser
    import shutil

    tox = configparser.ConfigParser()
    tox.read(Path(__file__).resolve().parents[2] / "tox.ini")
    assert "--exit-status" in tox["testenv:report"]["commands"]
    if shutil.which("npx") is None:
        pytest.skip("npx (Node.js) is missing: `conformance report` builds the HTML with it")
    run = conformance_process("run", "--service", "presentations", "-k", "bearer", "--fault", "accepts-bearer",
                              "--report-dir", str(tmp_path / "run"))
    assert run.returncode == 1, run.stderr
    report = conformance_process("report", "--report-dir", str(tmp_path / "run"), "--no-history", "--exit-status")
    assert report.returncode == 1, report.stderr
    assert (tmp_path / "run" / "allure-report" / "index.html").is_file()


@pytest.mark.parametrize(("args", "suggestion"), [
    (["rn"], "did you mean 'run'?"),
    (["run", "--target", "htp"], "did you mean 'http'?"),
    (["run", "--service", "presentaions"], "did you mean 'presentations'?"),
    (["run", "--service", "presentations", "--fault", "accepts-barer"], "did you mean 'accepts-bearer'?"),
    (["run", "--fault", "accepts-barer"], "did you mean 'accepts-bearer'?"),
])
def test_a_typo_gets_a_suggestion(cli: CLI, args: list[str], suggestion: str) -> None:
    proc = cli(*args)
    assert proc.returncode == 2 and suggestion in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_help_groups_options_and_shows_defaults() -> None:
    from conformance.cli import _parser

    run_help = _parser()._subparsers._group_actions[0].choices["run"].format_help()  # type: ignore[union-attr]
    for title in ("target:", "selection:", "cassettes:", "output and exit status:"):
        assert f"\n{title}\n" in run_help, run_help
    assert "(default: the project's cassettes/" in " ".join(run_help.split())
    subparsers = _parser()._subparsers
    serve_help = " ".join(subparsers._group_actions[0].choices["serve"].format_help().split())  # type: ignore[union-attr]
    assert "port to listen on; 0: any free port (the printed URL names it) (default: 8080)" in serve_help
    assert "(default: None)" not in serve_help
