"""The checked share: how many of the selected rules a run judged, and what kept the rest out.

A run green on a tenth of its rules is a false promise, so the share is part of the verdict:
"checked N of M rules" ends every run (terminal, summary.json, JUnit properties, Allure
environment), with the rules not checked counted by why. Checked means judged: passed or failed.
The floor (``--min-checked``) is held against the rules a target could judge at all: rules
skipped ``gap-observed`` record what a documented gap leaves open and are never judged anywhere,
so they are counted but not held against the floor.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from conformance.settings import MinChecked

__all__ = ["CheckedShare", "checked_share"]

# Never judged anywhere: counted in M, left out of what the floor is held against.
_NEVER_JUDGED = {"gap-observed"}
# What would let rules of each kind run, when their messages name nothing more precise.
_UNLOCK = {
    "needs-allowance": "--allow write/spend (CONFORMANCE_ALLOW)",
    "credential-missing": "the credentials named in the skips (`conformance env`)",
    "depends-on-gap": "the target settings that resolve the gaps",
    "not-checkable-on-target": "a target that can (the simulator)",
    "cassette-missing": "recording them (--record)",
    "rate-limited": "a later run or CONFORMANCE_RETRY_AFTER_CEILING",
    "target-transient": "a later run (the target kept answering statuses its document says to retry)",
    "run-deadline": "CONFORMANCE_RUN_SECONDS",
    "not-exercised": "target data that exercises them",
    "unchecked": "a check (none implements them yet)",
    "error": "fixing the harness errors (triage.md)",
    "interrupted": "letting the run finish",
    "not run": "letting the run finish",
}
_NAMED = re.compile(r"--allow (?:spend|write)|CONFORMANCE_[A-Z0-9_]+")


@dataclass
class CheckedShare:
    checked: int
    total: int
    # Rules not checked, by why: a skip kind, "error", "interrupted" or "not run".
    not_checked: Counter[str] = field(default_factory=Counter)
    # Per reason, the variables and allowances the rules' messages name, most named first.
    unlock: dict[str, list[str]] = field(default_factory=dict)
    floor: MinChecked | None = None

    @property
    def judgeable(self) -> int:
        return self.total - sum(n for k, n in self.not_checked.items() if k in _NEVER_JUDGED)

    @property
    def met(self) -> bool:
        return self.floor is None or self.checked >= self.floor.needed(self.judgeable)

    def _reasons(self, limit: int = 8) -> str:
        return ", ".join(f"{n} {k}" for k, n in self.not_checked.most_common(limit))

    def line(self) -> str:
        """``checked 30 of 42 rules; not checked: 12 gap-observed; floor 80%: met``"""
        text = f"checked {self.checked} of {self.total} rules"
        if self.not_checked:
            text += f"; not checked: {self._reasons()}"
        if self.floor is not None:
            text += f"; floor {self.floor} of {self.judgeable} judgeable: {'met' if self.met else 'NOT met'}"
        return text

    def below_floor(self) -> str:
        """One line: the share, the floor, and what kept the rules from running (the dominant
        reasons, each with what would unlock it)."""
        why = []
        for kind, n in self.not_checked.most_common(3):
            if kind in _NEVER_JUDGED:
                continue
            named = self.unlock.get(kind) or []
            hint = ", ".join(named[:3]) if named else _UNLOCK.get(kind, "")
            why.append(f"{n} {kind}" + (f" (set {hint})" if named else f" ({hint})" if hint else ""))
        needed = self.floor.needed(self.judgeable) if self.floor else 0
        lead = "no rule was checked: " if not self.checked else ""
        return (f"{lead}checked {self.checked} of {self.total} rules, below the floor of {self.floor} "
                f"({needed} of {self.judgeable} judgeable; --min-checked): {'; '.join(why) or 'nothing ran'}")

    def as_json(self) -> dict[str, Any]:
        return {"checked": self.checked, "of": self.total, "judgeable": self.judgeable,
                "not_checked": dict(self.not_checked.most_common()), "unlock": self.unlock,
                "floor": str(self.floor) if self.floor else None,
                "floor_rules": self.floor.needed(self.judgeable) if self.floor else None, "met": self.met,
                "line": self.line(), "below_floor": None if self.met else self.below_floor()}


def checked_share(rules: list[dict[str, Any]], floor: MinChecked | None = None) -> CheckedShare:
    """From summary.json's rule entries (status, skip_kind, message)."""
    share = CheckedShare(0, len(rules), floor=floor)
    named: dict[str, Counter[str]] = {}
    for rule in rules:
        status = rule.get("status")
        if status in ("passed", "failed"):
            share.checked += 1
            continue
        kind = (rule.get("skip_kind") or "not-exercised") if status == "skipped" else str(status)
        share.not_checked[kind] += 1
        for name in _NAMED.findall(str(rule.get("message") or "")):
            named.setdefault(kind, Counter())[name] += 1
    share.unlock = {k: [n for n, _ in c.most_common()] for k, c in named.items()}
    return share
