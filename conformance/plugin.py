"""The pytest plugin (entry point ``pytest11``): options, one test item per rule, Allure labels,
the per-rule summary.

The conformance suite (``conformance/suites``) is a single parametrized test; everything about
a rule (its check, its skip reason, its labels) comes from the contract through this plugin.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from conformance.contract import Contract, load_contract
from conformance.contract.catalogue_schema import DERIVED_KINDS, RULE_KINDS
from conformance.contract.loader import available_services, docs_dir
from conformance.parallel import ParallelRun, is_worker, rule_of, run_started
from conformance.reporting.allure_meta import HARNESS_ERROR_MARK
from conformance.reporting.progress import Progress
from conformance.reporting.redact import curl_line, render_request, render_response
from conformance.reporting.summary import RunSummary
from conformance.runner import ERROR, FAILED, INTERRUPTED, SKIPPED, Case, Outcome, collect_cases, interrupted, run_case
from conformance.services import target_for
from conformance.settings import PROFILES, RECORD_MODES, TARGETS, RunSettings
from conformance.targets import Target
from conformance.targets.base import SimTarget

__all__ = ["pytest_addoption", "pytest_configure", "pytest_generate_tests"]

_SUMMARY = pytest.StashKey[RunSummary]()
_TARGETS = pytest.StashKey[dict[str, Target]]()
_PROGRESS = pytest.StashKey[Progress]()


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # Registered now, not at configure: its pytest_configure must run before allure-pytest's.
    pluginmanager.register(ParallelRun(_SUMMARY, _TARGETS, _PROGRESS, _start_progress, _report_dir),
                           "conformance-parallel")
    group = parser.getgroup("conformance", "API conformance suites")
    group.addoption("--service", action="append", dest="conformance_services", default=None,
                    help="service id to check (repeatable); default: every service with a contract")
    group.addoption("--target", dest="conformance_target", choices=TARGETS, default=None,
                    help="sim (default), http (CONFORMANCE_<ID>_BASE_URL) or replay (cassettes)")
    group.addoption("--profile", dest="conformance_profile", choices=PROFILES, default=None,
                    help="gate (default: derandomized, bounded) or nightly (deep, random)")
    group.addoption("--record", dest="conformance_record", action="store_true",
                    help="record each rule's traffic into cassettes/<id>/<rule>.yaml afresh (scrubbed); "
                         "= --record-mode rewrite")
    group.addoption("--record-mode", dest="conformance_record_mode", choices=RECORD_MODES, default=None,
                    help="pytest-recording's modes: none (default), once, new_episodes, all, rewrite")
    group.addoption("--fault", dest="conformance_fault", default=None,
                    help="apply a named fault to the simulator (see `conformance selftest --list`)")
    group.addoption("--allow", dest="conformance_allow", action="append", choices=("spend", "write"), default=None,
                    help="on --target http, allow rules that spend credits or write vendor data (repeatable)")
    group.addoption("--conformance-progress", dest="conformance_progress", choices=("auto", "live", "lines", "off"),
                    default="auto", help="progress line: live on a terminal, a line per service and every 25 rules "
                                         "in a log (auto), or off (pytest's dots)")
    group.addoption("--cassette-dir", dest="conformance_cassettes", default="cassettes",
                    help="where cassettes live (default: cassettes)")
    group.addoption("--report-dir", dest="conformance_reports", default="reports",
                    help="where summary.json and triage.md are written (default: reports)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: a rule of a service contract checked against a target")
    # `-m tokenrisk`, `-m "limit and not marketplace"`, `-m standard`: select rules by service,
    # rule kind or basis without knowing rule ids.
    for name in (*available_services(), *RULE_KINDS, *DERIVED_KINDS, "document", "standard"):
        config.addinivalue_line("markers", f"{name}: conformance rules of that service, kind or basis")


def _settings(config: pytest.Config) -> RunSettings:
    return RunSettings.from_env(
        target=config.getoption("conformance_target"),
        profile=config.getoption("conformance_profile"),
        record=config.getoption("conformance_record") or None,
        record_mode=config.getoption("conformance_record_mode"),
        fault=config.getoption("conformance_fault"),
        cassette_dir=config.getoption("conformance_cassettes"),
        allow=frozenset(config.getoption("conformance_allow") or ()) or None,
        run_started=run_started(config),
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "conformance_case" not in metafunc.fixturenames:
        return
    services = metafunc.config.getoption("conformance_services") or available_services()
    cases: list[Any] = []
    for service in services:
        contract = load_contract(service)
        for case in collect_cases(contract):
            marks = [pytest.mark.conformance, getattr(pytest.mark, service), getattr(pytest.mark, case.rule.kind),
                     getattr(pytest.mark, case.rule.basis)]
            cases.append(pytest.param(case, id=case.id, marks=marks))
    metafunc.parametrize("conformance_case", cases)


@pytest.fixture(scope="session")
def conformance_settings(pytestconfig: pytest.Config) -> RunSettings:
    return _settings(pytestconfig)


@pytest.fixture(scope="session")
def conformance_summary(pytestconfig: pytest.Config, conformance_settings: RunSettings) -> RunSummary:
    summary = RunSummary(conformance_settings.target, conformance_settings.profile)
    pytestconfig.stash[_SUMMARY] = summary
    return summary


@pytest.fixture(scope="session")
def conformance_targets(pytestconfig: pytest.Config) -> dict[str, Target]:
    targets: dict[str, Target] = {}
    pytestconfig.stash[_TARGETS] = targets
    return targets


def _source_url(contract: Contract, case: Case) -> str:
    base = os.environ.get("CONFORMANCE_DOCS_URL")
    source = case.rule.source
    if base:
        return f"{base.rstrip('/')}/{source.doc}#{source.anchor}"
    return (docs_dir() / source.doc).resolve().as_uri() + f"#{source.anchor}"


def _label(contract: Contract, case: Case, settings: RunSettings) -> None:
    import allure

    rule = case.rule
    allure.dynamic.epic(contract.service)
    allure.dynamic.feature(rule.operation or rule.kind)
    allure.dynamic.story(rule.id)
    # The suites tree too (not one "test_rules" node): service / operation / rule kind.
    allure.dynamic.parent_suite(contract.service)
    allure.dynamic.suite(rule.operation or "(whole service)")
    allure.dynamic.sub_suite(rule.kind)
    allure.dynamic.tag(rule.kind)
    # Document rules and rules resting on a standard the document points to, told apart.
    allure.dynamic.tag(f"basis:{rule.basis}")
    if rule.standard:
        allure.dynamic.label("standard", rule.standard)
    allure.dynamic.title(f"{rule.id}: {rule.statement}")
    allure.dynamic.description(
        f"{rule.statement}\n\nSource: {rule.source.text()}\n\nTarget: {settings.target}, profile {settings.profile}"
    )
    allure.dynamic.link(_source_url(contract, case), name=f"source: {rule.source.text()}")


def _name_by_rule(config: pytest.Config, case: Case) -> None:
    """Allure's full name and test case id by rule id, not the one pytest function every rule
    runs through: history, trends, "new failed" and "fixed" then follow a rule across runs.
    allure-pytest offers no dynamic API for these; its listener holds the current result
    (historyId is computed from fullName at teardown, so it follows)."""
    listener = config.pluginmanager.get_plugin("allure_listener")
    if listener is None:
        return
    result = listener.allure_logger.get_test(None)
    if result is not None:
        result.fullName = f"conformance.{case.service}#{case.id}"
        result.testCaseId = hashlib.md5(result.fullName.encode()).hexdigest()  # noqa: S324 (an id, as allure's)


_SERVE_PORT = 8080


def _reproduction(target: Target, settings: RunSettings) -> tuple[str | None, str]:
    """Where the curl line can reach what this run talked to, and how to get it there."""
    if isinstance(target, SimTarget):
        fault = f" --fault {settings.fault}" if settings.fault else ""
        fault += "".join(f" --option {name}={value}" for name, value in sorted(target.serve_options().items()))
        return (f"http://127.0.0.1:{_SERVE_PORT}",
                f"# The in-process simulator, served: conformance serve {target.service} --port {_SERVE_PORT}{fault}\n"
                "# Put the key it prints where the line says REDACTED.\n")
    if target.name == "replay":
        return None, ("# Replayed from a cassette: the host below is a placeholder. Against a live target, put\n"
                      "# its base URL there and its key where the line says REDACTED.\n")
    return None, "# Put the key where the line says REDACTED (credentials never reach a report).\n"


def _attach(outcome: Outcome, target: Target, settings: RunSettings) -> None:
    import allure

    exchange = outcome.failure.exchange if outcome.failure and outcome.failure.exchange else (
        outcome.exchanges[-1] if outcome.exchanges else None)
    if exchange is None:
        return
    secrets = outcome.secrets
    allure.attach(render_request(exchange, secrets), "request (redacted)", allure.attachment_type.TEXT)
    allure.attach(render_response(exchange, secrets), "response", allure.attachment_type.TEXT)
    base_url, preamble = _reproduction(target, settings)
    allure.attach(curl_line(exchange, secrets, base_url=base_url, preamble=preamble), "reproduce with curl",
                  allure.attachment_type.TEXT)


@pytest.fixture
def conformance_check(conformance_settings: RunSettings, conformance_summary: RunSummary,
                      conformance_targets: dict[str, Target], pytestconfig: pytest.Config) -> Any:
    """Runs one case on the configured target and turns its outcome into a pytest result."""

    def run(case: Case) -> None:
        __tracebackhide__ = True
        contract = load_contract(case.service)
        if case.service not in conformance_targets:
            conformance_targets[case.service] = target_for(contract, conformance_settings)
            conformance_summary.note_target(case.service, conformance_targets[case.service].missing_required())
        target = conformance_targets[case.service]
        _label(contract, case, conformance_settings)
        _name_by_rule(pytestconfig, case)
        try:
            outcome = run_case(case, target, conformance_settings.profile)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the rule is interrupted, never passed
            conformance_summary.add(contract, interrupted(case, target))
            raise
        conformance_summary.add(contract, outcome)
        if outcome.status in (FAILED, ERROR):
            _attach(outcome, target, conformance_settings)
        if outcome.status == SKIPPED:
            # The kind leads the message: report categories match on it, not on the wording.
            kind = outcome.skip_kind.value if outcome.skip_kind else "not-exercised"
            pytest.skip(f"[{kind}] {outcome.message}")
        if outcome.status == FAILED:
            pytest.fail(outcome.message, pytrace=False)
        if outcome.status == ERROR:
            pytest.fail(f"{HARNESS_ERROR_MARK} (not a target failure): {outcome.message}", pytrace=False)

    return run


_rule_of = rule_of


def _report_dir(config: pytest.Config) -> Path:
    return Path(config.getoption("conformance_reports"))


def pytest_collection_finish(session: pytest.Session) -> None:
    # Under xdist the controller collects nothing: parallel.py starts the line from the workers' collection.
    _start_progress(session.config, sum(1 for item in session.items if _rule_of(item.nodeid)))


def _start_progress(config: pytest.Config, total: int) -> None:
    mode = config.getoption("conformance_progress")
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if (mode == "off" or not total or reporter is None or config.get_verbosity() > 0 or config.option.collectonly
            or is_worker(config)):
        return
    live = mode == "live" or (mode == "auto" and bool(getattr(reporter, "isatty", False)))
    reporter.write_line("")
    config.stash[_PROGRESS] = Progress(total=total, out=reporter, live=live)


@pytest.hookimpl(wrapper=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    """With the progress line on, a rule's result is counted there, not printed as a dot."""
    result = yield
    progress = config.stash.get(_PROGRESS, None)
    rule = _rule_of(report.nodeid)
    if progress is None or rule is None or not isinstance(result, tuple) or not result[1]:
        return result
    category, _letter, word = result
    progress.finish(rule, {"passed": "passed", "skipped": "skipped"}.get(category, "failed")
                    if report.when == "call" or category == "skipped" else "error")
    return category, "", word


