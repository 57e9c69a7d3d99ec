"""The pytest plugin, black-box through pytester: items per rule, summary, faults, bad usage."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.cli import SUITES
from conformance.contract import load_contract
from tests.harness.test_junit import violations

pytest_plugins = ["pytester"]

_INI = "[pytest]\naddopts = -p no:cacheprovider\n"
# Unreachable: nothing listens on the discard port.
_UNREACHABLE = {"CONFORMANCE_PRESENTATIONS_BASE_URL": "http://127.0.0.1:9", "CONFORMANCE_PRESENTATIONS_API_KEY": "k"}


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makeini(_INI)
    return pytester.runpytest_subprocess(
        str(SUITES / "test_rules.py"), "--service", "presentations", "--report-dir",
        str(pytester.path / "reports"), *args, timeout=300,
    )


@dataclass
class SharedRun:
    """One pytest run of the suite in a subprocess, as ``_run`` makes it, that several tests read:
    its output (a ``RunResult``), report directory, Allure results and JUnit file."""

    result: pytest.RunResult
    path: Path

    @property
    def alluredir(self) -> Path:
        return self.path / "allure"

    @property
    def junit(self) -> Path:
        return self.path / "junit.xml"


def _shared_run(path: Path, *args: str, env: dict[str, str] | None = None) -> SharedRun:
    path.mkdir(parents=True)
    (path / "tox.ini").write_text(_INI, encoding="utf-8")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", f"--basetemp={path / 'basetemp'}",
                           str(SUITES / "test_rules.py"), "--service", "presentations",
                           "--report-dir", str(path / "reports"), "--alluredir", str(path / "allure"),
                           "--junitxml", str(path / "junit.xml"), *args],
                          cwd=path, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=300, check=False)
    result = pytest.RunResult(proc.returncode, proc.stdout.splitlines(), proc.stderr.splitlines(),
                              time.monotonic() - started)
    return SharedRun(result, path)


@pytest.fixture(scope="module")
def bearer_fault_run(tmp_path_factory: pytest.TempPathFactory) -> SharedRun:
    """The auth rules against the simulator with the accepts-bearer fault: one run for the summary,
    the failure text, the Allure results and the JUnit classes (was one run each)."""
    return _shared_run(tmp_path_factory.mktemp("plugin") / "bearer-fault", "--fault", "accepts-bearer", "-k", "auth")


@pytest.fixture(scope="module")
def unreachable_run(tmp_path_factory: pytest.TempPathFactory) -> SharedRun:
    """One rule over HTTP against a port nobody listens on: for the report's broken result and
    JUnit's <error>."""
    return _shared_run(tmp_path_factory.mktemp("plugin") / "unreachable", "--target", "http", "-k", "invalid-key",
                       env=_UNREACHABLE)


def test_clean_simulator_run_passes_with_a_per_rule_summary(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "-k", "auth or paging", "--conformance-every-rule")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines([
        "*conformance: per-rule summary*",
        f"presentations (sim, gate): {len(load_contract('presentations').rules)} rules: 5 passed, 0 failed*",
        "*PASS  presentations.auth.bearer-rejected*",
        "total: 5 rules: 5 passed, 0 failed, 0 skipped, 0 errors in * s (the rules' own time*",
    ])
    assert (pytester.path / "reports" / "summary.json").is_file()


def test_the_summary_lists_only_what_did_not_pass_by_default(bearer_fault_run: SharedRun) -> None:
    """A CI log reads the failures and the totals, not one PASS line per rule."""
    result = bearer_fault_run.result
    out = result.stdout.str()
    assert "FAIL  presentations.auth.bearer-rejected" in out
    assert "PASS  " not in out
    result.stdout.fnmatch_lines(["total: 3 rules: 2 passed, 1 failed, 0 skipped, 0 errors in * s*"])


def test_fault_fails_the_rule_it_breaks_with_the_exchange(bearer_fault_run: SharedRun) -> None:
    result = bearer_fault_run.result
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*[[]presentations.auth.bearer-rejected[]]*must be refused*",
        "*expected: status 401*",
        "*sent:*GET /v1.0/themes*",
    ])
    triage = (bearer_fault_run.path / "reports" / "triage.md").read_text()
    assert "presentations.auth.bearer-rejected" in triage


