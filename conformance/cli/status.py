"""A run's exit status, read back from its summary.json (``run`` and ``report --exit-status``).

0: every selected rule ran and passed, or was skipped for an accepted reason. 1: the target broke
a rule. 2: harness errors. 3: incomplete. 130: interrupted (143 for SIGTERM, decided by ``run``).
Every status but 0 and 1 comes with one line saying why.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["ACCEPTED_SKIPS", "exit_status", "mark_interrupted"]

# Skip kinds a run may end with and still be green: the target's data or nature, not missing set-up.
ACCEPTED_SKIPS = {"not-checkable-on-target", "not-exercised", "credential-missing", "unchecked", "gap-observed",
                  "needs-allowance", "depends-on-gap"}


def exit_status(report_dir: Path, pytest_code: int, *, allow_skips: bool = False) -> int:
    """0: every selected rule ran and passed, or was skipped for an accepted reason.
    1: the target broke a rule. 2: harness errors. 3: incomplete (nothing checked, fewer checked
    than the --min-checked floor, the run deadline reached, cassettes or required credentials
    missing, rate-limited). 130: interrupted (143 for SIGTERM, decided in run). One line says why."""
    try:
        summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
        counts = summary["counts"]
    except (OSError, ValueError, KeyError, TypeError):
        return _without_summary(pytest_code)
    if counts.get("interrupted") or pytest_code == 2 or summary.get("interrupted"):
        # Before failures: a run stopped half-way is not a verdict on the target.
        print("conformance: interrupted; the summary holds what finished", file=sys.stderr)
        return 130
    if counts.get("failed"):
        return 1
    deadline = (summary.get("skip_kinds") or {}).get("run-deadline")
    if deadline:
        print(f"conformance: incomplete run: the run deadline (CONFORMANCE_RUN_SECONDS) was reached; "
              f"{deadline} rules not run", file=sys.stderr)
        return 3
    if counts.get("error") or pytest_code not in (0, 1):
        print(f"conformance: {counts.get('error', 0)} harness errors (not target failures): see triage.md",
              file=sys.stderr)
        return 2
    return 0 if allow_skips else _completeness(summary, counts)


def _without_summary(pytest_code: int) -> int:
    """No readable summary: pytest's own code decides (2 there is an interrupted session)."""
    if pytest_code == 5:
        print("conformance: no rule was selected (check --service, -k and -m)", file=sys.stderr)
    return 0 if pytest_code == 0 else (130 if pytest_code == 2 else 2)


def _completeness(summary: dict[str, Any], counts: dict[str, Any]) -> int:
    """3 when too little was checked to call the run green, else 0."""
    checked = summary.get("checked") or {}
    if checked.get("below_floor"):
        print(f"conformance: incomplete run: {checked['below_floor']}", file=sys.stderr)
        return 3
    why = _incomplete_reasons(summary, counts)
    if why:
        print(f"conformance: incomplete run: {'; '.join(why)} (--allow-skips accepts it)", file=sys.stderr)
        return 3
    return 0


def _incomplete_reasons(summary: dict[str, Any], counts: dict[str, Any]) -> list[str]:
    why = []
    if not counts.get("passed"):
        why.append("no rule was checked (every selected rule skipped)")
    missing = {s: names for s, names in (summary.get("missing_required") or {}).items() if names}
    if missing:
        why.append("required credentials missing: " + "; ".join(f"{s}: {', '.join(n)}" for s, n in missing.items()))
    other = {k: n for k, n in (summary.get("skip_kinds") or {}).items() if k not in ACCEPTED_SKIPS}
    if other:
        why.append("skipped: " + ", ".join(f"{n} {k}" for k, n in sorted(other.items())))
    return why


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
