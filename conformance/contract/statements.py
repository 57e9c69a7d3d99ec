"""The statement index: every sentence and table row of a document, accounted for.

The documents are split mechanically (no judgement here): each table data row is one unit, each
paragraph or bullet line is cut into sentences. A unit belongs to the part (A, B, C) whose
sub-heading it sits under, or whose letter leads its bullet (``- A: ...`` in Versioning). Its id
is ``<service>.<section>.<n>``, numbered in document order within the service's part of the
section, so it is stable while the document is.

``schemas/<id>/statements.yaml`` accounts for every unit of the service's part: the rules that
check it, the gaps that record what it leaves open, the operations whose derived field probes
carry it (``derived``: ``METHOD /path where``, the member a probe sends), or why a black box
cannot observe it (``not_checkable``); ``part`` says what the rules and probes check when it is
not the whole sentence. ``contract/claims.py`` holds each claim to what the checks really read. The index is
built from the documents, not from the rules: a unit missing from the index, an index entry whose
text no longer matches the document, or a rule no unit names is a ``ContractFileError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["Statement", "Unit", "Accounting", "split_document", "units_for"]

# Short, stable names for the documents' sections (every volume has the same nine).
SECTION_KEYS = {
    "What the service does": "purpose",
    "Resources and their fields": "fields",
    "States and transitions": "states",
    "Endpoints": "endpoints",
    "Authentication": "auth",
    "Events": "events",
    "Errors": "errors",
    "Limits": "limits",
    "Versioning": "versioning",
}

# A sentence ends at a full stop followed by a space and a capital, digit or opening mark.
# Abbreviations such as "e.g." are followed by lower case in these documents, so they stay whole.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(<{\[`])")
_TABLE_SEPARATOR = re.compile(r"^\|[\s:|-]+\|$")
_LIST_MARK = re.compile(r"^(?:\d+\.|[-*])\s+")
_PART_LEAD = re.compile(r"^([A-Z]):\s+")


@dataclass(frozen=True)
class Unit:
    """One sentence or table row of a document, as the splitter found it."""

    id: str
    doc: str
    section: str
    part: str
    line: int
    text: str


@dataclass(frozen=True)
class Accounting:
    """How the index accounts for one unit."""

    rules: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()  # "METHOD /path where": the member whose derived probes check the unit
    not_checkable: str | None = None  # why a black box cannot observe it
    part: str | None = None  # what the rules and probes check, when it is not the whole sentence
    # Cited rules that record what a target does where a gap leaves it open (gap-probe), and
    # judge nothing: they never make a statement covered.
    observations: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        """covered (a rule or derived probe checks it), covered-in-part (they check what ``part``
        says, the rest is a gap, a conflict or not checkable), gap, conflict, not-checkable."""
        if set(self.rules) - set(self.observations) or self.derived:
            return "covered-in-part" if self.part else "covered"
        if self.gaps:
            return "gap"
        if self.conflicts:
            return "conflict"
        return "not-checkable"


@dataclass(frozen=True)
class Statement:
    unit: Unit
    accounting: Accounting = field(default_factory=Accounting)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def split_document(text: str, doc: str) -> list[tuple[str, str, int, str]]:
    """(section, part, line number, text) for every unit of the document, in order. Lines before
    the first section (title, preamble) belong to no service and are left out."""
    out: list[tuple[str, str, int, str]] = []
    section, part = "", ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("## "):
            section, part = line[3:].strip(), ""
            continue
        if line.startswith("### "):
            part = line[4:].split(".", 1)[0].strip()
            continue
        if not line or line.startswith("# ") or not section:
            continue
        if line.startswith("|"):
            if _TABLE_SEPARATOR.match(line):
                continue
            # The row before a separator is the header: it names columns and states nothing.
            nxt = _next_line(text, number)
            if nxt is not None and _TABLE_SEPARATOR.match(nxt.strip()):
                continue
            out.append((section, part, number, line))
            continue
        # A list mark ("1.", "-") is not a sentence; a leading "A:" in a section without
        # per-part sub-headings says which part the line is about.
        line = _LIST_MARK.sub("", line, count=1)
        unit_part = part
        lead = _PART_LEAD.match(line)
        if lead and not part:
            unit_part, line = lead.group(1), line[lead.end():]
        for sentence in _sentences(line):
            out.append((section, unit_part, number, sentence))
    return out


def _next_line(text: str, number: int) -> str | None:
    lines = text.splitlines()
    return lines[number] if number < len(lines) else None


@lru_cache(maxsize=None)
def _split_file(path: str, doc: str) -> tuple[tuple[str, str, int, str], ...]:
    return tuple(split_document(Path(path).read_text(encoding="utf-8"), doc))


def units_for(service: str, doc_path: Path, part: str) -> list[Unit]:
    """The units of ``part`` of the document at ``doc_path``, with their ids."""
    counts: dict[str, int] = {}
    out: list[Unit] = []
    for section, unit_part, line, text in _split_file(str(doc_path), doc_path.name):
        if unit_part != part:
            continue
        key = SECTION_KEYS.get(section) or re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")
        counts[key] = counts.get(key, 0) + 1
        out.append(Unit(f"{service}.{key}.{counts[key]}", doc_path.name, section, part, line, text))
    return out


# statements.yaml, as JSON Schema: one entry per unit, each accounted for at least one way.
STATEMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["service", "statements"],
    "additionalProperties": False,
    "properties": {
        "service": {"type": "string"},
        "statements": {"type": "array", "items": {
            "type": "object",
            "required": ["id", "text"],
            "additionalProperties": False,
            "properties": {
                "id": {"type": "string"},
                "text": {"type": "string"},
                "rules": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "gaps": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "conflicts": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                # "METHOD /path where" (contract/claims.py): the member a derived probe sends.
                "derived": {"type": "array", "minItems": 1, "items": {
                    "type": "string",
                    "pattern": r"^(GET|POST|PUT|PATCH|DELETE) /\S* (request-body|(body|query|path)\.\S+)$"}},
                "not_checkable": {"type": "string", "minLength": 3},
                "part": {"type": "string", "minLength": 3},
            },
            "anyOf": [{"required": ["rules"]}, {"required": ["gaps"]}, {"required": ["conflicts"]},
                      {"required": ["derived"]}, {"required": ["not_checkable"]}],
            # A part checked says what else accounts for the rest.
            "dependentSchemas": {"part": {"anyOf": [{"required": ["rules"]}, {"required": ["derived"]}]}},
        }},
    },
}


def skeleton(service: str, units: list[Unit]) -> str:
    """A statements.yaml with every unit and no accounting yet (the starting point of an index)."""
    import yaml

    entries = [{"id": u.id, "text": u.text} for u in units]
    return yaml.safe_dump({"service": service, "statements": entries}, sort_keys=False, allow_unicode=True, width=1000)
