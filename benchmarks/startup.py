"""Start-up (issue 31): how long a `conformance` command takes before it does anything. Not a test.

    .venv/bin/python benchmarks/startup.py [--runs N] [--service ID]

Each figure is the median wall time of N fresh processes (default 7), beside schemathesis's
``st --version`` measured in the same session as the yardstick (goal: each command under 0.5 s
and at most 1.5x ``st --version``). ``env`` is measured warm (its contract facts cached, the
usual case) and cold (an empty cache directory: every contract loaded). ``serve`` is the time
from starting the process to the first answered HTTP request on 127.0.0.1 (goal: under 1 s).

The machine is shared: run it twice and compare the ratios, not single figures. Which modules a
command imports (the reason for the times) is held by tests/harness/test_startup.py.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
GOAL_SECONDS = 0.5
GOAL_RATIO = 1.5
SERVE_GOAL_SECONDS = 1.0


def _wall(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=False)
    return time.perf_counter() - started


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _first_answer(service: str, env: dict[str, str]) -> float:
    """Seconds from starting `conformance serve` to its first HTTP answer (any status)."""
    port = _port()
    started = time.perf_counter()
    proc = subprocess.Popen([str(BIN / "conformance"), "serve", service, "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while proc.poll() is None and time.perf_counter() - started < 30:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).close()
            except urllib.error.HTTPError:
                pass  # a 404 is an answer
            except OSError:
                time.sleep(0.005)  # not listening yet
                continue
            return time.perf_counter() - started
        raise SystemExit(f"conformance serve {service} never answered (exit {proc.poll()})")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _median(measure: Callable[[], float], runs: int) -> float:
    measure()  # one unmeasured run: the OS file cache, __pycache__
    return statistics.median(measure() for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="processes per figure (the median is shown)")
    parser.add_argument("--service", default="affiliate", help="the simulator `serve` starts")
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    conformance = str(BIN / "conformance")
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as cold:
        warm_env = {**base, "XDG_CACHE_HOME": cache}
        subprocess.run([conformance, "env"], env=warm_env, capture_output=True, check=True)  # fill the cache
        commands: list[tuple[str, list[str], dict[str, str]]] = [
            ("st --version", [str(BIN / "st"), "--version"], base),
            ("conformance --version", [conformance, "--version"], warm_env),
            ("conformance --help", [conformance, "--help"], warm_env),
            ("conformance run --help", [conformance, "run", "--help"], warm_env),
            ("conformance serve --help", [conformance, "serve", "--help"], warm_env),
            ("conformance env", [conformance, "env"], warm_env),
            ("conformance rnu (typo)", [conformance, "rnu"], warm_env),
        ]
        times = {name: _median(partial(_wall, command, env), args.runs) for name, command, env in commands}
        # A fresh, empty cache directory per run: every contract is loaded, as on first use.
        times["conformance env (cold cache)"] = _median(
            lambda: _wall([conformance, "env"], {**base, "XDG_CACHE_HOME": tempfile.mkdtemp(dir=cold)}), args.runs)
        serve = _median(lambda: _first_answer(args.service, warm_env), args.runs)
    yardstick = times["st --version"]
    print(f"median of {args.runs} runs; goal: under {GOAL_SECONDS} s and {GOAL_RATIO}x st --version "
          f"({GOAL_RATIO * yardstick:.3f} s now)\n")
    print(f"| {'command':32} | seconds | x st --version |\n|{'-' * 34}|---------|----------------|")
    for name, seconds in times.items():
        print(f"| {name:32} | {seconds:7.3f} | {seconds / yardstick:14.2f} |")
    goal = f"goal < {SERVE_GOAL_SECONDS} s"
    print(f"| {'serve ' + args.service + ' (first answer)':32} | {serve:7.3f} | {goal:>14} |")


if __name__ == "__main__":
    main()