def test_allure_results_carry_epic_feature_story_and_source_link(bearer_fault_run: SharedRun) -> None:
    import json

    alluredir = bearer_fault_run.alluredir
    every = [json.loads(p.read_text()) for p in alluredir.glob("*-result.json")]
    assert len(every) == 3  # one result per rule run (the three auth rules)
    results = [r for r in every if r["name"].startswith("presentations.auth.bearer-rejected")]
    assert len(results) == 1
    labels = {(label["name"], label["value"]) for label in results[0]["labels"]}
    assert {("epic", "presentations"), ("feature", "GET /themes"),
            ("story", "presentations.auth.bearer-rejected")} <= labels
    assert results[0]["links"][0]["url"].endswith("volume-1.md#b-presentation-generation-service-4")
    names = {a["name"] for a in results[0]["attachments"]}
    assert names == {"request (redacted)", "response", "reproduce with curl"}
    curl = next(a for a in results[0]["attachments"] if a["name"] == "reproduce with curl")
    text = (alluredir / curl["source"]).read_text()
    assert "conformance serve presentations --port 8080 --fault accepts-bearer" in text
    assert "${CONFORMANCE_PRESENTATIONS_API_KEY}" in text and "presentations.sim.invalid" not in text
    assert (alluredir / "categories.json").is_file()


def test_allure_results_are_named_by_rule_id_and_stable_across_runs(pytester: pytest.Pytester) -> None:
    """History, trends, "new failed" and "fixed" need one identity per rule that survives runs."""
    import json

    ids = []
    for run in ("one", "two"):
        alluredir = pytester.path / run
        _run(pytester, "-k", "auth", "--alluredir", str(alluredir))
        results = [json.loads(p.read_text()) for p in alluredir.glob("*-result.json")]
        assert {r["fullName"] for r in results} == {
            f"conformance.presentations#presentations.auth.{name}"
            for name in ("key-required", "invalid-key", "bearer-rejected")}
        ids.append({r["fullName"]: (r["historyId"], r["testCaseId"]) for r in results})
        assert len({h for h, _ in ids[-1].values()}) == len(results)
    assert ids[0] == ids[1]


