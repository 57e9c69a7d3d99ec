"""The loader funnel: good contracts load, bad ones fail with one clear line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conformance.contract import load_contract
from conformance.contract.loader import available_services, schemas_dir
from conformance.errors import ContractFileError, UsageError
from conformance.runner import collect_cases


@pytest.fixture
def contract_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(schemas_dir() / "presentations", tmp_path / "presentations")
    monkeypatch.setenv("CONFORMANCE_SCHEMAS_DIR", str(tmp_path))
    return tmp_path / "presentations"


@pytest.mark.parametrize("service", available_services())
def test_every_contract_loads_with_sources(service: str) -> None:
    contract = load_contract(service)
    assert contract.rules and contract.gaps
    for rule in contract.rules:
        assert rule.id.startswith(service + ".")
        assert rule.source.anchor


def test_presentations_numbers_come_from_the_contract() -> None:
    contract = load_contract("presentations")
    text = contract.where_schema("POST /generations", "body.inputText")
    assert (text["minLength"], text["maxLength"]) == (1, 400000)
    assert contract.where_schema("POST /generations", "body.folderIds")["maxItems"] == 10
    assert contract.base_path == "/v1.0"


def test_a_response_where_reads_through_an_envelope_and_list_items() -> None:
    # social's rows are an allOf of the Envelope (data: an array) and the rows (data's items):
    # a gap's about names a row's member as response.data.0.created_time.
    contract = load_contract("social")
    stamp = contract.where_schema("POST /{customer_id}/analytics/posts", "response.data.0.created_time")
    assert stamp["format"] == "date-time" and stamp["pattern"] == "(Z|[+]00:00)$"
    with pytest.raises(KeyError):
        contract.where_schema("POST /{customer_id}/analytics/posts", "response.data.0.no_such_member")


def test_unknown_service_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown service 'nope'"):
        load_contract("nope")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        ("rules.yaml", "kind: auth", "kind: vibes", "rules/0/kind"),
        ("rules.yaml", "service: presentations", "service: [", "not valid YAML"),
        ("rules.yaml", "source: {section: Authentication, detail: \"1\"}",
         "source: {section: Nowhere}", "section 'Nowhere'"),
        ("rules.yaml", "operation: POST /generations\n    where: body.inputText",
         "operation: POST /nowhere\n    where: body.inputText", "not in openapi.yaml"),
        ("rules.yaml", "where: body.inputText", "where: body.noSuchMember", "does not resolve"),
        ("rules.yaml", "id: presentations.auth.invalid-key", "id: presentations.auth.key-required",
         "duplicate rule id"),
        ("openapi.yaml", "openapi: 3.1.0", "openapi: 3.0.0", "not an OpenAPI 3.1"),
        ("openapi.yaml", "TextMode: {type: string, enum", "TextMode: {type: strung, enum",
         "not valid JSON Schema"),
        ("rules.yaml", "requires: [FAIL_INPUT]", "requires: [FAIL_INPUTS]", "FAIL_INPUTS, not among the credentials"),
        ("openapi.yaml", 'x-credential: "{API_KEY}"', 'x-credential: "{API_KEYS}"', "x-credential names API_KEYS"),
    ],
)
def test_bad_contract_files_fail_clearly(contract_copy: Path, file: str, old: str, new: str,
                                         message: str) -> None:
    _edit(contract_copy / file, old, new)
    with pytest.raises(ContractFileError, match=message) as info:
        load_contract("presentations")
    assert str(contract_copy) in str(info.value)


F = "check: rate-limit, max_burst_requests: 200}"
G = "observes: presentations.conflict.create-status"


def _f(tail: str) -> str:
    return F.replace("max_burst_requests: 200}", tail)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # Params are what the rule's check declares: a typo, a wrong type, a missing one.
        (F, _f("max_burst_request: 200}"),
         r"unknown params max_burst_request \(check rate-limit takes: max_burst_requests, request\)"),
        (F, _f("max_burst_requests: two}"), r"params.max_burst_requests: 'two' is not"),
        (F, F.replace(", max_burst_requests: 200}", "}"), r"'max_burst_requests' is a required property"),
        ("params: {check: invalid-bodies}", "params: {check: invalid-bodys}", "unknown check 'invalid-bodys'"),
        # The binding is data: a service's scenario check is named `<service>/<name>`, and only
        # that service's rules may name it; what it observes is a gap or conflict of the contract.
        (F, F.replace("rate-limit", "presentations/burts"), "unknown check 'presentations/burts'"),
        (F, F.replace("rate-limit", "social/cursor-walk"), "names 'social/cursor-walk', a check of service 'social'"),
        (G, G.replace("create-status", "create-state"),
         "params.observes presentations.conflict.create-state, not a gap or conflict of the contract"),
        ("params: {as: {invalid: true}}", "params: {as: {invalid: true, bogus: 1}}", r"params.as: .*bogus"),
    ],
)
def test_bad_params_fail_clearly_where_rules_are_bound_to_checks(contract_copy: Path, old: str, new: str,
                                                                  message: str) -> None:
    _edit(contract_copy / "rules.yaml", old, new)
    contract = load_contract("presentations")
    with pytest.raises(ContractFileError, match=message) as info:
        collect_cases(contract)
    assert str(contract_copy / "rules.yaml") in str(info.value)
    assert "rules[" in str(info.value)


def test_missing_contract_dir_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_SCHEMAS_DIR", str(tmp_path))
    with pytest.raises(UsageError, match=f"unknown service 'presentations': a service is a folder holding rules.yaml "
                                         f"in {re.escape(str(tmp_path))}; known: none"):
        load_contract("presentations")


def test_broken_service_package_is_a_loud_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance import services
    from conformance.services import ServicePackageError, load_service

    def broken(name: str) -> None:  # an import error inside the package, not a missing package
        raise ImportError("cannot import name 'PresentationsSimulator'")

    monkeypatch.setattr(services, "_CACHE", {})
    monkeypatch.setattr(services.importlib, "import_module", broken)
    with pytest.raises(ServicePackageError, match="service package 'presentations' failed to import"):
        load_service("presentations")


def test_unknown_service_package_is_a_usage_error() -> None:
    from conformance.services import load_service

    with pytest.raises(UsageError, match="no service package for 'nope'"):
        load_service("nope")


_GAP_ABOUT_TEXT_MODE = """  - id: presentations.gap.text-mode-spelling
    statement: (test) how textMode is spelled is not shown
    about:
      - {operation: POST /generations, where: body.textMode}
    setting: TEMPLATE_ID
    source: {section: Endpoints, detail: POST /generations body}
