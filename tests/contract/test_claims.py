"""The statement index holds each claim to what the checks really read (contract/claims.py).

A small contract in a temp dir: one document of four sentences, two operations (one marked to get
no derived probes, as an OAuth step is), two rules. Each test breaks one entry of the index and
expects the loader's one-line refusal naming the statement.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.contract.loader import load_index
from conformance.errors import ContractFileError

DOC = """# Volume 9

## A. Toy

## Resources and their fields
### A. Toy
| name | string | 1 to 20 characters |
| options | object | size (integer) |

## Endpoints
### A. Toy
POST /items creates an item; its body is JSON.
GET /oauth/connect starts the grant with a client_id.
"""

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "toy", "version": "1"},
    "paths": {
        "/items": {"post": {
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 20},
                    "options": {"type": "object", "required": ["code"], "properties": {
                        "code": {"type": "string", "pattern": "^[A-Z]{3}$"}, "size": {"type": "integer"}}}}},
                # options is left out of the example, and no value of it can be made without guessing
                # (its required code has a pattern): its own type is probed, nothing below it is.
                "example": {"name": "cup"}}}},
            "responses": {"201": {"description": "created"}}}},
        "/oauth/connect": {"get": {
            "x-no-derived-probes": "a step of the grant: needs a person's consent",
            "parameters": [{"name": "client_id", "in": "query", "required": True, "schema": {"type": "string"}}],
            "responses": {"302": {"description": "redirect"}}}},
    },
}

RULES: dict[str, Any] = {
    "service": "toy", "document": "volume-9.md", "part": "A",
    "rules": [
        {"id": "toy.items.name-length", "kind": "limit", "operation": "POST /items", "where": "body.name",
         "statement": "name is 1 to 20 characters", "source": {"section": "Resources and their fields"}},
        {"id": "toy.oauth.client-id", "kind": "required", "operation": "GET /oauth/connect", "where": "query.client_id",
         "statement": "client_id is required", "source": {"section": "Endpoints"}},
    ],
    "gaps": [],
}


def _good() -> list[dict[str, Any]]:
    return [
        {"id": "toy.fields.1", "text": "| name | string | 1 to 20 characters |",
         "rules": ["toy.items.name-length"], "derived": ["POST /items body.name"]},
        {"id": "toy.fields.2", "text": "| options | object | size (integer) |",
         "not_checkable": "stands in for an unchecked row in these tests"},
        {"id": "toy.endpoints.1", "text": "POST /items creates an item; its body is JSON.",
         "derived": ["POST /items request-body"]},
        {"id": "toy.endpoints.2", "text": "GET /oauth/connect starts the grant with a client_id.",
         "rules": ["toy.oauth.client-id"]},
    ]


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "volume-9.md").write_text(DOC, encoding="utf-8")
    folder = tmp_path / "schemas" / "toy"
    folder.mkdir(parents=True)
    (folder / "openapi.yaml").write_text(yaml.safe_dump(OPENAPI), encoding="utf-8")
    (folder / "rules.yaml").write_text(yaml.safe_dump(RULES), encoding="utf-8")
    monkeypatch.setenv("CONFORMANCE_SCHEMAS_DIR", str(tmp_path / "schemas"))
    monkeypatch.setenv("CONFORMANCE_DOCS_DIR", str(tmp_path / "docs"))
    _index(folder, _good())
    return folder


def _index(folder: Path, entries: list[dict[str, Any]]) -> None:
    (folder / "statements.yaml").write_text(yaml.safe_dump({"service": "toy", "statements": entries}),
                                            encoding="utf-8")


def _with(sid: str, **changes: Any) -> list[dict[str, Any]]:
    entries = _good()
    for entry in entries:
        if entry["id"] == sid:
            entry.update(changes)
            for key in [k for k, v in changes.items() if v is None]:
                del entry[key]
    return entries


def _refusal(folder: Path, entries: list[dict[str, Any]]) -> str:
    _index(folder, entries)
    with pytest.raises(ContractFileError) as caught:
        load_index("toy")
    return str(caught.value)


def test_the_honest_index_loads_with_its_statuses(toy: Path) -> None:
    statuses = {s.unit.id: s.accounting.status for s in load_index("toy")}
    assert statuses == {"toy.fields.1": "covered", "toy.fields.2": "not-checkable",
                        "toy.endpoints.1": "covered", "toy.endpoints.2": "covered"}


def test_a_derived_claim_on_an_operation_marked_to_get_no_probes_is_refused(toy: Path) -> None:
    message = _refusal(toy, _with("toy.endpoints.2", derived=["GET /oauth/connect query.client_id"]))
    assert ("toy.endpoints.2: derived claim 'GET /oauth/connect query.client_id': GET /oauth/connect gets no "
            "derived probes (x-no-derived-probes: a step of the grant") in message


def test_a_derived_claim_on_a_member_no_probe_sends_is_refused(toy: Path) -> None:
    # options.size is documented as an integer, but the example holds no options and none can be
    # made (a pattern): derive.py sends options wrong-typed and nothing below it.
    message = _refusal(toy, _with("toy.fields.2", derived=["POST /items body.options.size"], not_checkable=None))
    assert ("toy.fields.2: derived claim 'POST /items body.options.size': no probe of POST /items sends "
            "body.options.size (probed: body.name, body.options)") in message
    # The member it does probe is a claim that holds.
    _index(toy, _with("toy.fields.2", derived=["POST /items body.options"], not_checkable=None))
    assert {s.unit.id: s.accounting.status for s in load_index("toy")}["toy.fields.2"] == "covered"


def test_a_derived_claim_naming_an_operation_only_is_refused(toy: Path) -> None:
    # The old form: an operation alone claimed every member of it.
    _index(toy, _with("toy.fields.1", derived=["POST /items"]))
    with pytest.raises(ContractFileError, match=r"statements\.yaml.*derived"):
        load_index("toy")


def test_a_derived_request_body_claim_needs_broken_body_probes(toy: Path) -> None:
    message = _refusal(toy, _with("toy.endpoints.2", derived=["GET /oauth/connect request-body"]))
    assert "toy.endpoints.2: derived claim 'GET /oauth/connect request-body'" in message


def test_a_rule_that_reads_none_of_its_sentence_is_refused(toy: Path) -> None:
    # The OAuth rule reads client_id on GET /oauth/connect: nothing of the name row.
    message = _refusal(toy, _with("toy.fields.1", rules=["toy.items.name-length", "toy.oauth.client-id"]))
    assert "toy.fields.1: rule toy.oauth.client-id reads none of the sentence" in message
    assert "toy.items.name-length reads none" not in message


def test_a_member_the_covered_sentence_names_but_nothing_reads_needs_a_part(toy: Path) -> None:
    text = "GET /oauth/connect starts the grant with a client_id."
    entries = _with("toy.endpoints.2")
    doc = DOC.replace(text, "GET /oauth/connect starts the grant with a client_id and a code_challenge.")
    (toy.parent.parent / "docs" / "volume-9.md").write_text(doc, encoding="utf-8")
    entries[3]["text"] = "GET /oauth/connect starts the grant with a client_id and a code_challenge."
    message = _refusal(toy, entries)
    assert "toy.endpoints.2: names code_challenge, which no cited rule, derived probe, gap or conflict reads" in message
    # Saying what is checked makes it covered in part, and --coverage counts it so.
    entries[3]["part"] = "client_id is required; code_challenge is not checked"
    _index(toy, entries)
    statuses = {s.unit.id: s.accounting.status for s in load_index("toy")}
    assert statuses["toy.endpoints.2"] == "covered-in-part"


def test_every_problem_is_one_line_naming_its_statement(toy: Path) -> None:
    entries = _with("toy.fields.1", derived=["POST /items body.options.size"])
    entries[3]["derived"] = ["GET /oauth/connect query.client_id"]
    lines = _refusal(toy, entries).splitlines()
    assert lines[0].endswith("statements.yaml: 2 problem(s):")
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["toy.fields.1", "toy.endpoints.2"]


def test_a_derived_rule_is_named_only_through_a_claim_on_its_probes(toy: Path) -> None:
    # A member claim names the field probes (request-fields), not the broken-body probes (request-body).
    message = _refusal(toy, _with("toy.endpoints.1", derived=None, not_checkable="no longer claimed"))
    assert "rule toy.request-body.post-items: names no statement of the document" in message
    assert "toy.request-fields.post-items" not in message


def test_coverage_counts_each_statement_once_and_lists_the_rest(toy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    entries = _good()
    entries[3]["part"] = "client_id is required; the rest of the grant is not checked"
    _index(toy, entries)
    assert main(["rules", "--coverage", "--uncovered", "--service", "toy"]) == 0
    out = capsys.readouterr().out
    assert "| service | statements | covered | covered-in-part | gap | conflict | not-checkable |" in out
    assert "| toy | 4 | 2 | 1 | 0 | 0 | 1 |" in out
    assert "toy.endpoints.2" in out and "checked: client_id is required" in out
    assert "toy.fields.2" in out and "toy.fields.1 " not in out


def test_a_derived_claim_that_sends_none_of_its_sentence_is_refused(toy: Path) -> None:
    # The probes of body.name hold, but the sentence is about the OAuth step: they check none of it.
    message = _refusal(toy, _with("toy.endpoints.2", derived=["POST /items body.name"]))
    assert "toy.endpoints.2: derived claim 'POST /items body.name' sends none of the sentence" in message


def test_a_rule_that_only_observes_a_gap_covers_nothing() -> None:
    from conformance.contract.statements import Accounting

    observed = Accounting(rules=("x.observe.media-types",), gaps=("x.gap.media-types",),
                          observations=("x.observe.media-types",))
    assert observed.status == "gap"
    assert Accounting(rules=("x.observe.media-types", "x.route.served"), observations=("x.observe.media-types",),
                      gaps=("x.gap.media-types",)).status == "covered"