def test_http_target_without_base_url_is_a_clear_error(pytester: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONFORMANCE_PRESENTATIONS_BASE_URL", raising=False)
    result = _run(pytester, "--target", "http", "-k", "key-required")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*HARNESS ERROR*CONFORMANCE_PRESENTATIONS_BASE_URL*"])
    assert "Traceback" not in result.stdout.str()


def test_unreachable_http_target_is_a_harness_error_not_a_failure(unreachable_run: SharedRun) -> None:
    alluredir = unreachable_run.alluredir
    result = unreachable_run.result
    result.stdout.fnmatch_lines(["*HARNESS ERROR*TargetUnreachable*"])
    # In the report it is broken (a test error), not failed (a product error).
    import json

    [written] = [json.loads(p.read_text()) for p in alluredir.glob("*-result.json")]
    assert written["status"] == "broken" and "HARNESS ERROR" in written["statusDetails"]["message"]
    env = (alluredir / "environment.properties").read_text()
    assert "base_url.presentations=http://127.0.0.1:9" in env and "tool.hypothesis=" in env


def test_junit_classes_rules_by_service_and_operation_with_properties_and_errors(
        bearer_fault_run: SharedRun, unreachable_run: SharedRun) -> None:
    """One testcase per rule, classed conformance.<service>.<operation> (not one flat test_rules
    list), in one suite per service, carrying the rule's service, operation, kind and source as
    text (the XSD allows no testcase properties); a harness error is <error>."""
    import xml.etree.ElementTree as ET

    junit = bearer_fault_run.junit
    root = ET.parse(junit).getroot()
    assert violations(root) == []  # the JUnit XSD's shape (test_junit.py), a failure in the file
    assert root.tag == "testsuites" and [s.get("name") for s in root] == ["conformance.presentations"]
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {f"presentations.auth.{n}" for n in ("key-required", "invalid-key", "bearer-rejected")}
    bearer = cases["presentations.auth.bearer-rejected"]
    assert bearer.get("classname") == "conformance.presentations.GET /themes"
    assert bearer.find("properties") is None
    assert bearer.findtext("system-out", "").splitlines()[:4] == [
        "service: presentations", "operation: GET /themes", "kind: auth",
        "source: docs/spec/volume-1.md#b-presentation-generation-service-4"]
    failure = bearer.find("failure")
    assert failure is not None and bearer.find("error") is None  # the target's fault
    # The header that is the point of the rule, and a runnable curl line, both redacted.
    assert "headers:  authorization: Bearer REDACTED" in (failure.text or "")
    assert 'curl:     curl -sS -X GET http://127.0.0.1:8080/v1.0/themes -H "authorization: Bearer ${' in (
        failure.text or "")
    junit = unreachable_run.junit
    [case] = ET.parse(junit).iter("testcase")
    assert case.find("failure") is None and "HARNESS ERROR" in case.find("error").get("message", "")
    suite = next(ET.parse(junit).iter("testsuite"))
    assert (suite.get("errors"), suite.get("failures")) == ("1", "0")


def test_live_target_rule_that_would_spend_needs_an_allowance(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_PRESENTATIONS_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("CONFORMANCE_PRESENTATIONS_API_KEY", "k")
    result = _run(pytester, "--target", "http", "-k", "key-required")
    result.stdout.fnmatch_lines(["*SKIP*key-required*POST /generations would spend*--allow spend*"])


def test_unchecked_rule_is_skipped_not_passed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.contract import Rule
    from conformance.errors import SkipKind
    from conformance.runner import SKIPPED, Case, run_case

    rule = Rule(id="presentations.x.y", kind="state", statement="s", source=None)  # type: ignore[arg-type]
    outcome = run_case(Case("presentations", rule, None), target=None)  # type: ignore[arg-type]
    assert outcome.status == SKIPPED and outcome.skip_kind == SkipKind.UNCHECKED


def test_rules_are_selectable_by_service_kind_and_basis_markers(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--co", "-q", "-m", "presentations and auth")
    result.stdout.fnmatch_lines(["*presentations.auth.*"])
    assert "presentations.generate" not in result.stdout.str()
    assert "PytestUnknownMarkWarning" not in result.stdout.str()


def test_a_log_shows_progress_lines_with_counts_instead_of_dots(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "-q", "-k", "auth or paging", "-o", "console_output_style=classic")
    out = result.stdout.str()
    assert "[0/5] starting" in out and "[5/5] 5 passed" in out and " done" in out
    assert "....." not in out  # counted in the progress line, not printed as dots
    off = _run(pytester, "-q", "-k", "auth or paging", "-o", "console_output_style=classic",
               "--conformance-progress", "off")
    assert "....." in off.stdout.str() and "[5/5]" not in off.stdout.str()


def test_the_live_line_is_rewritten_in_place_and_cleared() -> None:
    from conformance.reporting.progress import Progress

    written: list[str] = []

    class Out:
        def write(self, content: str, *, flush: bool = False) -> None:
            written.append(content)

    progress = Progress(total=3, out=Out(), live=True, width=60)
    for rule, status in (("a.x.one", "passed"), ("a.x.two", "failed"), ("b.y.three", "skipped")):
        progress.start(rule)
        progress.finish(rule, status)
    progress.close()
    assert all(w.startswith("\r") for w in written[:-1]) and "a.x.two" in written[1]
    assert written[-1].startswith("[3/3] 1 passed, 1 failed, 1 skipped") and written[-1].endswith("done\n")
    assert max(len(w.strip("\r\n")) for w in written) <= 60


def test_a_log_hears_from_a_long_rule_every_heartbeat() -> None:
    """In a CI log a rule that takes minutes (a rate-limit window at a served simulator's real
    clock) still prints a line every 30 s; the clock is given, so no test waits for it."""
    from conformance.reporting.progress import Progress

    written: list[str] = []

    class Out:
        def write(self, content: str, *, flush: bool = False) -> None:
            written.append(content)

    progress = Progress(total=2, out=Out(), live=False, heartbeat=30.0, beating=False)  # the test beats
    progress.start("a.rate.burst")
    started = progress._last_line
    assert not progress.beat(started + 29.0)
    assert progress.beat(started + 31.0) and written[-1].endswith("a.rate.burst (still running)\n")
    assert not progress.beat(progress._last_line + 1.0)  # the beat itself is a line: the next is 30 s on
    progress.finish("a.rate.burst", "passed")
    progress.start("a.rate.last")
    progress.finish("a.rate.last", "passed")
    assert not progress.beat(progress._last_line + 60.0)  # all done: the session may go on, the run has not
    progress.close()
