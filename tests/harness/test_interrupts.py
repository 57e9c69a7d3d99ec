"""SIGINT and SIGTERM at named moments of a real run, on the simulator and over HTTP: never exit 0,
never a rule recorded as passed that did not finish, what finished is written, one line, no
INTERNALERROR.

The run pauses at a named point (``CONFORMANCE_TEST_PAUSE_AT``, inert otherwise) and says so in a
file; the signal is sent once the file appears, so where it lands does not depend on timing.
Every wait is bounded (the run is killed, and the test fails, past the ceiling).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CEILING = 240.0  # seconds for one interrupted run, start to exit, on a busy machine
SERVICES = ["--service", "presentations"]
# A signal after the rules (while the reports are written, or the exit status decided) needs a run
# whose rules have all ended, not every rule of the service: five quick ones (auth and request
# handling, no lifecycle waits, no property) leave the same files to write and the same verdict to
# decide, in a second instead of the whole service's run.
AFTER_THE_RULES = ("summary", "allure-extras", "verdict")
QUICK = ["-k", "auth or json-content-type or malformed-json"]


def _selection(point: str) -> list[str]:
    return [*SERVICES, *(QUICK if point.split(":")[0] in AFTER_THE_RULES else [])]


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    env.update(extra)
    return env


def _wait_for(path: Path, proc: subprocess.Popen[str], ceiling: float) -> None:
    deadline = time.monotonic() + ceiling
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the run ended (exit {proc.returncode}) before pausing: {proc.stderr.read()[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the run never paused at its point within {ceiling} s")
        time.sleep(0.05)


def interrupted_run(tmp_path: Path, point: str, signum: int, *args: str,
                    env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], Path]:
    report = tmp_path / "report"
    paused = tmp_path / "paused"
    cmd = [sys.executable, "-m", "conformance", "run", *args, "--report-dir", str(report)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env=_env({"CONFORMANCE_TEST_PAUSE_AT": point, "CONFORMANCE_TEST_PAUSE_FILE": str(paused),
                                      **(env or {})}))
    try:
        _wait_for(paused, proc, CEILING)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=CEILING)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), report


def assert_honest(proc: subprocess.CompletedProcess[str], report: Path, signum: int) -> dict[str, Any] | None:
    expected = 130 if signum == signal.SIGINT else 143
    assert proc.returncode == expected, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "INTERNALERROR" not in proc.stdout + proc.stderr, proc.stdout[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    said = [line for line in proc.stderr.splitlines() if "interrupted" in line]
    assert len(said) == 1, proc.stderr  # one line, not a storm
    summary_file = report / "summary.json"
    if not summary_file.exists():
        return None
    summary = json.loads(summary_file.read_text(encoding="utf-8"))  # whole, never half-written
    assert summary["interrupted"] == signal.Signals(signum).name
    assert summary["checked"]["of"] >= summary["checked"]["checked"]
    allure = report / "allure-results"
    statuses = {r["id"]: r["status"] for s in summary["services"].values() for r in s["rules"]}
    for result in allure.glob("*-result.json") if allure.is_dir() else []:
        data = json.loads(result.read_text(encoding="utf-8"))  # no half-written result either
        rule = str(data.get("name", "")).split(":", 1)[0]
        if data.get("status") == "passed":
            assert statuses.get(rule) == "passed", (rule, statuses.get(rule))
    return summary


def _rules(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for s in summary["services"].values() for r in s["rules"]]


# (point, signal, how many rules had finished when it landed: None = not asserted)
SIM_POINTS = [
    ("imports", signal.SIGINT),
    ("collected", signal.SIGINT),
    ("rule:1", signal.SIGINT),
    ("rule:12", signal.SIGINT),
    ("rule:12", signal.SIGTERM),
    ("sim-request:30", signal.SIGINT),  # mid-rule, in the simulator's transport
    ("allure-result:5", signal.SIGINT),  # while allure-pytest writes a rule's result
    ("allure-result:5", signal.SIGTERM),
    ("summary", signal.SIGINT),  # while summary.json and triage.md are written
    ("allure-extras", signal.SIGTERM),  # while categories and the environment are written
    ("verdict", signal.SIGINT),  # after pytest, while the exit status is decided
]


@pytest.mark.parametrize(("point", "signum"), SIM_POINTS,
                         ids=[f"{p}-{signal.Signals(s).name}" for p, s in SIM_POINTS])
def test_signal_on_the_simulator(tmp_path: Path, point: str, signum: int) -> None:
    proc, report = interrupted_run(tmp_path, point, signum, *_selection(point))
    summary = assert_honest(proc, report, signum)
    name = point.split(":")[0]
    if name in ("imports", "collected", "rule") and point != "rule:12":
        assert summary is None or not any(r["status"] == "passed" for r in _rules(summary))
    if point == "rule:12":
        assert summary is not None
        rules = _rules(summary)
        # Eleven finished and are written; the twelfth was stopped before its check ran.
        assert sum(r["status"] in ("passed", "failed", "skipped") for r in rules) == 11
        assert sum(r["status"] == "interrupted" for r in rules) == 1
    if name in AFTER_THE_RULES:
        # Every selected rule had finished: all is written, and the run still is not green.
        assert summary is not None and summary["checked"]["checked"] > 0
        assert all(r["status"] in ("passed", "failed", "skipped") for r in _rules(summary) if r["selected"])


def test_signal_inside_a_hypothesis_property(tmp_path: Path) -> None:
    """The property rule is stopped mid-way among its examples: interrupted, never passed."""
    proc, report = interrupted_run(tmp_path, "sim-request:20", signal.SIGINT, *SERVICES,
                                   "-k", "presentations.generate.invalid-rejected")
    summary = assert_honest(proc, report, signal.SIGINT)
    assert summary is not None
    [rule] = [r for r in _rules(summary) if r["id"] == "presentations.generate.invalid-rejected"]
    assert rule["status"] == "interrupted"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """``conformance serve presentations`` on a free local port; the variables it prints."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "conformance", "serve", "presentations", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=_env({}))
    variables: dict[str, str] = {}
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            # serve prints paste-ready lines: export NAME='value' (single-quoted, shell rules).
            match = re.match(r"export (CONFORMANCE_\w+)=(.*)", line)
            if match:
                variables[match.group(1)] = shlex.split(match.group(2))[0]
                if match.group(1).endswith("BASE_URL"):
                    break
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield {**variables, "CONFORMANCE_TARGET": "http"}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


