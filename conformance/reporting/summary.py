"""The per-rule summary: printed at the end of a run, and written as JSON and a triage file."""

from __future__ import annotations

import datetime
import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.contract import Contract
from conformance.discovery import discovered
from conformance.reporting.checked import CheckedShare, checked_share
from conformance.reporting.text import code_block, shorten
from conformance.reporting.verdict import verdict
from conformance.runner import ERROR, FAILED, INTERRUPTED, PASSED, SKIPPED, Outcome
from conformance.settings import MinChecked

__all__ = ["RunSummary", "write_atomic"]

_MARK = {PASSED: "PASS", FAILED: "FAIL", SKIPPED: "SKIP", ERROR: "ERROR", INTERRUPTED: "INTR"}


@dataclass
class RunSummary:
    target: str
    profile: str
    contracts: dict[str, Contract] = field(default_factory=dict)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    # Per service: required credentials the target lacked (a run without them checks little).
    missing_required: dict[str, list[str]] = field(default_factory=dict)
    # The least share of rules to check (--min-checked); None: no floor.
    floor: MinChecked | None = None
    # The signal that stopped the run (SIGINT/SIGTERM), when one did.
    interrupted: str | None = None
    # Ids of the rules selected for the run (-k, -m); None: the rules that ran.
    selected: set[str] | None = None

    def select(self, contracts: list[Contract], rule_ids: set[str]) -> None:
        """The run's selection, known before any rule runs: rules never reached count as not run."""
        for contract in contracts:
            self.contracts.setdefault(contract.service, contract)
        self.selected = set(rule_ids)
    first_start: float | None = None
    last_end: float = 0.0

    def note_target(self, service: str, missing: list[str]) -> None:
        self.missing_required[service] = missing

    def begin(self) -> None:
        """A rule starts (the first one starts the run's clock)."""
        if self.first_start is None:
            self.first_start = time.monotonic()

    def add(self, contract: Contract, outcome: Outcome) -> None:
        self.begin()
        self.last_end = time.monotonic()
        self.contracts.setdefault(contract.service, contract)
        self.outcomes[outcome.case_id] = outcome

    def counts(self) -> Counter[str]:
        return Counter(str(o.status) for o in self.outcomes.values())

    def lines(self, every_rule: bool = False) -> list[str]:
        """Per service its counts, then each rule that did not pass (every rule with
        ``every_rule``), gaps and conflicts; last the run's totals and its own elapsed time."""
        out: list[str] = []
        for service, contract in self.contracts.items():
            got = [self.outcomes[r.id] for r in contract.rules if r.id in self.outcomes]
            c = Counter(str(o.status) for o in got)
            out.append(
                f"{service} ({self.target}, {self.profile}): {len(contract.rules)} rules: "
                f"{c[PASSED]} passed, {c[FAILED]} failed, {c[SKIPPED]} skipped, {c[ERROR]} errors"
                f"{f', {c[INTERRUPTED]} interrupted' if c[INTERRUPTED] else ''}; "
                f"{len(contract.gaps)} documented gaps; {len(contract.conflicts)} conflicts"
            )
            for rule in contract.rules:
                outcome = self.outcomes.get(rule.id)
                if outcome is None or (outcome.status == PASSED and not every_rule):
                    continue
                note = ""
                if outcome.status != PASSED:
                    note = "  -- " + shorten(outcome.message, 160)
                basis = f" [{rule.standard}]" if rule.standard else ""
                out.append(f"  {_MARK[outcome.status]:5} {rule.id}{basis}{note}")
            for gap in contract.gaps:
                observed = sorted({o.observations[gap.id] for o in got if gap.id in o.observations})
                if observed:
                    out.append(f"  GAP {gap.id}: target shows {'; '.join(observed)[:300]} (not judged)")
            for conflict in contract.conflicts:
                seen = sorted({o.observations[conflict.id] for o in got if conflict.id in o.observations})
                shown = ", ".join(seen) if seen else "not observed"
                alternatives = ", ".join(conflict.alternatives)
                out.append(f"  CONFLICT {conflict.id}: target shows {shown} (alternatives {alternatives})")
            out.append(f"  {service}: {checked_share(self._rule_entries(contract)).line()}")
        c = self.counts()
        out.append(f"total: {len(self.outcomes)} rules: {c[PASSED]} passed, {c[FAILED]} failed, {c[SKIPPED]} skipped, "
                   f"{c[ERROR]} errors{f', {c[INTERRUPTED]} interrupted' if c[INTERRUPTED] else ''} "
                   f"in {self.elapsed():.1f} s (the rules' own time, not the pytest session's)")
        return out

    def elapsed(self) -> float:
        """From the first rule's start to the last rule's end: the run, not the session around it."""
        return 0.0 if self.first_start is None else self.last_end - self.first_start

    def _rule_entries(self, contract: Contract) -> list[dict[str, Any]]:
        chosen = self.selected if self.selected is not None else set(self.outcomes)
        return [{"status": self.outcomes[r.id].status if r.id in self.outcomes else "not run",
                 "message": self.outcomes[r.id].message if r.id in self.outcomes else "",
                 "skip_kind": _kind(self.outcomes.get(r.id))} for r in contract.rules if r.id in chosen]

    def share(self) -> CheckedShare:
        """The run's checked share over every selected rule, held against the floor."""
        return checked_share([e for c in self.contracts.values() for e in self._rule_entries(c)], self.floor)

    def as_json(self) -> dict[str, Any]:
        services: dict[str, Any] = {}
        for service, contract in self.contracts.items():
            services[service] = {
                "rules": [
                    {
                        "id": r.id, "kind": r.kind, "operation": r.operation, "statement": r.statement,
                        # "document": the document's own words; "standard": one it points to.
                        "basis": r.basis, "standard": r.standard,
                        "source": f"{r.source.path}#{r.source.anchor}",
                        "status": self.outcomes[r.id].status if r.id in self.outcomes else "not run",
                        "message": self.outcomes[r.id].message if r.id in self.outcomes else "",
                        "skip_kind": _kind(self.outcomes.get(r.id)),
                        # In the run's selection (-k, -m): merged runs recompute the checked share from it.
                        "selected": r.id in (self.selected if self.selected is not None else self.outcomes),
                    }
                    for r in contract.rules
                ],
                "gaps": [{"id": g.id, "statement": g.statement, "observed": sorted({
                    o.observations[g.id] for o in self.outcomes.values() if g.id in o.observations})}
                    for g in contract.gaps],
                "conflicts": [
                    {"id": c.id, "statement": c.statement, "observed": sorted({
                        o.observations[c.id] for o in self.outcomes.values() if c.id in o.observations})}
                    for c in contract.conflicts
                ],
            }
        skips = Counter(_kind(o) for o in self.outcomes.values() if o.status == SKIPPED)
        for service, contract in self.contracts.items():
            services[service]["checked"] = checked_share(self._rule_entries(contract)).as_json()
            services[service]["contract_digest"] = contract.digest
            # The path settings in force (what the documents do not show), so a run can be redone.
            services[service]["path_settings"] = {n: v for n, (v, _d) in contract.server_variables().items()}
            # Settings `run --discover` read from the target (name -> where from); the user's own are not here.
            services[service]["discovered"] = discovered().get(service, {})
        data: dict[str, Any] = {
            "generated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "harness_version": _version(), "commit": _commit(),
            "target": self.target, "profile": self.profile, "counts": dict(self.counts()),
            "elapsed_seconds": round(self.elapsed(), 3),
            "skip_kinds": dict(skips), "checked": self.share().as_json(), "interrupted": self.interrupted,
            "missing_required": self.missing_required, "services": services}
        data["verdict"] = verdict(data).as_json()
        return data

    def write(self, report_dir: Path) -> dict[str, Any]:
        """Writes summary.json and triage.md; returns what summary.json holds (the Allure
        environment reads it too, without a second git call)."""
        report_dir.mkdir(parents=True, exist_ok=True)
        data = self.as_json()
        write_atomic(report_dir / "summary.json", json.dumps(data, indent=2))
        triage = ["# Triage", "", f"Target `{self.target}`, profile `{self.profile}`.", ""]
        bad = [o for o in self.outcomes.values() if o.status in (FAILED, ERROR, INTERRUPTED)]
        if not bad:
            triage.append("No rule failed.")
        for outcome in bad:
            # The message quotes what the target sent: in a block no content can close.
            triage += [f"## {outcome.status.upper()}: {outcome.case_id}", "", *code_block(outcome.message.strip()), ""]
        write_atomic(report_dir / "triage.md", "\n".join(triage) + "\n")
        return data


def _kind(outcome: Outcome | None) -> str | None:
    return outcome.skip_kind.value if outcome is not None and outcome.skip_kind else None


def write_atomic(path: Path, text: str) -> None:
    """Readers never see half a file: write beside it, then rename over it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("conformance")
    except PackageNotFoundError:
        return "unknown"


def _commit() -> str | None:
    """The harness checkout's commit, when it is one (reports name what produced them)."""
    import subprocess

    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None
