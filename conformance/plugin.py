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

from conformance import interrupts
from conformance.contract import Contract, load_contract
from conformance.contract.catalogue_schema import DERIVED_KINDS, RULE_KINDS
from conformance.contract.loader import available_services, docs_dir
from conformance.errors import UsageError
from conformance.layout import cassettes_dir
from conformance.parallel import ParallelRun, is_worker, rule_of, run_started
from conformance.reporting.allure_files import drop_childless_containers
from conformance.reporting.allure_meta import HARNESS_ERROR_MARK
from conformance.reporting.progress import Progress
from conformance.reporting.redact import curl_line, render_request, render_response
from conformance.reporting.summary import RunSummary
from conformance.reporting.text import visible
from conformance.runner import ERROR, FAILED, INTERRUPTED, SKIPPED, Case, Outcome, collect_cases, interrupted, run_case
from conformance.services import target_for
from conformance.settings import MIN_CHECKED_DEFAULTS, PROFILES, RECORD_MODES, TARGETS, MinChecked, RunSettings
from conformance.targets import Target, base_urls
from conformance.targets.sim import SimTarget
from conformance.transport.scrub import REDACTED, scrub_headers

__all__ = ["pytest_addoption", "pytest_configure", "pytest_generate_tests"]

_SUMMARY = pytest.StashKey[RunSummary]()
_TARGETS = pytest.StashKey[dict[str, Target]]()
_PROGRESS = pytest.StashKey[Progress]()
_SELECTED = pytest.StashKey[dict[str, set[str]]]()  # service -> rule ids selected for the run


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # Registered now, not at configure: its pytest_configure must run before allure-pytest's.
    drop_childless_containers()  # the same: before allure-pytest builds its file logger
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
    group.addoption("--conformance-progress", dest="conformance_progress",
                    choices=("auto", "live", "lines", "off", "quiet"),
                    default="auto", help="progress line: live on a terminal, a line per service and every 25 rules "
                                         "in a log (auto), off (pytest's dots) or quiet (neither)")
    group.addoption("--conformance-every-rule", dest="conformance_every_rule", action="store_true",
                    help="the per-rule summary lists every rule (default: only what did not pass, and the totals)")
    group.addoption("--cassette-dir", dest="conformance_cassettes", default=str(cassettes_dir()),
                    help="where cassettes live (default: the project's cassettes/)")
    group.addoption("--report-dir", dest="conformance_reports", default="reports",
                    help="where summary.json and triage.md are written (default: reports)")
    group.addoption("--min-checked", dest="conformance_min_checked", default=None,
                    help="least share of selected rules checked (passed or failed): a percentage (80%%) or a "
                         "count; default CONFORMANCE_MIN_CHECKED, else by profile "
                         + ", ".join(f"{p} {v}" for p, v in MIN_CHECKED_DEFAULTS.items()))


def _floor(config: pytest.Config, profile: str) -> MinChecked:
    given = config.getoption("conformance_min_checked")
    if given:
        return MinChecked.parse(given)
    env = os.environ.get("CONFORMANCE_MIN_CHECKED")
    if env:
        return MinChecked.parse(env, "CONFORMANCE_MIN_CHECKED")
    return MinChecked.parse(MIN_CHECKED_DEFAULTS[profile])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: a rule of a service contract checked against a target")
    # `-m tokenrisk`, `-m "limit and not marketplace"`, `-m standard`: select rules by service,
    # rule kind or basis without knowing rule ids.
    try:
        _floor(config, config.getoption("conformance_profile") or os.environ.get("CONFORMANCE_PROFILE") or "gate")
    except (UsageError, KeyError) as exc:
        raise pytest.UsageError(str(exc)) from None
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
    summary = RunSummary(conformance_settings.target, conformance_settings.profile,
                         floor=_floor(pytestconfig, conformance_settings.profile))
    selected = pytestconfig.stash.get(_SELECTED, None)
    if selected is not None:
        summary.select([load_contract(s) for s in selected], {r for ids in selected.values() for r in ids})
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
    prefix = f"CONFORMANCE_{target.service.upper()}_"
    if isinstance(target, SimTarget):
        fault = f" --fault {settings.fault}" if settings.fault else ""
        fault += "".join(f" --option {name}={value}" for name, value in sorted(target.serve_options().items()))
        return (f"http://127.0.0.1:{_SERVE_PORT}",
                f"# The in-process simulator, served: conformance serve {target.service} --port {_SERVE_PORT}{fault}\n"
                f"# then export the {prefix}* lines it prints: the line reads each key from its variable.\n")
    if target.name == "replay":
        return None, ("# Replayed from a cassette: the host below is a placeholder. Against a live target, put\n"
                      f"# its base URL there and set the {prefix}* variables the line names.\n")
    return None, (f"# The line reads each key from the {prefix}* variable it names (set as for this run);\n"
                  "# credentials never reach a report.\n")


