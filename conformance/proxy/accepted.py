"""The vendor's side of a caller's mistake: what one exchange can show of a refusal rule.

A rule that names the status a violation is refused with (``violation.status``: "textMode is one of
generate, condense, preserve", refused with 400) is broken when the upstream answers a request that
breaks it with a 2xx: it took what the document says it refuses. Acceptance needs no control; the
2xx is the whole evidence. The other answers are not judged:

- a refusal (the documented status or any 4xx) does not pass the rule: a refusal check needs a
  control request that succeeded first (the same request with the point made valid), and traffic
  has none. The 4xx could be about anything else the request carried (an unknown id, a spent quota);
- a 5xx is never a refusal (an undocumented one already fails by pointer, ``vendor.py``);
- a rule that names no status is not judged at all: only where the rule says the request is
  refused is its acceptance the vendor's failure (some only bound what is returned, e.g. a page size).

A rule resting on a gap makes the failure an observation, as every vendor finding (``findings.py``).
"""

from __future__ import annotations

from conformance.proxy.findings import CALLER, VENDOR, Finding, RuleIndex

__all__ = ["accepted_findings"]


def accepted_findings(index: RuleIndex, caller: list[Finding], status: int) -> list[Finding]:
    """One vendor finding per refusal rule the caller's mistakes broke, when ``status`` is a 2xx."""
    if not 200 <= status < 300:
        return []
    found: dict[str, Finding] = {}
    for mistake in caller:
        if mistake.side != CALLER:
            continue
        for rule_id in mistake.rules:
            rule = index.contract.rule(rule_id)
            refused = (rule.violation or {}).get("status")
            if not refused or rule_id in found:
                continue
            found[rule_id] = index.attribute(Finding(
                VENDOR, mistake.kind, mistake.operation, mistake.where, mistake.pointer,
                f"{status} to a request the document says is refused with {refused}: {mistake.message}"), [rule])
    return list(found.values())
