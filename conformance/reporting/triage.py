"""What changed between two runs: the morning-after view.

Reads two ``summary.json`` files (or run directories holding one) and sorts every rule into new
failures, fixed, still failing, newly skipped, other changes, and rules added or removed by a
contract change. A verdict that changed while the service's contract digest did not is the
target's doing (or a flaky check); one that changed with the contract is marked as such.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.errors import UsageError

__all__ = ["Change", "Triage", "compare", "load_summary", "previous_run"]

_BAD = ("failed", "error", "interrupted")


def load_summary(where: Path) -> dict[str, Any]:
    """A summary.json, given as the file or as the run directory that holds it."""
    path = where / "summary.json" if where.is_dir() else where
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError):
        raise UsageError(f"{path} is not a summary.json (not JSON)") from None
    if not isinstance(data, dict) or not isinstance(data.get("services"), dict):
        raise UsageError(f"{path} is not a summary.json (no services)")
    return data


def previous_run(reports: Path) -> tuple[Path, Path]:
    """The last two finished runs under ``reports/runs`` (the base, then the current one)."""
    runs = sorted(p for p in (reports / "runs").glob("*") if (p / "summary.json").is_file())
    if len(runs) < 2:
        raise UsageError(f"triage needs two finished runs under {reports / 'runs'} (found {len(runs)}); "
                         "or name them: conformance triage BASE CURRENT")
    return runs[-2], runs[-1]


@dataclass
class Change:
    rule: str
    before: str
    after: str
    source: str = ""
    message: str = ""
    contract_changed: bool = False


@dataclass
class Triage:
    new_failures: list[Change] = field(default_factory=list)
    fixed: list[Change] = field(default_factory=list)
    still_failing: list[Change] = field(default_factory=list)
    newly_skipped: list[Change] = field(default_factory=list)
    other: list[Change] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        def rows(items: list[Change]) -> list[dict[str, Any]]:
            return [vars(c) for c in items]

        return {"new_failures": rows(self.new_failures), "fixed": rows(self.fixed),
                "still_failing": rows(self.still_failing), "newly_skipped": rows(self.newly_skipped),
                "other_changes": rows(self.other), "rules_added": self.added, "rules_removed": self.removed}

    def markdown(self, docs_url: str = "") -> str:
        def link(c: Change) -> str:
            if not c.source:
                return ""
            target = f"{docs_url.rstrip('/')}/{c.source.split('/')[-1]}" if docs_url else c.source
            return f" ([source]({target}))"

        def note(c: Change) -> str:
            return " — the contract changed too" if c.contract_changed else ""

        lines = ["# What changed since the last run", ""]
        for title, items, show_message in (("New failures", self.new_failures, True), ("Fixed", self.fixed, False),
                                           ("Still failing", self.still_failing, False),
                                           ("Newly skipped", self.newly_skipped, True),
                                           ("Other changes", self.other, False)):
            lines.append(f"## {title} ({len(items)})")
            for c in items:
                lines.append(f"- `{c.rule}`: {c.before} → {c.after}{note(c)}{link(c)}")
                if show_message and c.message:
                    lines.append(f"  > {c.message.strip().splitlines()[0][:200]}")
            lines.append("")
        lines.append(f"## Rules added ({len(self.added)}) / removed ({len(self.removed)})")
        lines += [f"- added `{r}`" for r in self.added] + [f"- removed `{r}`" for r in self.removed]
        return "\n".join(lines) + "\n"


def _rules(summary: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for service, data in summary["services"].items():
        for rule in data.get("rules") or []:
            if isinstance(rule, dict) and "id" in rule:
                out[rule["id"]] = (service, rule)
    return out


def compare(base: dict[str, Any], current: dict[str, Any]) -> Triage:
    before, after = _rules(base), _rules(current)
    result = Triage(added=sorted(set(after) - set(before)), removed=sorted(set(before) - set(after)))
    for rule_id in sorted(set(before) & set(after)):
        (service, old), (_, new) = before[rule_id], after[rule_id]
        was, now = str(old.get("status")), str(new.get("status"))
        digest_old = base["services"][service].get("contract_digest")
        digest_new = current["services"][service].get("contract_digest")
        change = Change(rule_id, was, now, str(new.get("source", "")), str(new.get("message", "")),
                        contract_changed=bool(digest_old and digest_new and digest_old != digest_new))
        if now in _BAD and was not in _BAD and now != "not run":
            result.new_failures.append(change)
        elif was in _BAD and now == "passed":
            result.fixed.append(change)
        elif was in _BAD and now in _BAD:
            result.still_failing.append(change)
        elif was == "passed" and now == "skipped":
            result.newly_skipped.append(change)
        elif was != now:
            result.other.append(change)
    return result