def _credential_variables(target: Target) -> dict[str, str]:
    """Each secret credential value the target sends -> the variable ``conformance env`` names for it."""
    from conformance.settings import env_name

    out = {}
    for cred in target.contract.settings.get("credentials", []):
        value = target.credential(cred["name"])
        # Replay sends REDACTED for every secret; shorter values would match ordinary text.
        if cred.get("secret", True) and value and value != REDACTED and len(value) >= 4:
            out[value] = env_name(target.service, cred["name"])
    return out


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
    allure.attach(curl_line(exchange, secrets, base_url=base_url, preamble=preamble,
                            env=_credential_variables(target)), "reproduce with curl",
                  allure.attachment_type.TEXT)


def _reproduce(outcome: Outcome, target: Target, settings: RunSettings) -> str:
    """The failing request's headers and a runnable curl line, redacted, under the failure: the
    headers are often the point of the rule (a bearer sent where a key belongs), and the console
    and JUnit are where CI readers look first (Allure has them as attachments too)."""
    exchange = outcome.failure.exchange if outcome.failure else None
    if exchange is None:
        return ""
    headers = scrub_headers(exchange.request.headers, outcome.secrets)
    base_url, _ = _reproduction(target, settings)
    sent = "; ".join(f"{name}: {value}" for name, value in headers.items() if name not in ("content-length", "host"))
    curl = curl_line(exchange, outcome.secrets, base_url=base_url, env=_credential_variables(target))
    return visible(f"\n  headers:  {sent}\n  curl:     {curl}")


@pytest.fixture(scope="session")
def conformance_check(conformance_settings: RunSettings, conformance_summary: RunSummary,
                      conformance_targets: dict[str, Target], pytestconfig: pytest.Config) -> Any:
    """Runs one case on the configured target and turns its outcome into a pytest result.
    Session-scoped (it holds nothing of a rule): allure-pytest wrote a fixture container per rule
    for it and set it up again each time, 0.8 s of a replay's 6.4 s of CPU (issue 31)."""

    def run(case: Case) -> None:
        __tracebackhide__ = True
        contract = load_contract(case.service)
        if case.service not in conformance_targets:
            conformance_targets[case.service] = target_for(contract, conformance_settings)
            conformance_summary.note_target(case.service, conformance_targets[case.service].missing_required())
        target = conformance_targets[case.service]
        conformance_summary.begin()
        _label(contract, case, conformance_settings)
        _name_by_rule(pytestconfig, case)
        try:
            interrupts.checkpoint("rule")
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
            pytest.fail(outcome.message + _reproduce(outcome, target, conformance_settings), pytrace=False)
        if outcome.status == ERROR:
            pytest.fail(f"{HARNESS_ERROR_MARK} (not a target failure): {outcome.message}", pytrace=False)

    return run


_rule_of = rule_of


