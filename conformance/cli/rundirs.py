"""Run directories: each run its own (reports/runs/<time>-<pid>/), reports/latest pointing at the
last that finished, and one Allure history line per finished run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from conformance.errors import HarnessError

__all__ = ["OUTPUTS", "check_report_dir", "history_path", "keep_history", "new_run_dir", "point_latest"]


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


def history_path(report_dir: Path) -> Path:
    """Where a run directory's Allure history lives: beside the runs for reports/runs/<run>
    (reports/history.jsonl), else in the directory the user named. Never ``X/../history.jsonl``
    for ``--report-dir X``: a run writes only where it was told to (``out/x`` once appended to
    ``out/history.jsonl``)."""
    resolved = report_dir.resolve()  # reports/latest is a link into reports/runs/
    return resolved.parent.parent / "history.jsonl" if resolved.parent.name == "runs" else report_dir / "history.jsonl"


def keep_history(report_dir: Path) -> None:
    """Every finished run appends its line to its Allure history (``history_path``), report or not."""
    from conformance.reporting.history import append_run

    try:
        append_run(report_dir, history_path(report_dir))
    except HarnessError as exc:  # the run's verdict stands; only its history line is missing
        print(f"conformance: {exc}", file=sys.stderr)


# Every name a run, a merge or a report writes inside a report directory. None may be a symbolic
# link: pytest's junitxml, allure-pytest (--clean-alluredir empties the folder first), the history
# marker and the lock would write through it to wherever it points.
OUTPUTS = ("summary.json", "triage.md", "junit.xml", "allure-results", "history.json", "history.jsonl",
           "workers", ".conformance.lock", ".conformance.lock.owner", "triage-since-previous.md",
           "allurerc.mjs", "allure-report", ".history-before-this-run.jsonl")


def check_report_dir(report_dir: Path) -> None:
    """A report directory a run may write into: a directory (or not there yet) holding no link
    where it writes. A planted link is refused, not removed: it may be someone's on purpose (an
    allure-results shared by several tools, which --clean-alluredir would empty), and one line
    telling what to remove costs less than deleting what someone set up."""
    try:
        if report_dir.exists() and not report_dir.is_dir():
            raise HarnessError(f"--report-dir {report_dir} is not a directory")
        links = [name for name in OUTPUTS if (report_dir / name).is_symlink()]
    except OSError as exc:
        raise HarnessError(f"--report-dir {str(report_dir)[:120]!a}: {exc.strerror}") from None
    if links:
        raise HarnessError(f"--report-dir {report_dir}: {links[0]} is a symbolic link (to "
                           f"{os.readlink(report_dir / links[0])!a}); a run writes its own files and never "
                           "follows a link out of its directory: remove the link or pick another --report-dir")
