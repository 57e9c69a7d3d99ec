"""JSON Schema of ``schemas/<id>/rules.yaml``: a contract file is validated before it is used."""

from __future__ import annotations

from typing import Any

__all__ = ["CATALOGUE_SCHEMA", "DERIVED_KINDS", "RULE_KINDS"]

RULE_KINDS = (
    "limit", "enum", "required", "type", "auth", "error", "schema", "header", "paging",
    "state", "cost", "rate-limit", "endpoint", "conflict", "format",
)
# Kinds of the rules derived from openapi.yaml (contract/derive.py), never written in rules.yaml.
DERIVED_KINDS = ("fields", "body")

_SOURCE: dict[str, Any] = {
    "type": "object",
    "required": ["section"],
    "additionalProperties": False,
    "properties": {
        "section": {"type": "string", "minLength": 1},
        "detail": {"type": "string"},
    },
}

CATALOGUE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["service", "document", "part", "rules", "gaps"],
    "additionalProperties": False,
    "properties": {
        "service": {"type": "string", "pattern": "^[a-z]+$"},
        "title": {"type": "string"},
        "document": {"type": "string", "pattern": r"^volume-[0-9]\.md$"},
        "part": {"type": "string", "minLength": 1},
        # Target settings with their defaults (what our simulator does), read by the checks.
        "settings": {"type": "object"},
        "credentials": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "statement"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
                    "statement": {"type": "string"},
                    "optional": {"type": "boolean"},
                    # false: a target setting (an id, a URL), not scrubbed; default true.
                    "secret": {"type": "boolean"},
                },
            },
        },
        "rules": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["id", "kind", "statement", "source"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": r"^[a-z]+\.[a-z0-9-]+\.[a-z0-9-]+$"},
                    "kind": {"enum": list(RULE_KINDS)},
                    "operation": {
                        "type": "string",
                        "pattern": "^(GET|POST|PUT|PATCH|DELETE) /",
                    },
                    "where": {"type": "string", "pattern": r"^(body|query|header|path)\."},
                    "statement": {"type": "string", "minLength": 1},
                    "violation": {
                        "type": "object",
                        "properties": {"status": {"type": "integer"}},
                    },
                    # Declared by the rule's check and validated against that declaration.
                    "params": {"type": "object"},
                    "requires": {"type": "array", "items": {"type": "string"}},
                    # A rule resting on a standard the document points to (not on the document's
                    # own words) names it, so a report can tell "breaks its document" from
                    # "breaks a standard the document relies on".
                    "standard": {"type": "string", "pattern": r"^(RFC [0-9]+|ISO [0-9]+|OAuth 2\.0|OpenID Connect)"},
                    # Gaps the rule rests on: skipped, naming them, unless a setting resolves each.
                    "depends_on": {"type": "array", "minItems": 1,
                                   "items": {"type": "string", "pattern": r"^[a-z]+\.gap\.[a-z0-9-]+$"}},
                    "source": _SOURCE,
                },
            },
        },
        "gaps": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "statement", "source"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": r"^[a-z]+\.gap\.[a-z0-9-]+$"},
                    "statement": {"type": "string", "minLength": 1},
                    # What is not shown, so the loader can refuse a rule that checks it anyway.
                    # ``where`` may point into a request (body, query, header, path) or into the
                    # operation's success response (response.<member>).
                    "about": {"type": "array", "minItems": 1, "items": {
                        "type": "object", "required": ["operation"], "additionalProperties": False,
                        "properties": {"operation": {"type": "string", "pattern": "^(GET|POST|PUT|PATCH|DELETE) /"},
                                       "where": {"type": "string",
                                                 "pattern": r"^(body|query|header|path|response)\."}},
                    }},
                    # Why the gap names no operation or member (a policy, a rate, a product the
                    # API does not serve): every gap has ``about`` or this.
                    "about_none": {"type": "string", "minLength": 10},
                    # The target setting (a credential name) that resolves the gap on a target.
                    "setting": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
                    "source": _SOURCE,
                },
            },
        },
        "conflicts": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "statement", "source", "alternatives"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": r"^[a-z]+\.conflict\.[a-z0-9-]+$"},
                    "statement": {"type": "string"},
                    "alternatives": {"type": "array", "minItems": 2, "items": {"type": "string"}},
                    "source": _SOURCE,
                },
            },
        },
    },
}
