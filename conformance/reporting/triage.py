"""What changed between two runs: the morning-after view.

Reads two ``summary.json`` files (or run directories holding one) and sorts every rule into new
failures, fixed, still failing, newly skipped, other changes, and rules added or removed by a
contract change. A verdict that changed while the service's contract digest did not is the
target's doing (or a flaky check); one that changed with the contract is marked as such.

Scope: only rules both runs checked are compared. A service one run did not select, or a rule it
did not select (``-k``, ``-m``; summary.json's status "not run"), is out of scope: listed as "not in
this run" (or "not in the base run"), never as removed. Added and removed are rules the contract
itself gained or lost (its digest changed).

Flaky: given the runs before the base too (``conformance triage`` over reports/runs reads the
last ``--window`` runs), a rule whose verdict flipped more than once inside the window while its
contract stayed the same is listed as flaky instead of new failure or fixed. Gap drift: what the
target showed for a documented gap or conflict (the gap observatory, summary.json's
``observed``) changed between the two runs; the documents do not specify it, so it is news,
not a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.errors import UsageError
from conformance.reporting.text import code_block, code_span

__all__ = ["Change", "Drift", "Triage", "compare", "finished_runs", "load_summary", "previous_run", "run_before"]

_BAD = ("failed", "error", "interrupted")
_EMPTY = {"New failures": "newly failing", "Fixed": "fixed", "Still failing": "still failing",
          "Newly skipped": "newly skipped", "Flaky": "flaky", "Other changes": "otherwise changed"}


_TEXT_OR_NONE = {"type": ["string", "null"]}
_COUNTS = {"type": "object", "additionalProperties": {"type": "integer"}}
_ITEMS = {"type": "array", "items": {"type": "object", "required": ["id"], "properties": {
    "id": {"type": "string"}, "observed": {"type": "array"}}}}
# What triage and merge read of a summary.json, with the types they rely on: a summary from
# another version, a CI artefact or a hand edit is refused in one line, never walked into a
# traceback (exit 1 from triage would read "new failures").
SUMMARY_SHAPE: dict[str, Any] = {
    "type": "object",
    "required": ["services"],
    "properties": {
        "services": {"type": "object", "additionalProperties": {"type": "object", "properties": {
            "rules": {"type": "array", "items": {"type": "object", "required": ["id", "status"], "properties": {
                "id": {"type": "string"}, "status": {"type": "string"}, "message": _TEXT_OR_NONE,
                "source": _TEXT_OR_NONE, "skip_kind": _TEXT_OR_NONE, "selected": {"type": "boolean"}}}},
            "gaps": _ITEMS, "conflicts": _ITEMS, "contract_digest": _TEXT_OR_NONE}}},
        "counts": _COUNTS, "skip_kinds": _COUNTS,
        "checked": {"type": "object", "properties": {"floor": _TEXT_OR_NONE}},
        "elapsed_seconds": {"type": ["number", "null"]},
        "interrupted": _TEXT_OR_NONE,
        "missing_required": {"type": "object"},
    },
}


def load_summary(where: Path) -> dict[str, Any]:
    """A summary.json, given as the file or as the run directory that holds it: read through the
    bounded funnel (conformance/files.py) and held to ``SUMMARY_SHAPE``."""
    import jsonschema

    from conformance.files import SUMMARY, load_json

    path = where / "summary.json" if where.is_dir() else where
    data = load_json(path, SUMMARY, UsageError)
    if not isinstance(data, dict) or not isinstance(data.get("services"), dict):
        raise UsageError(f"{path} is not a summary.json (no services)")
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(SUMMARY_SHAPE).iter_errors(data))
    if error is not None:
        place = "/".join(str(p) for p in error.absolute_path) or "(top)"
        raise UsageError(f"{path} is not a summary.json: at {ascii(place)[1:-1][:200]}: "
                         f"{ascii(error.message)[1:-1][:200]}")
    return data


def finished_runs(reports: Path) -> list[Path]:
    """Run directories under ``reports/runs`` that finished (hold a summary), oldest first: their
    names start with the UTC time, so name order is time order."""
    return sorted(p for p in (reports / "runs").glob("*") if (p / "summary.json").is_file())


def run_before(run_dir: Path, *, comparable: bool = False) -> Path | None:
    """The finished run just before ``run_dir`` in its runs/ folder, if any. ``comparable``: the
    last one against the same target with the same services selected (a baseline, not whatever
    ran last: a one-service fault run is no baseline for a full run)."""
    run_dir = run_dir.resolve()
    if run_dir.parent.name != "runs":
        return None
    earlier = [p for p in finished_runs(run_dir.parent.parent) if p.resolve().name < run_dir.name]
    if comparable:
        key = _scope(load_summary(run_dir))
        earlier = [p for p in earlier if _scope_of(p) == key]
    return earlier[-1] if earlier else None


def _scope(summary: dict[str, Any]) -> tuple[str, frozenset[str]]:
    """What a run looked at: its target and the services it selected rules of."""
    services = frozenset(name for name, data in summary["services"].items()
                         if any(isinstance(r, dict) and r.get("selected", True) for r in data.get("rules") or []))
    return str(summary.get("target")), services


def _scope_of(run_dir: Path) -> tuple[str, frozenset[str]] | None:
    try:
        return _scope(load_summary(run_dir))
    except UsageError:
        return None


def previous_run(reports: Path) -> tuple[Path, Path]:
    """The last two finished runs under ``reports/runs`` (the base, then the current one)."""
    runs = finished_runs(reports)
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
class Drift:
    """What the target showed for a gap or conflict, before and after."""

    service: str
    id: str
    before: list[str]
    after: list[str]


@dataclass
class Triage:
    new_failures: list[Change] = field(default_factory=list)
    fixed: list[Change] = field(default_factory=list)
    still_failing: list[Change] = field(default_factory=list)
    newly_skipped: list[Change] = field(default_factory=list)
    other: list[Change] = field(default_factory=list)
    flaky: list[Change] = field(default_factory=list)
    gap_drift: list[Drift] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    compared: int = 0
    # Per service: the rules one run checked and the other did not select (out of scope).
    not_in_this_run: dict[str, list[str]] = field(default_factory=dict)
    not_in_base_run: dict[str, list[str]] = field(default_factory=dict)
    # Services the other run did not select at all (their rules are not listed one by one).
    services_not_in_this_run: list[str] = field(default_factory=list)
    services_not_in_base_run: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        def rows(items: list[Change]) -> list[dict[str, Any]]:
            return [vars(c) for c in items]

        return {"new_failures": rows(self.new_failures), "fixed": rows(self.fixed),
                "still_failing": rows(self.still_failing), "newly_skipped": rows(self.newly_skipped),
                "other_changes": rows(self.other), "flaky": rows(self.flaky),
                "gap_drift": [vars(d) for d in self.gap_drift],
                "rules_added": self.added, "rules_removed": self.removed, "compared": self.compared,
                "not_in_this_run": self.not_in_this_run, "not_in_base_run": self.not_in_base_run,
                "services_not_in_this_run": self.services_not_in_this_run,
                "services_not_in_base_run": self.services_not_in_base_run}

    def markdown(self, docs_url: str = "") -> str:
        def link(c: Change) -> str:
            if not c.source:
                return ""
            target = f"{docs_url.rstrip('/')}/{c.source.split('/')[-1]}" if docs_url else c.source
            return f" ([source]({target}))"

        def note(c: Change) -> str:
            return " — the contract changed too" if c.contract_changed else ""

        sections = (("New failures", self.new_failures, True), ("Fixed", self.fixed, False),
                    ("Still failing", self.still_failing, False), ("Newly skipped", self.newly_skipped, True),
                    ("Flaky (verdict flipped more than once, contract unchanged)", self.flaky, True),
                    ("Other changes", self.other, False))
        # The headline first, then only the sections that hold something: a reader (or a small
        # frame) sees what changed before it sees what did not.
        lines = ["# What changed since the last run", "",
                 f"{self.compared} rules checked in both runs: " + ", ".join(
                     f"{len(items)} {title.split(' (')[0].lower()}" for title, items, _ in sections) + ".", ""]
        empty = [title.split(" (")[0] for title, items, _ in sections if not items]
        for title, items, show_message in sections:
            if not items:
                continue
            lines.append(f"## {title} ({len(items)})")
            for c in items:
                lines.append(f"- `{c.rule}`: {c.before} → {c.after}{note(c)}{link(c)}")
                if show_message and c.message:
                    # The whole message (expected, sent, got: the lines that say why), fenced: it
                    # quotes the target, and no Markdown or HTML in it may close the list, add a
                    # heading or hide what follows in a comment.
                    lines += ["", *(f"  {line}" for line in code_block(c.message)), ""]
            lines.append("")
        if empty:
            words = [_EMPTY[t] for t in empty]
            lines += [f"No rule {', '.join(words[:-1]) + ' or ' if len(words) > 1 else ''}{words[-1]}.", ""]
        if self.gap_drift:
            lines.append(f"## Gap drift: what the target showed where the documents are silent ({len(self.gap_drift)})")
            for d in self.gap_drift:
                # What the target showed, quoted as code (it may hold Markdown or HTML of its own).
                was, now = (code_span("; ".join(shown)[:200]) if shown else "nothing" for shown in (d.before, d.after))
                lines.append(f"- `{d.id}`: {was} → {now}")  # the id names its service
            lines.append("")
        for title, services, rules in (("Not in this run (out of scope, not compared)", self.services_not_in_this_run,
                                        self.not_in_this_run),
                                       ("Not in the base run (out of scope, not compared)",
                                        self.services_not_in_base_run, self.not_in_base_run)):
            if services or rules:
                lines.append(f"## {title}")
                lines += [f"- service `{s}` not selected" for s in services]
                lines += [f"- `{s}`: {len(ids)} rules not selected" for s, ids in sorted(rules.items())]
                lines.append("")
        if self.added or self.removed:
            lines.append(f"## Rules added ({len(self.added)}) / removed ({len(self.removed)}) by a contract change")
            lines += [f"- added `{r}`" for r in self.added] + [f"- removed `{r}`" for r in self.removed]
            lines.append("")
        return "\n".join(lines)


def _rules(summary: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for service, data in summary["services"].items():
        for rule in data.get("rules") or []:
            if isinstance(rule, dict) and "id" in rule:
                out[rule["id"]] = (service, rule)
    return out


def _flips(rule_id: str, service: str, runs: list[tuple[dict[str, Any], dict[str, Any]]]) -> int:
    """How often the rule's verdict (bad or not) changed across ``runs`` (each a summary with its
    rules indexed by ``_rules``) with one contract."""
    seen: list[bool] = []
    digests = set()
    for run, rules in runs:
        data = run["services"].get(service)
        rule = rules.get(rule_id)
        if data is None or rule is None or rule[1].get("status") in ("skipped", "not run"):
            continue
        digests.add(data.get("contract_digest"))
        seen.append(str(rule[1].get("status")) in _BAD)
    if len(digests) > 1:
        return 0
    return sum(1 for a, b in zip(seen, seen[1:], strict=False) if a != b)


def _observers(service: str) -> dict[str, set[str]]:
    """Gap or conflict id -> the rules of ``service`` that observe it (``params.gap``,
    ``params.observes``), from its contract; empty when the contract cannot be loaded."""
    from conformance.contract import load_contract
    from conformance.errors import HarnessError

    try:
        rules = load_contract(service).rules
    except HarnessError:
        return {}
    out: dict[str, set[str]] = {}
    for rule in rules:
        for key in ("gap", "observes"):
            if isinstance(rule.params.get(key), str):
                out.setdefault(rule.params[key], set()).add(rule.id)
    return out


def _ran(rule: tuple[str, dict[str, Any]] | None) -> bool:
    """The rule ran in that run (judged, or skipped having observed): it could have seen the gap."""
    if rule is None:
        return False
    status, kind = rule[1].get("status"), rule[1].get("skip_kind")
    return status in ("passed", "failed") or (status == "skipped" and kind == "gap-observed")


def _observed(summary: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for service, data in summary["services"].items():
        for item in [*(data.get("gaps") or []), *(data.get("conflicts") or [])]:
            if isinstance(item, dict) and "id" in item:
                out[(service, str(item["id"]))] = [str(v) for v in item.get("observed") or []]
    return out


def compare(base: dict[str, Any], current: dict[str, Any], earlier: list[dict[str, Any]] | None = None) -> Triage:
    """``earlier``: runs before ``base``, oldest first, for telling flaky rules apart."""
    before, after = _rules(base), _rules(current)
    result = Triage()
    base_services, current_services = set(base["services"]), set(current["services"])
    result.services_not_in_this_run = sorted(base_services - current_services)
    result.services_not_in_base_run = sorted(current_services - base_services)
    for rule_id in sorted(set(before) ^ set(after)):
        service = (before.get(rule_id) or after[rule_id])[0]
        if service in base_services and service in current_services:  # both contracts were loaded
            (result.added if rule_id in after else result.removed).append(rule_id)
    window = [(run, _rules(run)) for run in (*(earlier or []), base, current)]
    seen_before, seen_after = _observed(base), _observed(current)
    observers = {service: _observers(service) for service in base_services & current_services}
    for key in sorted(set(seen_before) & set(seen_after)):
        if seen_before[key] == seen_after[key] or not seen_after[key]:
            continue
        # Scoped to what both runs looked at: "nothing" in a run where no observing rule ran is
        # not something the target stopped showing.
        watchers = observers.get(key[0], {}).get(key[1], set())
        if watchers and not (any(_ran(before.get(r)) for r in watchers) and any(_ran(after.get(r)) for r in watchers)):
            continue
        result.gap_drift.append(Drift(key[0], key[1], seen_before[key], seen_after[key]))
    for rule_id in sorted(set(before) & set(after)):
        (service, old), (_, new) = before[rule_id], after[rule_id]
        was, now = str(old.get("status")), str(new.get("status"))
        if was == "not run" or now == "not run":  # not selected in one run: out of scope, not compared
            if was != now:
                side = result.not_in_this_run if now == "not run" else result.not_in_base_run
                side.setdefault(service, []).append(rule_id)
            continue
        result.compared += 1
        digest_old = base["services"][service].get("contract_digest")
        digest_new = current["services"][service].get("contract_digest")
        change = Change(rule_id, was, now, str(new.get("source", "")), str(new.get("message", "")),
                        contract_changed=bool(digest_old and digest_new and digest_old != digest_new))
        if (now in _BAD) != (was in _BAD) and not change.contract_changed and _flips(rule_id, service, window) > 1:
            result.flaky.append(change)
        elif now in _BAD and was not in _BAD and now != "not run":
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
