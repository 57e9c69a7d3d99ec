"""A run's exit status, read back from its summary.json (``run`` and ``report --exit-status``).

0: every selected rule ran and passed, or was skipped for an accepted reason. 1: the target broke
a rule. 2: harness errors. 3: incomplete. 130: interrupted (143 for SIGTERM, decided by ``run``).
Every status but 0 and 1 comes with one line saying why.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["exit_status", "mark_interrupted"]


def exit_status(report_dir: Path, pytest_code: int, *, allow_skips: bool = False) -> int:
    """The run's verdict (``reporting/verdict.py``, the one place it is decided) as an exit status,
    with its one line on stderr; without a readable summary, pytest's own code decides."""
    from conformance.reporting.verdict import verdict

    try:
        summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
        summary["counts"]  # noqa: B018 (a summary without counts is no summary)
    except (OSError, ValueError, KeyError, TypeError):
        return _without_summary(pytest_code)
    decided = verdict(summary, allow_skips=allow_skips, pytest_code=pytest_code)
    if decided.reason:
        print(f"conformance: {decided.reason}", file=sys.stderr)
    return decided.status


def _without_summary(pytest_code: int) -> int:
    """No readable summary: pytest's own code decides (2 there is an interrupted session)."""
    if pytest_code == 5:
        print("conformance: no rule was selected (check --service, -k and -m)", file=sys.stderr)
    return 0 if pytest_code == 0 else (130 if pytest_code == 2 else 2)


def mark_interrupted(report_dir: Path, signal_name: str) -> None:
    """summary.json says the run was interrupted, even when the signal came after it was written."""
    from conformance.reporting.summary import write_atomic

    path = report_dir / "summary.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # nothing was written (interrupted before the first rule ended): nothing to mark
    if isinstance(data, dict) and data.get("interrupted") != signal_name:
        data["interrupted"] = signal_name
        write_atomic(path, json.dumps(data, indent=2))
