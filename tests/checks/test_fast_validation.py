"""jsonschema_rs answers "valid" first (contract/validation.py); python-jsonschema judges the rest.

A verdict could change only where jsonschema_rs is looser than python-jsonschema: a value it finds
valid that python-jsonschema refuses. Every format and every pattern the contracts use is held to
"never looser" on values at their edges (a trailing newline, which Python's ``$`` lets through,
other scripts' digits, impossible dates, a space in an address ...); and a body
python-jsonschema refuses is still refused with python-jsonschema's own words.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from conformance.contract import load_contract
from conformance.contract.loader import available_services
from conformance.contract.validation import FORMAT_CHECKER, body_error, fast_valid, fast_validator

EDGES = [
    "", " ", "a", "abc", "abc\n", "\nabc", "ABC", "a b", "123", "123\n", "-1", "1.5", "1e5", "١٢٣", "𝟙𝟚𝟛",
    "0x1F", "0xZZ", "1.2", "1.2.3", "1.2.3\n", "usd", "USD\n", "guid:asc", "guid:asc\n", ":asc", "a:b:asc",
    "host:80", "host:80,other", "host:x", "https://x.y", "https://x.y\n", "http://x.y", " https://x.y",
    "2026-01-01", "2026-01-01\n", "2026-1-1", "2026-02-30", "2026-13-01", "2026-01-01 00:00:00",
    "2026-01-01 24:00:00", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00z", "2026-01-01T00:00:00Z\n",
    "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+05:30", "2026-01-01T00:00:60Z", "2026-01-01T00:00:00",
    "20260101T0000Z", "2026-01-01T00:00Z", "a@b.c", "a@b", "a b@c.d", "@x", "x@", "a@@b", "1.2.3.4",
    "01.2.3.4", "256.1.1.1", "1.2.3.4\n", "::1", "::ffff:1.2.3.4", "fe80::1%eth0", "gggg::1",
    "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
    "123e4567e89b12d3a456426614174000", "{123e4567-e89b-12d3-a456-426614174000}",
    "123e4567-e89b-12d3-a456-426614174000\n", "x://", "mailto:a@b.c", "/relative", "http://exa mple.com",
    "https://x.y/%zz", "http://[::1]/", "\u00e9", "a\u0000b", "\"quoted\"", "back\\slash", "~", "\x7f",
]


def _strings_schemas() -> list[tuple[str, dict[str, Any]]]:
    """Every distinct {format}/{pattern} string schema of the contracts, with where it is."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            keys = {k: node[k] for k in ("format", "pattern") if isinstance(node.get(k), str)}
            if keys:
                found.setdefault(json.dumps(keys, sort_keys=True), (where, {"type": "string", **keys}))
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    for service in available_services():
        walk(load_contract(service).openapi, service)
    return list(found.values())


SCHEMAS = _strings_schemas()


def test_the_contracts_use_formats_and_patterns() -> None:
    assert sum("format" in s for _, s in SCHEMAS) >= 7 and sum("pattern" in s for _, s in SCHEMAS) >= 10


@pytest.mark.parametrize(("where", "schema"), SCHEMAS, ids=[json.dumps(s) for _, s in SCHEMAS])
def test_jsonschema_rs_is_never_looser(where: str, schema: dict[str, Any]) -> None:
    slow = jsonschema.Draft202012Validator(schema, format_checker=FORMAT_CHECKER)
    fast = fast_validator(schema)
    looser = [value for value in EDGES if fast_valid(fast, value) and not slow.is_valid(value)]
    assert not looser, f"{where}: jsonschema_rs takes what python-jsonschema refuses: {looser}"


def test_a_body_refused_is_refused_in_python_jsonschema_words() -> None:
    contract = load_contract("presentations")
    schema = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string", "format": "uuid"}}}
    assert body_error(contract, schema, b'{"id": "123e4567-e89b-12d3-a456-426614174000"}',
                      {"id": "123e4567-e89b-12d3-a456-426614174000"}) is None
    assert body_error(contract, schema, b'{"id": "nope"}', {"id": "nope"}) == ("id", "'nope' is not a 'uuid'")
    assert body_error(contract, schema, b"{}", {}) == ("(body)", "'id' is a required property")


def test_what_jsonschema_rs_cannot_take_goes_the_slow_way() -> None:
    assert fast_validator({"type": "string", "pattern": "(?<=a"}) is None  # not a pattern it compiles
    assert not fast_valid(None, "anything")
    big = {"type": "integer"}
    assert fast_valid(fast_validator(big), 7)
    # An integer beyond 64 bits: whatever jsonschema_rs makes of it, python-jsonschema has the last word.
    assert jsonschema.Draft202012Validator(big).is_valid(2**80)
