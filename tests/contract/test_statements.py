"""The statement index: every sentence and table row of the documents accounted for."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.contract.loader import available_services, load_index
from conformance.contract.statements import split_document, units_for


@pytest.mark.parametrize("service", available_services())
def test_every_statement_accounted_and_every_rule_named(service: str) -> None:
    # Raises ContractFileError listing each unaccounted statement, changed text or unnamed rule.
    index = load_index(service)
    assert index


def test_splitter_cuts_sentences_rows_and_part_leads() -> None:
    text = ("# Title\n\npreamble.\n\n## Limits\n\n### A. One\n- Poll every 5 seconds. A ceiling is 5 minutes.\n"
            "| Status | Meaning |\n|---|---|\n| 400 | bad |\n\n## Versioning\n- B: paths carry /v1. Old is gone.\n")
    units = split_document(text, "doc.md")
    assert [(s, p, t) for s, p, _, t in units] == [
        ("Limits", "A", "Poll every 5 seconds."), ("Limits", "A", "A ceiling is 5 minutes."),
        ("Limits", "A", "| 400 | bad |"),
        ("Versioning", "B", "paths carry /v1."), ("Versioning", "B", "Old is gone."),
    ]


def test_ids_are_numbered_per_section(tmp_path: Path) -> None:
    doc = tmp_path / "v.md"
    doc.write_text("## Limits\n### A. x\nOne. Two.\n## Errors\n### A. x\nThree.\n", encoding="utf-8")
    assert [u.id for u in units_for("svc", doc, "A")] == ["svc.limits.1", "svc.limits.2", "svc.errors.1"]
