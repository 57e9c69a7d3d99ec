"""One `conformance` command in a subprocess, with its own peak memory and wall time.

The peak is VmHWM of the command's own address space, read from /proc as it exits: getrusage's
ru_maxrss is not, because Linux carries the parent's high-water mark across fork and exec (a 400 MB
pytest made every run "400 MB").
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Peaked", "run_peaked"]

_RUNNER = ("import re, sys\n"
           "from conformance.cli import main\n"
           "code = main(sys.argv[1:])\n"
           "status = open('/proc/self/status', encoding='ascii').read()\n"
           "print('PEAK_RSS_KB', re.search(r'VmHWM:\\s+(\\d+)', status).group(1), file=sys.stderr)\n"
           "sys.exit(code)\n")


@dataclass
class Peaked:
    code: int
    seconds: float
    peak_mb: float  # -1 when the command did not get to report it
    stdout: str
    stderr: str
    summary: dict[str, object] | None  # the report directory's summary.json, when valid

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_peaked(args: list[str], *, report: Path, env: dict[str, str], cwd: Path, timeout: float) -> Peaked:
    """``conformance *args`` whose report directory is ``report``."""
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", _RUNNER, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    seconds = time.monotonic() - started
    peak = [line.split()[1] for line in proc.stderr.splitlines() if line.startswith("PEAK_RSS_KB")]
    try:
        summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        summary = None
    return Peaked(proc.returncode, seconds, int(peak[0]) / 1024 if peak else -1.0, proc.stdout, proc.stderr, summary)