HTTP_POINTS = [
    ("rule:3", signal.SIGINT),
    ("rule:8", signal.SIGTERM),
    ("allure-result:4", signal.SIGINT),
    ("summary", signal.SIGTERM),
    ("verdict", signal.SIGINT),
]


@pytest.mark.parametrize(("point", "signum"), HTTP_POINTS,
                         ids=[f"{p}-{signal.Signals(s).name}" for p, s in HTTP_POINTS])
def test_signal_over_http(tmp_path: Path, served: dict[str, str], point: str, signum: int) -> None:
    proc, report = interrupted_run(tmp_path, point, signum, *_selection(point), "--target", "http", env=served)
    summary = assert_honest(proc, report, signum)
    if point.startswith("rule:"):
        assert summary is not None
        finished = int(point.split(":")[1]) - 1
        rules = _rules(summary)
        assert sum(r["status"] in ("passed", "failed", "skipped") for r in rules) == finished
        assert sum(r["status"] == "interrupted" for r in rules) == 1


def test_signal_while_a_request_hangs_over_http(tmp_path: Path) -> None:
    """In the transport: the target took the request and never answers."""
    got_request = threading.Event()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []

    def read(conn: socket.socket) -> None:
        # A request, not a bare connection: the run's reachability probe connects and closes.
        try:
            if conn.recv(1):
                got_request.set()
        except OSError:
            return

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            threading.Thread(target=read, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    report = tmp_path / "report"
    env = _env({"CONFORMANCE_TARGET": "http", "CONFORMANCE_PRESENTATIONS_API_KEY": "k-canary",
                "CONFORMANCE_PRESENTATIONS_BASE_URL": f"http://127.0.0.1:{server.getsockname()[1]}"})
    proc = subprocess.Popen([sys.executable, "-m", "conformance", "run", *SERVICES, "--report-dir", str(report)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    try:
        assert got_request.wait(CEILING), "the run never sent a request"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=CEILING)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        server.close()
        for conn in held:
            conn.close()
    summary = assert_honest(subprocess.CompletedProcess([], proc.returncode, out, err), report, signal.SIGINT)
    assert summary is not None
    assert any(r["status"] == "interrupted" for r in _rules(summary))
    assert not any(r["status"] == "passed" for r in _rules(summary))


def test_an_interrupt_frame_without_a_line_number_is_not_a_crash() -> None:
    """Python 3.11+ gives a frame no line number when the signal lands on an instruction without
    one; pytest's formatter then raised TypeError and the run ended exit 1 with a traceback."""
    from types import TracebackType

    from conformance.plugin import pytest_keyboard_interrupt

    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        frame = sys._getframe()
        # An instruction offset past the code's end has no line: tb_lineno is None, as in the crash.
        exc.__traceback__ = TracebackType(exc.__traceback__, frame, len(frame.f_code.co_code) + 100, -1)
        excinfo = pytest.ExceptionInfo.from_exception(exc)
    assert excinfo.traceback[0]._rawentry.tb_lineno is None
    with pytest.raises(TypeError):
        excinfo.getrepr(funcargs=True)  # pytest alone: the crash
    pytest_keyboard_interrupt(excinfo)
    assert "KeyboardInterrupt" in str(excinfo.getrepr(funcargs=True))
