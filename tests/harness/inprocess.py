"""``conformance ARGS`` in the test's own process: the exit status main returns (or argparse's
SystemExit, by sys.exit's rules), with the signal handlers a run installs put back.

``run_main`` reads the output through a test's ``capsys``; ``run_isolated`` is for fixtures wider
than one test (no ``capsys`` there): it captures the output itself and runs as a subprocess of the
tests would, without any ``CONFORMANCE_`` variable, in a working directory of the caller's choice."""

from __future__ import annotations

import io
import os
import signal
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

__all__ = ["run_isolated", "run_main"]


def _call(args: tuple[str, ...] | list[str]) -> int:
    from conformance.cli import main

    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        code: object = main(list(args))
    except SystemExit as exc:
        code = exc.code
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    return 0 if code is None else code if isinstance(code, int) else 1  # sys.exit's rules


def run_main(args: tuple[str, ...] | list[str], capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess[str]:
    status = _call(args)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), status, out, err)


def run_isolated(args: tuple[str, ...] | list[str], cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """As ``subprocess.run([python, -m, conformance, *args], env=<no CONFORMANCE_ variable> | env)``
    would answer, where the process boundary is not what the test is about: the environment, the
    working directory and the interrupt record are put back afterwards, whatever the run set."""
    from conformance import interrupts

    environ, where = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for name in [k for k in os.environ if k.startswith("CONFORMANCE_")]:
            patch.delenv(name)
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        patch.setattr(interrupts, "_state", interrupts._State())
        if cwd is not None:
            patch.chdir(cwd)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                status = _call(args)
        finally:
            # Only what changed: clearing the whole environment would leave it empty for a moment
            # under the threads a test serves simulators from.
            for name in [k for k in os.environ if k not in environ]:
                del os.environ[name]
            os.environ.update({k: v for k, v in environ.items() if os.environ.get(k) != v})
            os.chdir(where)
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())
