"""What one check of one exchange found, and the catalogue rule it is attributed to.

Rules are keyed as the catalogue keys them: ``Rule.operation`` (and each operation its
``params.operations`` lists), ``kind`` and ``where``
(``body.numCards``, ``query.after``, ``header.x-ratelimit-remaining``). A finding names every rule
of its operation, kind and place; where the catalogue has none it names the contract's own words
instead: a JSON pointer into openapi.yaml. A vendor finding against a rule that rests on a gap is
observed, never judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.contract.model import Contract, Rule

__all__ = ["CALLER", "FAILED", "OBSERVED", "VENDOR", "Finding", "RuleIndex", "pointer"]

VENDOR = "vendor"
CALLER = "caller"
FAILED = "failed"
OBSERVED = "observed"
_MESSAGE_CHARS = 300


@dataclass
class Finding:
    side: str  # VENDOR: the upstream broke the documents; CALLER: the request did
    kind: str  # the catalogue's kinds: limit, enum, required, type, format, schema, header, auth, status
    operation: str
    where: str | None  # body.numCards, query.after, header.x-ratelimit-remaining, or None (the whole exchange)
    pointer: str  # the contract's own words: a JSON pointer into openapi.yaml
    message: str
    rules: list[str] = field(default_factory=list)  # attributed rule ids (empty: the pointer stands alone)
    verdict: str = FAILED  # FAILED, or OBSERVED where a gap covers the place
    gap: str | None = None  # the gap that made it an observation

    def __post_init__(self) -> None:
        # jsonschema quotes the offending value whole (an inputText of 400,001 characters): a
        # finding says where and why, and the cassette, when recorded, holds the value.
        if len(self.message) > _MESSAGE_CHARS:
            self.message = f"{self.message[:_MESSAGE_CHARS]}... ({len(self.message)} characters in all)"

    def attributed(self) -> str:
        return ", ".join(self.rules) if self.rules else f"openapi.yaml{self.pointer}"


def pointer(*parts: str) -> str:
    """A JSON pointer (RFC 6901) from raw segments: ``/`` and ``~`` escaped."""
    return "#/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


class RuleIndex:
    """The contract's rules by (operation, kind, where), and its gaps by what they are about."""

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        self._by_key: dict[tuple[str | None, str, str | None], list[Rule]] = {}
        for rule in contract.rules:
            for operation in _covered(rule):
                self._by_key.setdefault((operation, rule.kind, rule.where), []).append(rule)

    def rules(self, operation: str, kind: str, where: str | None) -> list[Rule]:
        return list(self._by_key.get((operation, kind, where), []))

    def attribute(self, finding: Finding, rules: list[Rule] | None = None) -> Finding:
        """``finding`` with its rules (the catalogue's for its operation, kind and place unless
        ``rules`` are given). A vendor finding against a rule that rests on a gap (``depends_on``)
        is made an observation: the documents do not say, so it is not judged. A gap's ``about``
        alone does not soften a finding: it names a place coarsely (``response.nextCursor`` for
        "present, null or absent on the last page"), and the schema already allows what the gap
        leaves open (nextCursor may be null), so what the schema refuses there is still refused.
        A caller's finding is held to what the documents state, gaps or not."""
        chosen = self.rules(finding.operation, finding.kind, finding.where) if rules is None else rules
        finding.rules = [r.id for r in chosen]
        if finding.side != VENDOR:
            return finding
        gaps = [g for r in chosen for g in r.depends_on]
        if gaps:
            finding.verdict, finding.gap = OBSERVED, gaps[0]
        return finding


def _covered(rule: Rule) -> list[str | None]:
    """The operations a rule holds for: its own, and those its ``operations`` lists (a run checks it on
    each: "limit is 25 to 100" on GET /listings and GET /{shop_id}/receipts). A gap probe's list is
    where it observes, not where a statement holds: its own operation only."""
    listed = rule.params.get("operations")
    if rule.params.get("check") == "gap-probe" or not isinstance(listed, list):
        return [rule.operation]
    return list(dict.fromkeys([rule.operation, *[op for op in listed if isinstance(op, str)]]))
