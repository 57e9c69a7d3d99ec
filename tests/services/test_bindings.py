"""rules.yaml is the only binding: a service package never spells a rule, gap or conflict id.

What checks a rule, which hand-written faults break it and which gap or conflict its check
reports are all in the rule's catalogue entry (``params.check``, ``faults``, ``params.observes``).
A rule id written in Python would be a second binding that only the kill matrix notices going
stale; this test notices it at once, naming the file and the line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conformance.contract import load_contract
from conformance.contract.loader import available_services
from conformance.runner import collect_cases
from conformance.services import bound_faults, load_service

SERVICES_DIR = Path(__file__).resolve().parents[2] / "conformance" / "services"


def _id_literals(package: Path, service: str) -> list[str]:
    """String constants (f-string parts too) that are, or begin, an id of this service: every
    rule, gap and conflict id starts with ``<service>.``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(f"{service}."):
                found.append(f"{path.relative_to(SERVICES_DIR)}:{node.lineno}: {node.value!r}")
    return found


@pytest.mark.parametrize("service", available_services())
def test_no_id_is_spelled_in_the_service_package(service: str) -> None:
    assert _id_literals(SERVICES_DIR / service, service) == []


def test_the_literal_scan_sees_an_id(tmp_path: Path) -> None:
    """The scan itself can fail: an id in a constant or an f-string part is found."""
    package = tmp_path / "demo"
    package.mkdir()
    (package / "checks.py").write_text('GAP = "demo.gap.x"\nname = f"demo.area.{1}"\nother = "demos.area.x"\n')
    global SERVICES_DIR
    saved, SERVICES_DIR = SERVICES_DIR, tmp_path
    try:
        assert [line.split(": ", 1)[1] for line in _id_literals(package, "demo")] == ["'demo.gap.x'", "'demo.area.'"]
    finally:
        SERVICES_DIR = saved


@pytest.mark.parametrize("service", available_services())
def test_every_binding_resolves(service: str) -> None:
    """Each rule's check exists (and belongs to its service), each hand-written fault is bound to
    exactly one rule, and each rule binding a fault names one the package has."""
    contract = load_contract(service)
    collect_cases(contract)  # unknown or foreign checks and bad params raise here, naming the rule
    faults = bound_faults(service, contract)
    assert len(faults) == len(load_service(service).faults)
    assert all(f.breaks for f in faults)


@pytest.mark.parametrize("service", available_services())
def test_a_check_reads_only_its_own_rule(service: str) -> None:
    """A check gets what it needs from its own rule's params (a number several rules share is
    written once in rules.yaml, under a YAML anchor), never by looking another rule up."""
    lookups = [f"{path.relative_to(SERVICES_DIR)}:{node.lineno}"
               for path in sorted((SERVICES_DIR / service).rglob("*.py"))
               for node in ast.walk(ast.parse(path.read_text(), str(path)))
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "rule"
               and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "contract"]
    assert lookups == []


def test_every_checks_params_declaration_is_valid_json_schema() -> None:
    """Checked here once, not on every run (registry.CheckSpec.params_validator)."""
    import jsonschema

    from conformance.checks import registry

    for service in available_services():
        load_service(service)
    registry._load_generic()
    specs = [*registry._BY_NAME.values(), *registry._BY_KIND.values()]
    assert len(specs) > 50
    for spec in specs:
        schema = spec.params_schema()
        jsonschema.validators.validator_for(schema).check_schema(schema)
