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

Nor is acceptance judged where the documents leave the place open: a gap that speaks of it (its
``about``, or its ``about_none`` naming the place: "a web source also exists", unnamed, beside the
listed image sources, so an unlisted name may be it), or an enum value that is another case of a
listed one (no sentence says matching is case-sensitive: allowed variant ``case-folding-enums``, as
``checks/boundary.outside_values``). A rule resting on a gap makes the failure an observation, as
every vendor finding (``findings.py``).
"""

from __future__ import annotations

from typing import Any

from conformance.contract.model import Rule
from conformance.proxy.findings import CALLER, VENDOR, Finding, RuleIndex
from conformance.transport.jsonbody import loads
from conformance.transport.model import Request

__all__ = ["accepted_findings"]


def accepted_findings(index: RuleIndex, request: Request, caller: list[Finding], status: int) -> list[Finding]:
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
            if not refused or rule_id in found or _open(index, rule) or _case_of_listed(index, rule, mistake, request):
                continue
            found[rule_id] = index.attribute(Finding(
                VENDOR, mistake.kind, mistake.operation, mistake.where, mistake.pointer,
                f"{status} to a request the document says is refused with {refused}: {mistake.message}"), [rule])
    return list(found.values())


def _open(index: RuleIndex, rule: Rule) -> bool:
    """Whether a gap of the contract speaks of the rule's place (the documents leave it open)."""
    for gap in index.contract.gaps:
        if any(where == rule.where and operation in (None, rule.operation) for operation, where in gap.about):
            return True
        if rule.where and rule.where in (gap.about_none or ""):
            return True
    return False


def _case_of_listed(index: RuleIndex, rule: Rule, mistake: Finding, request: Request) -> bool:
    """Whether the caller sent another case of a value the enum lists (allowed: case folding)."""
    if rule.kind != "enum" or not mistake.where:
        return False
    try:
        listed = index.contract.where_schema(mistake.operation, mistake.where).get("enum") or []
    except KeyError:
        return False
    value = _sent(request, mistake.where)
    folded = {v.casefold() for v in listed if isinstance(v, str)}
    return isinstance(value, str) and value not in listed and value.casefold() in folded


def _sent(request: Request, where: str) -> Any:
    """The value the caller sent at ``body.a.b`` or ``query.x`` (None when it cannot be read)."""
    area, _, dotted = where.partition(".")
    if area == "query":
        return next((v for k, v in request.query if k == dotted), None)
    if area != "body":
        return None
    try:
        value: Any = loads(request.body.decode("utf-8"))
    except ValueError:
        return None
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value
