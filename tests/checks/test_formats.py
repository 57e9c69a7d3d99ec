"""The response validator checks formats, and every format the contracts use is really checked."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.expect import FORMAT_CHECKER
from conformance.contract.loader import available_services, load_contract

# A value no conforming member of the format can hold, and one it can.
SAMPLES = {
    "date-time": ("not-a-date", "2026-11-25T10:00:00Z"),
    "date": ("25/11/2026", "2026-11-25"),
    "uuid": ("not-a-uuid", "1b4e28ba-2fa1-11d2-883f-0016d3cca427"),
    "email": ("not-an-email", "a@example.com"),
    "uri": ("not a uri", "https://example.com/x"),
    "ipv6": ("not-an-ip", "::1"),
    "ipv4": ("999.1.1", "10.0.0.1"),
}


def _schema_formats(node: Any) -> set[str]:
    """``format`` of every schema object (a mapping with a ``type``) in an OpenAPI document."""
    if isinstance(node, list):
        return set().union(*(_schema_formats(v) for v in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = {node["format"]} if isinstance(node.get("format"), str) and "type" in node else set()
    return found.union(*(_schema_formats(v) for v in node.values()))


def _formats_in_contracts() -> set[str]:
    return set().union(*(_schema_formats(load_contract(s).openapi) for s in available_services()))


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_format_is_checked(fmt: str) -> None:
    # Fails when jsonschema's optional format dependencies are missing (the check is then a no-op).
    bad, good = SAMPLES[fmt]
    assert not FORMAT_CHECKER.conforms(bad, fmt)
    assert FORMAT_CHECKER.conforms(good, fmt)


def test_every_format_the_contracts_use_is_checked() -> None:
    unchecked = sorted(f for f in _formats_in_contracts() if f not in FORMAT_CHECKER.checkers)
    assert not unchecked, f"formats no checker knows (typo, or a dependency missing): {unchecked}"
    assert not sorted(f for f in _formats_in_contracts() if f not in SAMPLES), "add a sample for each format"
