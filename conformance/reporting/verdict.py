"""A run's verdict, decided in one place from what its summary holds.

``summary.json`` carries it (the summary writer and ``merge`` both call ``verdict``), and the exit
status of ``run``, ``merge`` and ``report --exit-status`` is it: 0 every selected rule ran and
passed, or was skipped for an accepted reason, and the checked share reached the floor; 1 the
target broke a rule; 2 harness errors; 3 incomplete; 130 interrupted (143 for SIGTERM, decided
where the signal is known). Every status but 0 and 1 comes with one line saying why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ACCEPTED_SKIPS", "Verdict", "verdict"]

# Skip kinds a run may end with and still be green: the target's data or nature, not missing set-up.
ACCEPTED_SKIPS = {"not-checkable-on-target", "not-exercised", "credential-missing", "unchecked", "gap-observed",
                  "needs-allowance", "depends-on-gap"}


@dataclass(frozen=True)
class Verdict:
    status: int
    reason: str = ""  # one line for every status but 0 and 1

    def as_json(self) -> dict[str, Any]:
        return {"exit_status": self.status, "reason": self.reason}


def verdict(summary: Mapping[str, Any], *, allow_skips: bool = False, pytest_code: int = 0) -> Verdict:
    """``pytest_code``: what pytest returned for the session that wrote ``summary`` (2: it was
    interrupted; anything but 0 and 1: something broke outside the rules)."""
    counts = summary.get("counts") or {}
    if counts.get("interrupted") or pytest_code == 2 or summary.get("interrupted"):
        # Before failures: a run stopped half-way is not a verdict on the target.
        return Verdict(130, "interrupted; the summary holds what finished")
    if counts.get("failed"):
        return Verdict(1)
    deadline = (summary.get("skip_kinds") or {}).get("run-deadline")
    if deadline:
        return Verdict(3, f"incomplete run: the run deadline (CONFORMANCE_RUN_SECONDS) was reached; "
                          f"{deadline} rules not run")
    if counts.get("error") or pytest_code not in (0, 1):
        return Verdict(2, f"{counts.get('error', 0)} harness errors (not target failures): see triage.md")
    if allow_skips:
        return Verdict(0)
    checked = summary.get("checked") or {}
    if checked.get("below_floor"):
        return Verdict(3, f"incomplete run: {checked['below_floor']}")
    why = _incomplete(summary, counts)
    if why:
        return Verdict(3, f"incomplete run: {'; '.join(why)} (--allow-skips accepts it)")
    return Verdict(0)


def _incomplete(summary: Mapping[str, Any], counts: Mapping[str, Any]) -> list[str]:
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
