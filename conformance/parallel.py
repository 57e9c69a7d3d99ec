"""The conformance suite under pytest-xdist (``pytest -n N``, ``conformance run --jobs N``).

One service's rules run in one worker, in the serial order (``ServiceScheduling``): its rate
limit, spend budget, circuit breaker and state stay whole. Each worker writes what it checked to
its own file, ``<report dir>/workers/<worker id>/outcomes.jsonl`` (a line when a rule starts and
one when it ends), so no two processes write the same file and a worker that dies leaves what it
finished. The controller (the process without ``workerinput``) shows the progress line from the
reports workers send, and at the end reads every worker's file into one ``RunSummary``: the
plugin then writes summary.json, triage.md and the Allure extras from it as in a serial run.
junit.xml is written by the controller (pytest's junitxml never writes on workers); allure-pytest
writes one file per test from every worker into the one results directory.

Bounds: each worker reads the same limits; the run deadline counts from the controller's start
(``workerinput["conformance_run_started"]``). Ctrl-C or SIGTERM on the controller sends SIGINT to
every worker, so each stops its running rule as a serial run does (reported interrupted).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

from conformance import interrupts
from conformance.contract import load_contract
from conformance.errors import SkipKind
from conformance.reporting.summary import RunSummary
from conformance.runner import INTERRUPTED, Outcome
from conformance.targets import base_urls

__all__ = ["ParallelRun", "ServiceScheduling", "is_worker", "rule_of", "run_started"]

_RUN_STARTED = "conformance_run_started"
_STARTED_KEY = pytest.StashKey[float]()


def rule_of(nodeid: str) -> str | None:
    """The rule id of a conformance item (``...::test_rule[<rule id>]``), else None."""
    if "::test_rule[" not in nodeid:
        return None
    return nodeid.rsplit("[", 1)[1].rstrip("]")


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def run_started(config: pytest.Config) -> float:
    """Wall-clock time the run started: on a worker, the controller's (so CONFORMANCE_RUN_SECONDS
    bounds the whole run, not each worker from its own start)."""
    if is_worker(config):
        started = config.workerinput.get(_RUN_STARTED)  # type: ignore[attr-defined]
        if isinstance(started, (int, float)):
            return float(started)
    return config.stash.setdefault(_STARTED_KEY, time.time())


class ServiceScheduling(LoadScopeScheduling):
    """xdist's scope scheduling with one scope per service for conformance rules: a scope is sent
    whole to one worker, in collection (serial) order. Other tests (``pytest tests conformance/suites
    -n 2``) are grouped as ``--dist`` asks: by file, by class or module, else each on its own."""

    def _split_scope(self, nodeid: str) -> str:
        rule = rule_of(nodeid)
        if rule is not None:
            return "conformance service " + rule.split(".", 1)[0]
        dist = self.config.getvalue("dist")
        if dist == "loadfile":
            return nodeid.split("::", 1)[0]
        if dist == "loadgroup" and "@" in nodeid:
            return nodeid.rsplit("@", 1)[1]
        if dist == "loadscope":
            return str(super()._split_scope(nodeid))
        return nodeid  # load, worksteal: no grouping asked


@dataclass(eq=False)  # a plugin: pluggy keeps plugins in sets, so it hashes by identity
class ParallelRun:
    """The xdist hooks, registered by the plugin when pytest-xdist is loaded."""

    summary_key: Any
    targets_key: Any
    progress_key: Any
    start_progress: Callable[[pytest.Config, int], None]
    report_dir: Callable[[pytest.Config], Path]
    _config: pytest.Config | None = None
    _ids: list[str] = field(default_factory=list)
    _written: set[str] = field(default_factory=set)
    _out: Any = None

    # -- controller ------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        # Whatever --dist says: rules of one service must never be split over workers.
        return ServiceScheduling(config, log)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[_RUN_STARTED] = run_started(node.config)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if self._ids:
            return
        self._ids = list(ids)
        total = sum(1 for i in ids if rule_of(i))
        if total:
            self.start_progress(node.config, total)

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        config = self._config
        if config is None:
            return
        if is_worker(config):
            rule = rule_of(nodeid)
            if rule is not None:
                self._record({"event": "start", "rule": rule, "at": time.time()})
            return
        progress = config.stash.get(self.progress_key, None)
        rule = rule_of(nodeid)
        # Serially the plugin's pytest_runtest_protocol starts the rule on the line itself.
        if progress is not None and rule is not None and config.pluginmanager.has_plugin("dsession"):
            progress.start(rule)

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        """Ctrl-C or SIGTERM on the controller: every worker stops its running rule now (SIGINT:
        the rule is reported interrupted and the worker writes what finished), instead of
        running its queue until xdist's exit timeout kills it without a word."""
        config = self._config
        if config is None or is_worker(config):
            return
        for pid_file in (self.report_dir(config) / "workers").glob("*/pid"):
            try:
                pid = int(pid_file.read_text(encoding="utf-8"))
                if pid != os.getpid():
                    os.kill(pid, signal.SIGINT)
            except (OSError, ValueError):
                continue  # the worker is gone already

    def merged(self, config: pytest.Config) -> RunSummary | None:
        """On the controller of an xdist run: one summary from every worker's file (None serially,
        on a worker, or when no worker ran a rule). The plugin adds the floor and the selection."""
        if is_worker(config) or not config.pluginmanager.has_plugin("dsession"):
            return None  # a serial run: the plugin's own summary
        workers = self.report_dir(config) / "workers"
        if not workers.is_dir():
            return None
        from conformance.settings import RunSettings

        settings = RunSettings.from_env(target=config.getoption("conformance_target"),
                                        profile=config.getoption("conformance_profile"))
        summary, base_urls = merge_worker_files(workers, self._ids, settings.target, settings.profile)
        if not summary.outcomes:
            return None
        config.stash[self.targets_key] = {s: _Served(url) for s, url in base_urls.items()}
        return summary

    def selected(self) -> dict[str, set[str]]:
        """Service -> rule ids the workers collected (-k, -m applied): the run's selection, as a
        serial run knows it from its own collection, so the checked share is the same."""
        chosen: dict[str, set[str]] = {}
        for rule in filter(None, map(rule_of, self._ids)):
            chosen.setdefault(rule.split(".", 1)[0], set()).add(rule)
        return chosen

    # -- worker ----------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        self._config = config
        if not is_worker(config):
            run_started(config)
            # A report directory used again: the last run's worker files must not join this run.
            shutil.rmtree(self.report_dir(config) / "workers", ignore_errors=True)
            return
        # allure-pytest would clear the results directory in every worker, one under another's feet:
        # the controller cleared it before starting them.
        if hasattr(config.option, "clean_alluredir"):
            config.option.clean_alluredir = False

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        if self._config is not None and is_worker(self._config):
            self._flush()

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not is_worker(session.config):
            return
        self._flush()  # a rule stopped by Ctrl-C is in the summary, not yet in the file
        urls = base_urls(session.config.stash.get(self.targets_key, {}))
        self._record({"event": "targets", "base_urls": urls, "interrupted": interrupts.received()})
        if self._out is not None:
            self._out.close()
            self._out = None

    def _flush(self) -> None:
        assert self._config is not None
        summary: RunSummary | None = self._config.stash.get(self.summary_key, None)
        if summary is None:
            return
        for rule, outcome in summary.outcomes.items():
            if rule in self._written:
                continue
            self._written.add(rule)
            service = rule.split(".", 1)[0]
            self._record({"event": "outcome", "rule": rule, "service": service, "status": outcome.status,
                          "message": outcome.message, "skip_kind": outcome.skip_kind.value if outcome.skip_kind
                          else None, "seconds": outcome.seconds, "observations": outcome.observations,
                          "at": time.time(),
                          "missing_required": summary.missing_required.get(service, [])})

    def _record(self, data: dict[str, Any]) -> None:
        if self._out is None:
            if data.get("event") != "start" or self._config is None:
                return  # nothing is written by a worker that ran no rule (pytest tests -n 2)
            # The first rule: this worker's own directory, its pid (for the controller's SIGINT).
            wid = str(self._config.workerinput.get("workerid", "gw"))  # type: ignore[attr-defined]
            own = self.report_dir(self._config) / "workers" / wid
            own.mkdir(parents=True, exist_ok=True)
            (own / "pid").write_text(str(os.getpid()), encoding="utf-8")
            self._out = (own / "outcomes.jsonl").open("w", encoding="utf-8")
        self._out.write(json.dumps(data) + "\n")
        self._out.flush()  # a worker killed later still leaves this line


