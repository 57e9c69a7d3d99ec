"""Allure 3 history kept by every run, not only by runs someone followed with ``conformance report``.

Allure 3 keeps one JSON line per report in a history file (``historyPath``): the "data point"
trends, "new failed", "fixed" and the History tab are made of. A run appends its own data point
when it finishes, built from its allure-results the way Allure 3.18 (html.py pins it) builds one:
the test case id is md5 of the result's ``testCaseId`` (else of its ``fullName``), the history id
that id, a dot, and md5 of the parameters as ``name:value`` sorted and joined by commas
(``@allurereport/core`` store/convert.js and history.js). The run directory remembers which
line is its own (``history.json``), so ``conformance report`` shows the runs before it as history,
not the run itself, and never appends it twice.

One writer at a time: the line is appended under an exclusive lock on the file (two runs ending
together each add a whole line) and synced before the lock is released.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import stat
import time
import uuid
from pathlib import Path
from typing import Any

from conformance.errors import HarnessError
from conformance.files import FileBounds, read_text

__all__ = ["MARKER", "append_run", "data_point", "history_before", "recorded_point"]

MARKER = "history.json"  # in the run directory: {"history": path, "uuid": the run's line}

# Runs the history file keeps (CONFORMANCE_HISTORY_RUNS overrides).
DEFAULT_HISTORY_RUNS = 30
# A full run's line is ~600 KB, so the default 30 runs take ~18 MB; 128 MiB holds 200 full runs and
# keeps a read of it (a run trims it, a report shows it) far under the 300 MB a run may take.
HISTORY = FileBounds("history file", 128 * 1024 * 1024)


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()  # noqa: S324 (an id, as Allure's)


def _history_id(raw: dict[str, Any]) -> tuple[str, str] | None:
    """Allure 3's calculateTestId and calculateHistoryId: an ALLURE_ID label, else the test case
    id the result names (allure-pytest's testCaseId, read as testId), else the full name."""
    allure_id = next((label.get("value") for label in raw.get("labels") or [] if isinstance(label, dict)
                      and label.get("name") in ("ALLURE_ID", "AS_ID") and label.get("value") != "-1"), None)
    if allure_id:
        case_id = _md5(f"ALLURE_ID={allure_id}")
    elif isinstance(raw.get("testCaseId"), str) and raw["testCaseId"]:
        case_id = _md5(raw["testCaseId"])
    elif isinstance(raw.get("fullName"), str) and raw["fullName"]:
        case_id = _md5(raw["fullName"])
    else:
        return None
    params = sorted((p for p in raw.get("parameters") or [] if isinstance(p, dict) and not p.get("excluded")),
                    key=lambda p: (str(p.get("name") or ""), str(p.get("value") or "")))
    joined = ",".join(f"{p.get('name')}:{p.get('value')}" for p in params)
    return case_id, f"{case_id}.{_md5(joined)}"


def data_point(results: Path, name: str = "API conformance") -> dict[str, Any]:
    """The history line Allure 3 would write for a report built from ``results``."""
    known: list[str] = []
    items: dict[str, dict[str, Any]] = {}
    for path in sorted(results.glob("*-result.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a half-written result of an interrupted run: not history
        ids = _history_id(raw)
        if ids is None:
            continue
        case_id, history_id = ids
        if case_id not in known:
            known.append(case_id)
        item: dict[str, Any] = {"id": _md5(str(raw.get("uuid") or uuid.uuid4())), "name": raw.get("name"),
                                "fullName": raw.get("fullName"), "environment": "default",
                                "status": raw.get("status") or "unknown"}
        details = raw.get("statusDetails") or {}
        for key in ("message", "trace"):
            if details.get(key):
                item[key] = details[key]
        if isinstance(raw.get("start"), int) and isinstance(raw.get("stop"), int):
            item.update(start=raw["start"], stop=raw["stop"], duration=raw["stop"] - raw["start"])
        item.update(labels=raw.get("labels") or [], url="", historyId=history_id, reportLinks=[])
        items[history_id] = item
    return {"uuid": str(uuid.uuid4()), "name": name, "timestamp": int(time.time() * 1000),
            "knownTestCaseIds": known, "testResults": items, "metrics": {}, "url": ""}


def history_runs() -> int:
    """How many runs the history keeps (CONFORMANCE_HISTORY_RUNS): a full run adds about 600 KB,
    so an unbounded file grows by the night; trends read the last few runs anyway."""
    raw = os.environ.get("CONFORMANCE_HISTORY_RUNS", "").strip() or str(DEFAULT_HISTORY_RUNS)
    if not raw.isdigit() or int(raw) < 1:
        raise HarnessError(f"CONFORMANCE_HISTORY_RUNS must be a whole number of runs (1 or more), got '{raw}'")
    return int(raw)


def _append_line(history: Path, line: str) -> None:
    """Appends under a lock, then keeps only the last ``history_runs()`` lines. The file is read
    whole to trim it, so only a regular file under the bound is written to (a huge file was read
    whole each run, and grew; a FIFO gave "cannot append ...: None", the error of seeking it)."""
    keep = history_runs()
    try:
        history.parent.mkdir(parents=True, exist_ok=True)
        # Non-blocking: opening a FIFO must not wait for a reader; a regular file ignores the flag.
        fd = os.open(history, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o644)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise HarnessError(f"the history file {history} is not a regular file (a device, FIFO or "
                               "directory); no history line appended")
        with os.fdopen(fd, "a+", encoding="utf-8") as out:
            fcntl.flock(out, fcntl.LOCK_EX)
            try:
                if os.fstat(fd).st_size + len(line) >= HISTORY.max_bytes:  # measured under the lock
                    raise HarnessError(f"the history file {history} is larger than {HISTORY.max_bytes:,} bytes, "
                                       "the bound of a history file; no history line appended (remove it, or keep "
                                       "fewer runs: CONFORMANCE_HISTORY_RUNS)")
                out.write(line + "\n")
                out.flush()
                out.seek(0)
                lines = [kept for kept in out.read().splitlines() if kept.strip()]
                if len(lines) > keep:
                    out.seek(0)
                    out.truncate()
                    out.write("\n".join(lines[-keep:]) + "\n")
                out.flush()
                os.fsync(out.fileno())
            finally:
                fcntl.flock(out, fcntl.LOCK_UN)
    except OSError as exc:
        raise HarnessError(f"cannot append to the history file {history}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise HarnessError(f"the history file {history} is not UTF-8 (byte {exc.start}); its line was "
                           "appended, the file not trimmed") from None


def append_run(run_dir: Path, history: Path) -> str | None:
    """Appends the run's data point to ``history`` (once); returns its uuid, or None when the run
    wrote no Allure results."""
    known = recorded_point(run_dir, history)
    if known is not None:
        return known
    results = run_dir / "allure-results"
    if not results.is_dir() or not any(results.glob("*-result.json")):
        return None
    point = data_point(results)
    _append_line(history, json.dumps(point, separators=(",", ":")))
    (run_dir / MARKER).write_text(json.dumps({"history": str(history.resolve()), "uuid": point["uuid"]}),
                                  encoding="utf-8")
    return str(point["uuid"])


def recorded_point(run_dir: Path, history: Path) -> str | None:
    """The uuid of the line this run appended to ``history``, if it did."""
    try:
        marker = json.loads((run_dir / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or marker.get("history") != str(history.resolve()):
        return None
    return str(marker.get("uuid")) if marker.get("uuid") else None


def history_before(history: Path, own: str | None, into: Path) -> None:
    """Writes to ``into`` the lines of ``history`` before the run's own line (all of them when the
    run has none there): the history a report of that run shows."""
    lines: list[str] = []
    if history.is_file():
        # Bounded (size, a regular file): a report read the whole file, whatever its size.
        for line in read_text(history, HISTORY, HarnessError).splitlines():
            if not line.strip():
                continue
            try:
                if own is not None and json.loads(line).get("uuid") == own:
                    break
            except (ValueError, AttributeError, RecursionError):  # RecursionError: a line nested 100k deep
                raise HarnessError(f"{history} holds a line that is not a history entry (not a JSON object)") from None
            lines.append(line)
    into.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
