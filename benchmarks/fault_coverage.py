"""What proves the checks, counted (issue 30): faults derived from the contract and written by
hand, rules with at least one fault, rules carried by a core check, service package lines. Not a
test; the kill matrix (``conformance selftest``) is what shows each fault caught.

    .venv/bin/python benchmarks/fault_coverage.py
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from conformance.contract import load_contract
from conformance.contract.loader import available_services
from conformance.runner import collect_cases
from conformance.services import faults_for, load_service

SERVICES_DIR = Path(__file__).resolve().parent.parent / "conformance" / "services"


def main() -> None:
    derived = hand = proven = rules = core = 0
    families: Counter[str] = Counter()
    for service in available_services():
        contract = load_contract(service)
        faults = faults_for(service)
        own = len(load_service(service).faults)
        hand += own
        derived += len(faults) - own
        families.update(f.name.split(":", 1)[0] for f in faults[own:])
        proven += len({f.breaks for f in faults})
        cases = collect_cases(contract)
        rules += len(cases)
        core += sum(bool(c.check and c.check.core) for c in cases)
    lines = sum(len(p.read_text().splitlines()) for p in SERVICES_DIR.rglob("*.py"))
    print(f"faults: {derived} derived, {hand} hand-written")
    print("derived families: " + ", ".join(f"{name} {n}" for name, n in families.most_common()))
    print(f"rules with at least one fault: {proven} of {rules}")
    print(f"rules carried by a core check: {core} of {rules} ({100 * core / rules:.1f}%)")
    print(f"service package lines: {lines}")


if __name__ == "__main__":
    main()
