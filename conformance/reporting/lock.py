"""One run per report directory: a second run given the same ``--report-dir`` is refused with one
line naming the run that holds it, never left to overwrite its files half-way."""

from __future__ import annotations

import datetime
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from conformance.errors import HarnessError

__all__ = ["LOCK_FILE", "report_dir_lock"]

LOCK_FILE = ".conformance.lock"
# filelock truncates the lock file when it tries to take it: who holds it is written beside.
_OWNER_FILE = ".conformance.lock.owner"


@contextmanager
def report_dir_lock(report_dir: Path) -> Iterator[None]:
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HarnessError(f"cannot create the report directory {report_dir}: {exc.strerror}") from None
    lock = FileLock(str(report_dir / LOCK_FILE), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        try:
            holder = (report_dir / _OWNER_FILE).read_text(encoding="utf-8").strip() or "another run"
        except OSError:
            holder = "another run"
        raise HarnessError(f"--report-dir {report_dir} is in use by {holder}; wait for it or pick another "
                           "directory") from None
    except OSError as exc:
        raise HarnessError(f"cannot lock the report directory {report_dir}: {exc.strerror}") from None
    try:
        started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        (report_dir / _OWNER_FILE).write_text(f"the run of process {os.getpid()} on {socket.gethostname()}, "
                                              f"started {started}\n", encoding="utf-8")
        yield
    finally:
        (report_dir / _OWNER_FILE).unlink(missing_ok=True)
        lock.release()