@dataclass
class _Served:
    """A target's base URL as the Allure environment reads it (the target lived in a worker)."""

    url: str

    def base_url(self) -> str:
        return self.url


def merge_worker_files(workers: Path, order: list[str], target: str, profile: str
                       ) -> tuple[RunSummary, dict[str, str]]:
    """One summary from every worker's outcomes.jsonl, rules in collection order. A rule a worker
    started but never finished (stopped, or the worker died) is interrupted: never passed."""
    records: dict[str, dict[str, Any]] = {}
    started: dict[str, str] = {}
    base_urls: dict[str, str] = {}
    times: list[float] = []  # wall-clock starts and ends of rules, any worker
    interrupted: str | None = None
    for path in sorted(workers.glob("*/outcomes.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                data = json.loads(line)
            except ValueError:
                continue  # a line cut short by a killed worker
            if isinstance(data.get("at"), (int, float)):
                times.append(float(data["at"]))
            if data.get("event") == "outcome":
                records[data["rule"]] = data
            elif data.get("event") == "start":
                started[data["rule"]] = path.parent.name
            elif data.get("event") == "targets":
                base_urls.update(data.get("base_urls") or {})
                interrupted = interrupted or data.get("interrupted")
    for rule, worker in started.items():
        if rule not in records:
            records[rule] = {"rule": rule, "service": rule.split(".", 1)[0], "status": INTERRUPTED,
                             "message": f"stopped while running (worker {worker} ended): not passed, not checked"}
    position = {rule: i for i, rule in enumerate(r for r in map(rule_of, order) if r)}
    summary = RunSummary(target, profile)
    for rule in sorted(records, key=lambda r: (position.get(r, len(position)), r)):
        data = records[rule]
        service = data.get("service") or rule.split(".", 1)[0]
        contract = load_contract(service)
        if service not in summary.missing_required and "missing_required" in data:
            summary.note_target(service, list(data["missing_required"]))
        kind = data.get("skip_kind")
        summary.add(contract, Outcome(rule, data["status"], data.get("message", ""),
                                      SkipKind(kind) if kind else None, seconds=float(data.get("seconds", 0.0)),
                                      observations=dict(data.get("observations") or {})))
    summary.interrupted = interrupted
    if times:
        # The run's elapsed time: first rule start to last rule end over every worker (wall clock,
        # turned into the monotonic clock the summary keeps).
        now_wall, now_mono = time.time(), time.monotonic()
        summary.first_start = now_mono - (now_wall - min(times))
        summary.last_end = now_mono - (now_wall - max(times))
    return summary, base_urls
