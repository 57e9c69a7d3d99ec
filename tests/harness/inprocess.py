"""``conformance ARGS`` in the test's own process: the exit status main returns (or argparse's
SystemExit, by sys.exit's rules), with the signal handlers a run installs put back."""

from __future__ import annotations

import signal
import subprocess

import pytest

__all__ = ["run_main"]


def run_main(args: tuple[str, ...] | list[str], capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess[str]:
    from conformance.cli import main

    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        code: object = main(list(args))
    except SystemExit as exc:
        code = exc.code
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    out, err = capsys.readouterr()
    status = 0 if code is None else code if isinstance(code, int) else 1  # sys.exit's rules
    return subprocess.CompletedProcess(list(args), status, out, err)
