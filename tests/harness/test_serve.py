"""``conformance serve``: lines that survive a paste, refusals before any credential is printed."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from conformance.contract.loader import available_services
from conformance.services import create_simulator
from conformance.settings import RunSettings

_START_SECONDS = 60.0


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}


@contextmanager
def serving(*args: str) -> Iterator[list[str]]:
    """``conformance serve ARGS --port 0``; yields the printed lines once the base URL is printed."""
    proc = subprocess.Popen([sys.executable, "-m", "conformance", "serve", *args, "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    # A serve that never prints the last line is killed (readline then ends), never waited on forever.
    watchdog = threading.Timer(_START_SECONDS, proc.kill)
    watchdog.start()
    try:
        lines: list[str] = []
        assert proc.stdout is not None
        while not any(line.startswith("export CONFORMANCE_ALLOW=") for line in lines):
            line = proc.stdout.readline()  # blocks until a line or EOF; the process is killed below
            if not line:
                raise AssertionError(f"serve ended early: {proc.wait(_START_SECONDS)} {proc.stderr.read()}")
            lines.append(line.rstrip("\n"))
        watchdog.cancel()
        yield lines
    finally:
        watchdog.cancel()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(_START_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(_START_SECONDS)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def _pasted(lines: list[str]) -> dict[str, str]:
    """The environment a shell has after the lines are pasted into it."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    script = "\n".join(lines) + "\nenv -0\n"
    out = subprocess.run([bash, "-c", script], capture_output=True, env=_env(), timeout=30, check=True).stdout
    return dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)


@pytest.mark.parametrize(("service", "options"), [("contracts", ()), ("tokenrisk", ()),
                                                   ("scanning", ("--option", "product=shodan"))])
def test_pasted_lines_give_every_credential_exactly(service: str, options: tuple[str, ...]) -> None:
    """contracts' TEMPLATE_PARAMETERS is JSON, tokenrisk's AUTH_VALUE holds a space."""
    with serving(service, *options) as lines:
        env = _pasted(lines)
        prefix = f"CONFORMANCE_{service.upper()}_"
        for name, value in create_simulator(service, **dict(o.split("=") for o in options[1::2])).credentials.items():
            assert env[prefix + name] == value, name
        if options:
            assert env[prefix + "PRODUCT"] == "shodan"  # the run reads the same path shape
        # The base URL answers: the printed port is the one served.
        assert httpx.get(env[prefix + "BASE_URL"] + "/", timeout=30).status_code < 500
    # A harness run that reads this environment may write and spend (it is a simulator).
    os.environ.update({"CONFORMANCE_ALLOW": env["CONFORMANCE_ALLOW"]})
    try:
        assert RunSettings.from_env(target="http").allow == {"spend", "write"}
    finally:
        del os.environ["CONFORMANCE_ALLOW"]
    assert any(line.startswith("#") and "spend" in line for line in lines)


def test_a_quote_in_a_value_survives_the_paste() -> None:
    from conformance.simulators.sandbox import export_lines

    value = """it's "JSON" {"a": 1} $HOME `x` \\n"""
    lines = export_lines("x", {"V": value}, "http://h:1", path_settings={}, clock_rate=2.0)
    env = _pasted(lines)
    assert env["CONFORMANCE_X_V"] == value and env["CONFORMANCE_TIME_SCALE"] == "2.0"


def _serve_once(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance", "serve", *args], capture_output=True, text=True,
                          timeout=120, env=_env(), check=False)


def test_empty_option_is_refused_before_anything_is_printed() -> None:
    proc = _serve_once("marketplace", "--option", "shop_resource=", "--port", "0")
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert proc.stderr.strip().count("\n") == 0 and "shop_resource needs a value" in proc.stderr


def test_taken_port_is_one_line_and_no_credential() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = _serve_once("tokenrisk", "--port", str(port))
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and proc.stderr.strip().count("\n") == 0, proc.stdout + proc.stderr
    assert f"cannot serve on 127.0.0.1:{port}" in proc.stderr


def test_help_lists_the_services() -> None:
    proc = _serve_once("--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for service in available_services():
        assert service in text, service
