"""What a proxy session saw: per rule its exchanges (seen, passed, failed, observed), the failures
no rule holds (by the schema's JSON pointer), the caller's mistakes, and the operations the
contract does not know. Memory is bounded: counts grow, kept examples do not."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from conformance.proxy.findings import CALLER, FAILED, OBSERVED, Finding

__all__ = ["RuleTally", "Tally"]

_KEEP = 5  # examples kept per rule or pointer
_KEEP_MISTAKES = 200
_KEEP_UNKNOWN = 100


@dataclass
class RuleTally:
    seen: int = 0
    passed: int = 0
    failed: int = 0
    observed: int = 0
    failures: list[str] = field(default_factory=list)  # "exchange 3: GET /v1.0/themes -> 200: ..."
    observations: list[str] = field(default_factory=list)
    gaps: set[str] = field(default_factory=set)

    def as_json(self) -> dict[str, int]:
        return {"seen": self.seen, "passed": self.passed, "failed": self.failed, "observed": self.observed}


@dataclass
class Tally:
    exchanges: int = 0
    rules: dict[str, RuleTally] = field(default_factory=dict)
    # Vendor findings no rule holds, by (pointer, verdict): count and first examples.
    unattributed: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    caller: list[dict[str, Any]] = field(default_factory=list)
    caller_count: int = 0
    unknown: Counter[str] = field(default_factory=Counter)
    # Exchanges the proxy could not check (the upstream unreachable, an answer over the cap ...).
    unchecked: Counter[str] = field(default_factory=Counter)
    # Gap id -> what was seen there (never judged).
    gap_observed: dict[str, set[str]] = field(default_factory=dict)

    def next_label(self, method: str, path: str) -> tuple[int, str]:
        self.exchanges += 1
        return self.exchanges, f"exchange {self.exchanges}: {method} {path}"

    def add(self, label: str, touched: list[str], findings: list[Finding], status: int) -> None:
        by_rule: dict[str, list[Finding]] = {}
        for finding in findings:
            if finding.side == CALLER:
                self._caller(label, finding, status)
                continue
            if finding.gap:
                self.gap_observed.setdefault(finding.gap, set())
                if len(self.gap_observed[finding.gap]) < _KEEP:
                    self.gap_observed[finding.gap].add(f"{finding.operation}: {finding.message}")
            if not finding.rules:
                self._unattributed(label, finding)
            for rule_id in finding.rules:
                by_rule.setdefault(rule_id, []).append(finding)
        for rule_id in dict.fromkeys([*touched, *by_rule]):
            tally = self.rules.setdefault(rule_id, RuleTally())
            tally.seen += 1
            got = by_rule.get(rule_id, [])
            failed = [f for f in got if f.verdict == FAILED]
            observed = [f for f in got if f.verdict == OBSERVED]
            if failed:
                tally.failed += 1
                if len(tally.failures) < _KEEP:
                    tally.failures.append(f"{label} -> {status}: {failed[0].message}")
            elif observed:
                tally.observed += 1
                tally.gaps.update(f.gap for f in observed if f.gap)
                if len(tally.observations) < _KEEP:
                    tally.observations.append(f"{label} -> {status}: {observed[0].message}")
            else:
                tally.passed += 1

    def _unattributed(self, label: str, finding: Finding) -> None:
        entry = self.unattributed.setdefault((finding.pointer, finding.verdict), {
            "pointer": finding.pointer, "operation": finding.operation, "kind": finding.kind, "where": finding.where,
            "verdict": finding.verdict, "gap": finding.gap, "count": 0, "examples": []})
        entry["count"] += 1
        if len(entry["examples"]) < _KEEP:
            entry["examples"].append(f"{label}: {finding.message}")

    def _caller(self, label: str, finding: Finding, status: int) -> None:
        self.caller_count += 1
        if len(self.caller) < _KEEP_MISTAKES:
            self.caller.append({"exchange": label, "operation": finding.operation, "kind": finding.kind,
                                "where": finding.where, "rules": finding.rules, "pointer": finding.pointer,
                                "message": finding.message, "upstream_status": status})

    def note_unknown(self, method: str, path: str) -> None:
        key = f"{method} {path}"
        if key in self.unknown or len(self.unknown) < _KEEP_UNKNOWN:
            self.unknown[key] += 1

    def note_unchecked(self, why: str) -> None:
        """An exchange not checked, and why (distinct reasons bounded; the rest counted together)."""
        key = why if why in self.unchecked or len(self.unchecked) < _KEEP_UNKNOWN else "(other reasons, not listed)"
        self.unchecked[key] += 1

    def judged(self) -> bool:
        """Whether any exchange passed or failed a rule, or failed by pointer (else nothing was judged)."""
        return any(t.passed or t.failed for t in self.rules.values()) or self.vendor_failed()

    def vendor_failed(self) -> bool:
        return any(t.failed for t in self.rules.values()) or any(
            e["verdict"] == FAILED for e in self.unattributed.values())
