"""What a proxy session saw, as a run: summary.json in the shape a run writes (so ``conformance
triage`` compares it with a run or another session), triage.md, with the caller's mistakes in
a section of their own, junit.xml (``junit.py``) and Allure results (``allure.py``).

Per rule: a rule some exchange failed is failed (the message names the exchanges); one that only
passed is passed; one whose findings all fell where a gap leaves the documents silent is skipped
``gap-observed``; a rule no exchange touched is skipped ``not-exercised``, never passed. Each rule
entry carries ``exchanges`` (seen, passed, failed, observed); the service entry carries ``proxy``:
the upstream's origin, the failures no rule holds (by the schema's JSON pointer), the caller's
mistakes, the operations the contract does not know and the exchanges not checked. Every text is
scrubbed of the credentials callers sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.errors import SkipKind
from conformance.proxy.allure import write_allure
from conformance.proxy.app import ProxySession
from conformance.proxy.findings import FAILED, OBSERVED
from conformance.proxy.junit import write_junit
from conformance.reporting.summary import RunSummary, write_atomic
from conformance.reporting.text import code_block, code_span, visible
from conformance.runner import FAILED as RULE_FAILED
from conformance.runner import PASSED, SKIPPED, Outcome
from conformance.transport.scrub import scrub_json_text, scrub_text

__all__ = ["TARGET", "write_report"]

TARGET = "proxy"


def _outcome(session: ProxySession, rule_id: str) -> Outcome:
    tally = session.tally.rules.get(rule_id)
    if tally is None or tally.seen == 0:
        return Outcome(rule_id, SKIPPED, "no exchange through the proxy touched this rule",
                       skip_kind=SkipKind.NOT_EXERCISED)
    counts = f"{tally.seen} exchanges: {tally.passed} passed, {tally.failed} failed, {tally.observed} observed"
    if tally.failed:
        return Outcome(rule_id, RULE_FAILED, f"{counts}; " + "; ".join(tally.failures))
    if tally.passed:
        return Outcome(rule_id, PASSED, counts)
    observations = {gap: "; ".join(tally.observations) for gap in sorted(tally.gaps)}
    return Outcome(rule_id, SKIPPED, f"{counts} (where the documents are silent: not judged); "
                   + "; ".join(tally.observations), skip_kind=SkipKind.GAP_OBSERVED, observations=observations)


def summary_data(session: ProxySession, stopped_by: str | None) -> dict[str, Any]:
    contract = session.contract
    # Not ``interrupted``: a signal is how a session ends, and readers of summary.json (exit status,
    # merge, Allure) take an interrupted run for one that is no verdict. The proxy entry says it.
    summary = RunSummary(target=TARGET, profile=TARGET)
    summary.select([contract], {r.id for r in contract.rules})
    for rule in contract.rules:
        summary.outcomes[rule.id] = _outcome(session, rule.id)
    data = summary.as_json()
    service = data["services"][contract.service]
    for entry in service["rules"]:
        seen = session.tally.rules.get(entry["id"])
        entry["exchanges"] = seen.as_json() if seen else {"seen": 0, "passed": 0, "failed": 0, "observed": 0}
    for gap in service["gaps"]:
        gap["observed"] = sorted(set(gap["observed"]) | session.tally.gap_observed.get(gap["id"], set()))
    tally = session.tally
    service["proxy"] = {
        "upstream": session.forwarder.origin, "stopped_by": stopped_by,
        "exchanges": tally.exchanges,
        "vendor_unattributed": sorted(tally.unattributed.values(), key=lambda e: (e["verdict"], e["pointer"])),
        "caller_mistakes": tally.caller, "caller_mistakes_total": tally.caller_count,
        "unknown_operations": dict(tally.unknown), "unchecked": dict(tally.unchecked),
        "harness_errors": session.harness_errors,
    }
    return _visible(json.loads(scrub_json_text(json.dumps(data), session.secrets)))


def _visible(data: Any) -> Any:
    """Every string with its control characters as visible escapes (``reporting.text.visible``): the
    upstream's bodies and headers and the caller's values and paths are quoted in findings, and a
    terminal or viewer showing a report must not act on them (as a run's reports, issue 34)."""
    if isinstance(data, dict):
        return {_visible(k): _visible(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_visible(v) for v in data]
    return visible(data) if isinstance(data, str) else data


def write_report(session: ProxySession, report_dir: Path, stopped_by: str | None) -> dict[str, Any]:
    report_dir.mkdir(parents=True, exist_ok=True)
    data = summary_data(session, stopped_by)
    write_atomic(report_dir / "summary.json", json.dumps(data, indent=2))
    write_atomic(report_dir / "triage.md", scrub_text("\n".join(_triage(session, data)) + "\n", session.secrets))
    write_junit(data, report_dir / "junit.xml")
    write_allure(data, report_dir / "allure-results", Path(__file__).resolve().parents[2])
    return data


def _triage(session: ProxySession, data: dict[str, Any]) -> list[str]:
    service = data["services"][session.contract.service]
    proxy = service["proxy"]
    out = ["# Triage", "", f"Target `{TARGET}` (upstream {proxy['upstream']}), service `{session.contract.service}`: "
           f"{proxy['exchanges']} exchanges.", "", "## The vendor's failures", ""]
    failed = [r for r in service["rules"] if r["status"] == "failed"]
    loose = [e for e in proxy["vendor_unattributed"] if e["verdict"] == FAILED]
    if not failed and not loose:
        out += ["No rule failed.", ""]
    for rule in failed:
        out += [f"### FAILED: {rule['id']}", "", rule["statement"], "", *code_block(rule["message"]), ""]
    for entry in loose:
        out += [f"### FAILED: openapi.yaml{entry['pointer']} ({entry['operation']}, {entry['count']} exchanges)", "",
                *code_block("\n".join(entry["examples"])), ""]
    observed = [r for r in service["rules"] if r.get("skip_kind") == "gap-observed"]
    loose_seen = [e for e in proxy["vendor_unattributed"] if e["verdict"] == OBSERVED]
    if observed or loose_seen:
        out += ["## Observed where the documents are silent (not judged)", ""]
        out += [f"- {r['id']}: {code_span(r['message'])}" for r in observed]
        out += [f"- openapi.yaml{e['pointer']} ({e['gap'] or 'what the documents do not list'}; {e['count']} "
                f"exchanges): {code_span(e['examples'][0])}" for e in loose_seen]
        out.append("")
    out += ["## The caller's mistakes", ""]
    if not proxy["caller_mistakes"]:
        out += ["None: every request was what the documents allow.", ""]
    statements = {r.id: r.statement for r in session.contract.rules}
    for mistake in proxy["caller_mistakes"]:
        named = ", ".join(mistake["rules"]) or f"openapi.yaml{mistake['pointer']}"
        said = f" ({statements[mistake['rules'][0]]})" if mistake["rules"] else ""
        # The exchange (its path) and the message (its values) are the caller's text: code spans.
        out.append(f"- {code_span(mistake['exchange'])}: {code_span(mistake['message'])} -- {named}{said}; the "
                   f"upstream answered {mistake['upstream_status']}, passed through unchanged")
    if proxy["caller_mistakes_total"] > len(proxy["caller_mistakes"]):
        out.append(f"- ... {proxy['caller_mistakes_total'] - len(proxy['caller_mistakes'])} more not listed")
    out.append("")
    if proxy["unknown_operations"]:
        out += ["## Operations the contract does not know (reported, not judged)", ""]
        unknown = sorted(proxy["unknown_operations"].items())
        out += [f"- {code_span(name)}: {count} exchanges" for name, count in unknown]
        out.append("")
    if proxy["unchecked"] or proxy["harness_errors"]:
        out += ["## Not checked", ""]
        out += [f"- {code_span(what)}: {count}" for what, count in sorted(proxy["unchecked"].items())]
        out += [f"- harness error: {code_span(what)}" for what in proxy["harness_errors"]]
        out.append("")
    skipped = sum(1 for r in service["rules"] if r.get("skip_kind") == "not-exercised")
    out.append(f"{skipped} of {len(service['rules'])} rules were not exercised by this traffic.")
    return out