def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    progress = item.config.stash.get(_PROGRESS, None)
    rule = _rule_of(item.nodeid)
    if progress is not None and rule is not None:
        progress.start(rule)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    progress = config.stash.get(_PROGRESS, None)
    if progress is not None:
        progress.close()
    summary = config.stash.get(_SUMMARY, None)
    if summary is None or not summary.outcomes or is_worker(config):
        return  # a worker's outcomes reach the report through the controller (parallel.py)
    terminalreporter.section("conformance: per-rule summary")
    for line in summary.lines():
        terminalreporter.write_line(line)
    report_dir = Path(config.getoption("conformance_reports"))
    try:
        written = summary.write(report_dir)
        _write_allure_extras(config, summary, written)
    except OSError as exc:
        terminalreporter.write_line(f"could not write the report to {report_dir}: {exc.strerror}")
        return
    terminalreporter.write_line(f"summary: {report_dir / 'summary.json'}; triage: {report_dir / 'triage.md'}")


def _write_allure_extras(config: pytest.Config, summary: RunSummary, summary_json: dict[str, Any]) -> None:
    from conformance.reporting.allure_meta import write_results_extras

    alluredir = config.getoption("allure_report_dir", None)
    if not alluredir:
        return
    path = Path(alluredir)
    path.mkdir(parents=True, exist_ok=True)
    _mark_broken(path, summary)
    targets = config.stash.get(_TARGETS, {})
    base_urls = {}
    for service, target in targets.items():
        try:
            base_urls[service] = target.base_url()
        except Exception:  # noqa: BLE001 (a target without a usable URL already failed its rules)
            continue
    write_results_extras(path, summary_json, base_urls)


def _mark_broken(alluredir: Path, summary: RunSummary) -> None:
    """A harness error is broken, not failed: the target was not judged (Allure's "Test errors",
    not "Product errors"). allure-pytest writes every ``pytest.fail`` as failed, and a rule
    stopped by Ctrl-C or SIGTERM as passed (pytest never reports it): both are rewritten here."""
    import json

    broken = {o.case_id: o for o in summary.outcomes.values() if o.status in (INTERRUPTED, ERROR)}
    if not broken:
        return
    for result in alluredir.glob("*-result.json"):
        try:
            data = json.loads(result.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        rule_id = str(data.get("name", "")).split(":", 1)[0]
        outcome = broken.get(rule_id)
        if outcome is None:
            continue
        data["status"] = "broken"
        if outcome.status == INTERRUPTED:
            data["statusDetails"] = {"message": "interrupted (Ctrl-C or SIGTERM) while running: not checked"}
        result.write_text(json.dumps(data), encoding="utf-8")