_JUNIT_CLASSES = pytest.StashKey[dict[str, str]]()


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each rule's testcase in JUnit XML carries its service, operation, kind and source
    (pytest's user_properties), and is classed by service and operation (reporting/junit.py)."""
    from conformance.reporting.junit import classname

    classes = config.stash.setdefault(_JUNIT_CLASSES, {})
    for item in items:
        callspec = getattr(item, "callspec", None)
        case = callspec.params.get("conformance_case") if callspec is not None else None
        if not isinstance(case, Case):
            continue
        rule = case.rule
        item.user_properties += [("service", case.service), ("operation", rule.operation or ""),
                                 ("kind", rule.kind), ("source", f"{rule.source.path}#{rule.source.anchor}")]
        classes[case.id] = classname(case.service, rule.operation)


@pytest.hookimpl(trylast=True, specname="pytest_sessionfinish")
def pytest_sessionfinish_junit(session: pytest.Session) -> None:
    """After junitxml wrote its file (trylast): classes by service/operation, harness errors as <error>."""
    from conformance.reporting.junit import rewrite

    xmlpath = getattr(session.config.option, "xmlpath", None)
    classes = session.config.stash.get(_JUNIT_CLASSES, None)
    if xmlpath and classes:
        rewrite(Path(xmlpath), classes)


def _report_dir(config: pytest.Config) -> Path:
    return Path(config.getoption("conformance_reports"))


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    selected: dict[str, set[str]] = {}
    for item in session.items:
        case = getattr(item, "callspec", None) and item.callspec.params.get("conformance_case")  # type: ignore[attr-defined]
        if isinstance(case, Case):
            selected.setdefault(case.service, set()).add(case.id)
    config.stash[_SELECTED] = selected
    interrupts.checkpoint("collected")
    # Under xdist the controller collects nothing: parallel.py starts the line from the workers' collection.
    _start_progress(config, sum(1 for item in session.items if _rule_of(item.nodeid)))


def _start_progress(config: pytest.Config, total: int) -> None:
    mode = config.getoption("conformance_progress")
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if (mode == "off" or not total or reporter is None or config.get_verbosity() > 0 or config.option.collectonly
            or is_worker(config)):
        return
    if mode == "quiet":  # counted, not shown: neither a line nor a dot (run -q)
        config.stash[_PROGRESS] = Progress(total=total, out=_Silent(), live=False, beating=False)
        return
    live = mode == "live" or (mode == "auto" and bool(getattr(reporter, "isatty", False)))
    reporter.write_line("")
    config.stash[_PROGRESS] = Progress(total=total, out=reporter, live=live)


class _Silent:
    def write(self, content: str, *, flush: bool = False) -> None:
        pass


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
    # A signal whose KeyboardInterrupt was swallowed (a __del__, a plugin's except) stops here.
    interrupts.stop_if_pending()
    progress = item.config.stash.get(_PROGRESS, None)
    rule = _rule_of(item.nodeid)
    if progress is not None and rule is not None:
        progress.start(rule)


@pytest.hookimpl(tryfirst=True)
def pytest_keyboard_interrupt(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """Before pytest's terminal formats the interrupt: drop frames that carry no line number.
    On Python 3.11+ a signal can land on an instruction without one (``tb_lineno`` is None), and
    pytest's ``TracebackEntry.lineno`` then raises TypeError: the run ended exit 1 with a
    traceback instead of 130 (seen once on two busy cores; pytest-dev/pytest-xdist#1196 shows it)."""
    excinfo.traceback = excinfo.traceback.filter(lambda entry: entry._rawentry.tb_lineno is not None)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_logfinish(nodeid: str, location: Any) -> Any:
    """allure-pytest writes the rule's result file here: a signal waits until it is whole."""
    with interrupts.deferred():
        interrupts.checkpoint("allure-result")
        return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    # The rules are done: from here a signal is recorded (the exit status says so), not raised
    # into the writing of the reports.
    interrupts.stop_raising()
    summary = session.config.stash.get(_SUMMARY, None) or _controller_summary(session.config)
    if summary is not None:
        summary.interrupted = interrupts.received() or summary.interrupted
        # Before junitxml writes its file (its sessionfinish runs after this tryfirst one).
        _junit_properties(session.config, summary)


def _controller_summary(config: pytest.Config) -> RunSummary | None:
    """Under xdist, on the controller: the workers' outcomes as one summary with what a serial run
    knows from its own collection (the selection, so `checked N of M` and the floor are the same;
    the JUnit classes). Built before junitxml writes, so its properties hold the merged share."""
    par = config.pluginmanager.get_plugin("conformance-parallel")
    summary = par.merged(config) if isinstance(par, ParallelRun) else None
    if summary is None:
        return None
    from conformance.reporting.junit import classname

    summary.floor = _floor(config, summary.profile)
    selected = par.selected() if isinstance(par, ParallelRun) else {}
    contracts = [load_contract(s) for s in selected]
    summary.select(contracts, {r for ids in selected.values() for r in ids})
    classes = config.stash.setdefault(_JUNIT_CLASSES, {})
    for contract in contracts:
        for rule in contract.rules:
            if rule.id in selected[contract.service]:
                classes[rule.id] = classname(contract.service, rule.operation)
    config.stash[_SUMMARY] = summary
    return summary


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    interrupts.stop_raising()
    progress = config.stash.get(_PROGRESS, None)
    if progress is not None:
        progress.close()
    summary = config.stash.get(_SUMMARY, None)
    if summary is None or not summary.outcomes or is_worker(config):
        return  # a worker's outcomes reach the report through the controller (parallel.py)
    summary.interrupted = interrupts.received() or summary.interrupted
    terminalreporter.section("conformance: per-rule summary")
    for line in summary.lines(every_rule=config.getoption("conformance_every_rule")):
        terminalreporter.write_line(line)
    share = summary.share()
    terminalreporter.write_line(f"conformance: {share.line()}", bold=True)
    report_dir = Path(config.getoption("conformance_reports"))
    try:
        interrupts.checkpoint("summary")
        written = summary.write(report_dir)
        interrupts.checkpoint("allure-extras")
        _write_allure_extras(config, summary, written)
    except OSError as exc:
        terminalreporter.write_line(f"could not write the report to {report_dir}: {exc.strerror}")
        return
    terminalreporter.write_line(f"summary: {report_dir / 'summary.json'}; triage: {report_dir / 'triage.md'}")


def _junit_properties(config: pytest.Config, summary: RunSummary) -> None:
    """The checked share as testsuite-level properties of junit.xml (CI systems show them)."""
    key = _junit_xml_key()
    xml = config.stash.get(key, None) if key is not None else None
    if xml is None:
        return
    share = summary.share()
    props = {"conformance.checked": share.checked, "conformance.rules": share.total,
             "conformance.checked_line": share.line(), "conformance.floor": share.floor or "none",
             "conformance.floor_met": share.met}
    props.update({f"conformance.not_checked.{k}": n for k, n in share.not_checked.items()})
    for name, value in props.items():
        xml.add_global_property(name, str(value))


def _junit_xml_key() -> Any:
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pytest moved it: the properties are then left out, the run is unchanged
        return None
    return xml_key


def _write_allure_extras(config: pytest.Config, summary: RunSummary, summary_json: dict[str, Any]) -> None:
    from conformance.reporting.allure_meta import write_results_extras

    alluredir = config.getoption("allure_report_dir", None)
    if not alluredir:
        return
    path = Path(alluredir)
    path.mkdir(parents=True, exist_ok=True)
    _mark_broken(path, summary)
    targets: dict[str, Target] = config.stash.get(_TARGETS, {})
    write_results_extras(path, summary_json, base_urls(targets))


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