"""


def test_a_rule_checking_what_a_gap_says_is_not_shown_is_refused(contract_copy: Path) -> None:
    _edit(contract_copy / "rules.yaml", "gaps:\n", "gaps:\n" + _GAP_ABOUT_TEXT_MODE)
    with pytest.raises(ContractFileError, match=r"rule presentations\.generate\.text-mode-required checks POST "
                                                r"/generations body\.textMode, which gap presentations\.gap\."
                                                r"text-mode-spelling says the documents do not show"):
        load_contract("presentations")


def test_a_rule_may_rest_on_a_gap_it_names(contract_copy: Path) -> None:
    _edit(contract_copy / "rules.yaml", "gaps:\n", "gaps:\n" + _GAP_ABOUT_TEXT_MODE)
    text = (contract_copy / "rules.yaml").read_text()
    for rule in ("text-mode-required", "text-mode-enum"):
        head = f"id: presentations.generate.{rule}\n"
        text = text.replace(head, head + "    depends_on: [presentations.gap.text-mode-spelling]\n", 1)
    (contract_copy / "rules.yaml").write_text(text)
    contract = load_contract("presentations")
    assert contract.rule("presentations.generate.text-mode-enum").depends_on == (
        "presentations.gap.text-mode-spelling",)


@pytest.mark.parametrize(("old", "new", "message"), [
    ("id: presentations.generate.text-mode-enum\n",
     "id: presentations.generate.text-mode-enum\n    depends_on: [presentations.gap.nowhere]\n",
     "depends_on names presentations.gap.nowhere, not a gap"),
    ("gaps:\n", "gaps:\n" + _GAP_ABOUT_TEXT_MODE.replace("TEMPLATE_ID", "NO_SUCH_SETTING"),
     "setting NO_SUCH_SETTING is not among the credentials"),
    ("gaps:\n", "gaps:\n" + _GAP_ABOUT_TEXT_MODE.replace("body.textMode", "body.noSuchMember"),
     "about POST /generations body.noSuchMember does not resolve"),
])
def test_gap_links_that_do_not_resolve_fail_clearly(contract_copy: Path, old: str, new: str, message: str) -> None:
    _edit(contract_copy / "rules.yaml", old, new)
    with pytest.raises(ContractFileError, match=message):
        load_contract("presentations")


def test_a_rule_resting_on_an_open_gap_skips_naming_it_until_a_setting_resolves_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.errors import SkipKind
    from conformance.runner import SKIPPED, run_case
    from conformance.settings import RunSettings
    from conformance.targets import make_target

    contract = load_contract("scanning")
    [case] = [c for c in collect_cases(contract) if c.id == "scanning.host.minify"]
    monkeypatch.setenv("CONFORMANCE_SCANNING_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("CONFORMANCE_SCANNING_API_KEY", "k")
    monkeypatch.delenv("CONFORMANCE_SCANNING_BOOLEAN_TRUE", raising=False)
    outcome = run_case(case, make_target(contract, RunSettings(target="http")))
    assert outcome.status == SKIPPED and outcome.skip_kind == SkipKind.DEPENDS_ON_GAP
    assert "scanning.gap.boolean-spelling" in outcome.message
    assert "set CONFORMANCE_SCANNING_BOOLEAN_TRUE" in outcome.message
    monkeypatch.setenv("CONFORMANCE_SCANNING_BOOLEAN_TRUE", "1")
    resolved = run_case(case, make_target(contract, RunSettings(target="http")))
    assert resolved.skip_kind != SkipKind.DEPENDS_ON_GAP  # it ran (and met the unreachable port)


@pytest.mark.parametrize("service", available_services())
def test_every_gap_says_what_it_leaves_open(service: str) -> None:
    # about: the operations and members the documents leave open (the loader then refuses a rule
    # checking one without depends_on); about_none: why a gap names none (a policy, a rate).
    bare = [g.id for g in load_contract(service).gaps if not g.about and not g.about_none]
    assert not bare, f"gaps saying neither what they leave open (about) nor why not (about_none): {bare}"


def test_the_file_schemas_are_valid_json_schema() -> None:
    """The loader validates with them without checking them first (contract/loader.py)."""
    import jsonschema

    from conformance.contract import loader
    from conformance.contract.catalogue_schema import CATALOGUE_SCHEMA
    from conformance.contract.statements import STATEMENTS_SCHEMA

    for schema in (CATALOGUE_SCHEMA, STATEMENTS_SCHEMA, loader._OPENAPI_SHAPE):
        jsonschema.validators.validator_for(schema).check_schema(schema)
