"""What the command line says when stopped, and what `discover` prints of a target (issue 34, item 10).

* ``serve`` stopped by Ctrl-C says it stopped, never the run's "before any rule ran" line;
* a run interrupted before any rule finished does not point at a summary.json it never wrote;
* Ctrl-C before a command has even parsed its arguments is one line, never a traceback (the run
  pauses at the ``cli`` checkpoint, the first thing ``main`` does, so where it lands is no matter
  of timing);
* ``conformance discover`` prints a target's values with control and bidi characters escaped.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conformance.faults.base import on_response
from conformance.services import create_simulator
from conformance.settings import env_name
from conformance.simulators.base import WallClock
from conformance.transport.model import Request, Response
from tests.conftest import serve
from tests.harness.test_interrupts import interrupted_run

pytestmark = pytest.mark.slow

TIMEOUT = 120
# What a terminal acts on or reorders: C0/C1 controls but tab and newline, and the bidi controls.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}, **extra}


def _terminal_sigint() -> None:
    """In the child: SIGINT as a terminal's Ctrl-C finds it, at its default, even where this test
    process inherited it ignored (a job a non-interactive shell started in the background), which
    the command rightly keeps ignored; the verdicts then depended on how the suite was started."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_serve_stopped_by_ctrl_c_does_not_speak_of_a_run(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "conformance", "serve", "tokenrisk", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=tmp_path,
                            preexec_fn=_terminal_sigint)  # noqa: PLW1509
    watchdog = threading.Timer(TIMEOUT, proc.kill)
    watchdog.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # serving once the last export line is out
            if line.startswith("export CONFORMANCE_ALLOW="):
                break
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err and "rule" not in err, err[-2000:]
    assert "serve stopped by SIGINT" in err, err[-2000:]


def test_a_run_stopped_before_any_summary_does_not_point_at_one(tmp_path: Path) -> None:
    proc, report = interrupted_run(tmp_path, "collected", signal.SIGINT, "--service", "tokenrisk")
    assert proc.returncode == 130 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert not (report / "summary.json").exists()
    assert "holds what finished" not in proc.stderr, proc.stderr
    assert "no summary.json written" in proc.stderr, proc.stderr


@pytest.mark.parametrize("command", [["run", "--service", "tokenrisk"], ["serve", "tokenrisk", "--port", "0"],
                                     ["rules", "--service", "tokenrisk"]])
def test_ctrl_c_before_the_command_starts_is_one_line(tmp_path: Path, command: list[str]) -> None:
    paused = tmp_path / "paused"
    proc = subprocess.Popen([sys.executable, "-m", "conformance", *command], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env=_env(CONFORMANCE_TEST_PAUSE_AT="cli", CONFORMANCE_TEST_PAUSE_FILE=str(paused)),
                            preexec_fn=_terminal_sigint)  # noqa: PLW1509
    watchdog = threading.Timer(TIMEOUT, proc.kill)
    watchdog.start()
    try:
        while not paused.exists() and proc.poll() is None:
            threading.Event().wait(0.05)
        assert proc.poll() is None, f"ended before pausing: {proc.communicate()[1][-2000:]}"
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    said = [line for line in err.splitlines() if not line.startswith("conformance: paused at")]
    assert proc.returncode == 130 and "Traceback" not in err, (proc.returncode, err[-2000:])
    assert said == ["conformance: interrupted by SIGINT"], err


HOSTILE = "\x1b]0;owned\x07\u202etxt.exe\u202c\x9b2K"


def test_discover_prints_a_targets_values_escaped(tmp_path: Path) -> None:
    sim = create_simulator("outreach", WallClock())
    seeded = sim.credentials["CAMPAIGN_ID"]

    def after(request: Request, response: Response) -> Response:
        text = response.body.decode("utf-8", "surrogateescape")
        response.body = text.replace(seeded, seeded + HOSTILE.encode("unicode_escape").decode()
                                     .replace("\\x", "\\u00")).encode("utf-8", "surrogateescape")
        return response

    with serve(on_response(after)(sim)) as url:
        env = _env(**{env_name("outreach", "BASE_URL"): url},
                   **{env_name("outreach", name): value for name, value in sim.credentials.items()
                      if name in ("API_KEY",)})
        done = subprocess.run([sys.executable, "-m", "conformance", "discover", "--service", "outreach"],
                              capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    raw = [m.group() for m in RAW.finditer(done.stdout + done.stderr)]
    assert not raw, f"raw controls printed: {raw!r}\n{done.stdout[-2000:]}"
    assert "\\u202e" in done.stdout, done.stdout  # the hostile value was read, and shown escaped
    assert f"CONFORMANCE_OUTREACH_CAMPAIGN_ID='{seeded}" not in done.stdout
