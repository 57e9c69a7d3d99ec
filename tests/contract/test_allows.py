"""A gap's ``allows:`` entries are checked by the loader (contract/allows.py), so a mistake in one
fails ``conformance run`` and ``conformance rules`` with one line, not only the kill matrix; and
the loader's declarations are the params the variant families read (faults/families.py)."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.contract import load_contract
from conformance.contract.allows import FAMILY_PARAMS, check_allows
from conformance.contract.loader import available_services, schemas_dir
from conformance.errors import ContractFileError
from conformance.faults.gap_params import Params
from conformance.faults.variants import GAP_FAMILIES, gap_variants

PLAIN = "allows: [{family: plain-text-errors}]"
STATUS = "{family: other-status, name: unknown-generation-400, status: 400, instead_of: 404,"
RENAMED = "{family: renamed-members, name: items-named-items,"


@pytest.fixture
def contract_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(schemas_dir() / "presentations", tmp_path / "presentations")
    monkeypatch.setenv("CONFORMANCE_SCHEMAS_DIR", str(tmp_path))
    monkeypatch.setenv("CONFORMANCE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "presentations"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (PLAIN, PLAIN.replace("errors", "eror"), r"allows\[0\] \(plain-text-eror\): unknown variant family "
                                                 r"'plain-text-eror' \(did you mean 'plain-text-errors'\?\)"),
        (STATUS, STATUS.replace("status: 400", "staus: 400"),
         r"allows\[0\] \(other-status 'unknown-generation-400'\): unknown param staus \(did you mean 'status'\?\)"),
        (STATUS, STATUS.replace("instead_of: 404,", "instead_of: 404, bodyy: {},"), r"unknown param bodyy"),
        (STATUS, STATUS.replace("instead_of: 404,", ""), r"needs the param 'instead_of'"),
        (STATUS, STATUS.replace("status: 400", "status: four"), r"'status' must be an HTTP status, not 'four'"),
        (STATUS, STATUS.replace("instead_of: 404", "instead_of: 4xx4"), r"'instead_of' must be an HTTP status, a"),
        (STATUS, STATUS.replace("instead_of: 404,", "instead_of: 404, body_matches: '(',"),
         r"'body_matches' must be a regular expression, not '\('"),
        (STATUS, STATUS.replace("instead_of: 404,", "instead_of: 404, operations: ['GET /generations/{id}'],"),
         r"'operations' names 'GET /generations/\{id\}', not an operation of openapi.yaml"),
        (PLAIN, "allows: [{family: absent-members, members: [credits.deductd]}]",
         r"allows\[0\] \(absent-members\): 'members': 'credits.deductd' picks no member shown in the answers of every "
         r"operation in openapi.yaml \(did you mean 'credits.deducted'\?\)"),
        (PLAIN, "allows: [{family: absent-members, members: ['$..x']}]", r"'members' must be a member pattern"),
        (PLAIN, "allows: [{family: members-taken, members: [$.inputTxt], method: POST}]",
         r"'members': '\$.inputTxt' picks no member shown in the request bodies of the \d+ operations it picks in "
         r"openapi.yaml \(did you mean '\$.inputText'\?\)"),
        (PLAIN, "allows: [{family: values-refused, members: [$.textMod], refused: [x], method: POST}]",
         r"'members': '\$.textMod' picks no member shown in the request bodies of the \d+ operations it picks in "
         r"openapi.yaml \(did you mean '\$.textMode'\?\)"),
        (PLAIN, "allows: [{family: letter-case, members: [id], case: title}]",
         r"'case' must be one of upper, lower, mixed, not 'title'"),
        (RENAMED, RENAMED.replace("items-named-items", "unknown-generation-400"),
         r"allows\[0\] \(other-status 'unknown-generation-400'\): variant name 'unknown-generation-400' is taken by "
         r"allows\[0\] of presentations.gap.page-items-property; give it another 'name'"),
        # Unnamed, a family's second entry is named after the gap too; a third has no name left.
        (PLAIN, "allows: [{family: plain-text-errors}, {family: plain-text-errors}, {family: plain-text-errors}]",
         r"allows\[2\] \(plain-text-errors\): variant name 'plain-text-errors:error-body-shape' is taken by "
         r"allows\[1\] of presentations.gap.error-body-shape"),
    ],
)
def test_a_mistake_in_an_allows_entry_is_one_line_at_load(contract_copy: Path, old: str, new: str,
                                                          message: str) -> None:
    _edit(contract_copy / "rules.yaml", old, new)
    with pytest.raises(ContractFileError, match=message) as info:
        load_contract("presentations")
    text = str(info.value)
    assert text.startswith(f"{contract_copy / 'rules.yaml'}: gaps[") and "(presentations.gap." in text
    assert "\n" not in text


@pytest.mark.parametrize("entry", [
    # A member the document does not show and no shown member is spelled near: what a gap is about.
    "allows: [{family: absent-members, members: [$.undocumentedThing]}]",
    "allows: [{family: absent-members, members: ['*_id', '$.data.*.createdAt']}]",
    "allows: [{family: renamed-members, name: other-renamed, names: {data: items}}]",
])
def test_an_entry_picking_members_the_document_does_not_show_loads(contract_copy: Path, entry: str) -> None:
    _edit(contract_copy / "rules.yaml", PLAIN, entry)
    assert load_contract("presentations").gaps


def test_the_cli_refuses_it_with_one_line_and_exit_2(contract_copy: Path) -> None:
    _edit(contract_copy / "rules.yaml", PLAIN, PLAIN.replace("errors", "eror"))
    for command in (["rules"], ["run", "--no-allure", "--report-dir", str(contract_copy.parent / "run")]):
        proc = subprocess.run([sys.executable, "-m", "conformance", *command, "--service", "presentations"],
                              capture_output=True, text=True, timeout=120, env=dict(os.environ), check=False)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip().splitlines() == [
            f"conformance: error: {contract_copy / 'rules.yaml'}: gaps[1] (presentations.gap.error-body-shape): "
            "allows[0] (plain-text-eror): unknown variant family 'plain-text-eror' (did you mean "
            "'plain-text-errors'?)"]


# -- the declarations are what the builders read ---------------------------------------------------

# The fewest params each family builds from: its required ones (and one of two where it needs one).
MINIMAL: dict[str, dict[str, Any]] = {
    "plain-text-errors": {},
    "other-error-body": {"body": {"error": "{message}"}},
    "other-status": {"status": 403, "instead_of": 401},
    "bodiless-answers": {"status": 204},
    "other-media-type": {"content_type": "text/json"},
    "request-defaults": {"defaults": {"POST /generations": {"textMode": "generate"}}},
    "echoed-header": {"header": "x-request-id"},
    "text-members": {"members": ["*"]},
    "whole-numbers-as-integers": {"members": ["*"]},
    "extra-members": {"members": {"x": 1}},
    "other-member-values": {"members": {"x": 1}},
    "enveloped-answers": {},
    "renamed-members": {"names": {"a": "b"}},
    "absent-members": {"members": ["*"]},
    "reversed-items": {"members": ["*"]},
    "other-values": {"members": ["*"], "values": {"a": "b"}},
    "letter-case": {"members": ["*"], "case": "upper"},
    "timestamp-spelling": {"spelling": "basic"},
    "answered-later": {"status": 503},
    "extra-columns": {"columns": {"a": "b"}},
    "null-members": {"members": ["*"]},
    "values-refused": {"members": ["*"], "refused": [1]},
    "future-dates-refused": {"members": ["*"]},
    "members-taken": {"members": ["*"]},
    "zoned-request-times": {"members": ["*"], "offset_hours": 2},
}


def _build(family: str, params: dict[str, Any]) -> Params:
    read = Params(f"test: allows[0] ({family})", params)
    read.text("name", None)  # gap_variants reads the name before the family builds
    GAP_FAMILIES[family][0](read)
    read.done()
    return read


def test_every_family_is_declared_and_every_declaration_a_family() -> None:
    assert sorted(FAMILY_PARAMS) == sorted(GAP_FAMILIES) == sorted(MINIMAL)


@pytest.mark.parametrize("family", sorted(GAP_FAMILIES))
def test_a_family_reads_exactly_the_params_declared(family: str) -> None:
    declared = FAMILY_PARAMS[family]
    assert set(_build(family, MINIMAL[family])._read) == set(declared)
    required = {name for name, param in declared.items() if param.required}
    assert required <= set(MINIMAL[family])
    contract = load_contract("presentations")
    gap = contract.gaps[0]
    entry = {"family": family, **MINIMAL[family]}  # the loader takes it too
    check_allows(dataclasses.replace(contract, gaps=[dataclasses.replace(gap, allows=(entry,))]), Path("rules.yaml"))
    for name in required:  # a required param left out: both refuse it
        with pytest.raises(ContractFileError, match=f"needs the param '{name}'"):
            _build(family, {k: v for k, v in MINIMAL[family].items() if k != name})
    for name, param in declared.items():
        for choice in param.choices:  # each value the loader takes builds
            _build(family, {**MINIMAL[family], name: choice})


@pytest.mark.parametrize("service", available_services())
def test_every_entry_of_every_contract_loads_and_builds(service: str) -> None:
    contract = load_contract(service)
    assert len(gap_variants(contract)) == sum(len(gap.allows) for gap in contract.gaps)
