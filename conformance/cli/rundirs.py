"""Run directories: each run its own (reports/runs/<time>-<pid>/), reports/latest pointing at the
last that finished, and one Allure history line per finished run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from conformance.errors import HarnessError

__all__ = ["keep_history", "new_run_dir", "point_latest"]


def new_run_dir(base: Path) -> Path:
    """Each run writes to its own directory (UTC time + process id), so two runs never mix."""
    import datetime

    # Microseconds too: two runs in one second must still sort in the order they started
    # (triage and `conformance report` take the previous run by name order).
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp = now.strftime("%Y%m%dT%H%M%S") + f"{now.microsecond:06d}Z"
    run_dir = base / "runs" / f"{stamp}-{os.getpid()}"
    try:
        run_dir.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        raise HarnessError(f"cannot create the run directory {run_dir}: {exc.strerror}") from None
    return run_dir


def point_latest(run_dir: Path) -> None:
    """reports/latest -> the last run that finished (a symlink swapped in atomically)."""
    latest = run_dir.parent.parent / "latest"
    tmp = latest.with_name(f".latest.{os.getpid()}")
    try:
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(Path("runs") / run_dir.name)
        os.replace(tmp, latest)
    except OSError as exc:
        print(f"conformance: could not point {latest} at {run_dir}: {exc.strerror}", file=sys.stderr)


def keep_history(report_dir: Path) -> None:
    """Every finished run appends its line to the Allure history beside the runs
    (reports/history.jsonl for reports/runs/<run>), report or not."""
    from conformance.reporting.history import append_run

    base = report_dir.parent.parent if report_dir.parent.name == "runs" else report_dir.parent
    try:
        append_run(report_dir, base / "history.jsonl")
    except HarnessError as exc:  # the run's verdict stands; only its history line is missing
        print(f"conformance: {exc}", file=sys.stderr)
