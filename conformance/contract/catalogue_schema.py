"""JSON Schema of ``schemas/<id>/rules.yaml``: a contract file is validated before it is used."""

from __future__ import annotations

from typing import Any

__all__ = ["CATALOGUE_SCHEMA", "DERIVED_KINDS", "DISCOVER_SCHEMA", "RULE_KINDS"]

RULE_KINDS = (
    "limit", "enum", "required", "type", "auth", "error", "schema", "header", "paging",
    "state", "cost", "rate-limit", "endpoint", "conflict", "format",
)
# Kinds of the rules derived from openapi.yaml (contract/derive.py), never written in rules.yaml.
DERIVED_KINDS = ("fields", "body")

# A setting's discovery source (``discover:`` on a credentials entry; conformance/discovery/ reads
# it): a documented read operation and where in its answer the value is, or ``never``: why no
# read can give it. Strings may name settings as ``{NAME}`` (discovered, configured or defaulted).
_MEMBER = {"type": "string", "minLength": 1}
DISCOVER_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {"type": "object", "required": ["never"], "additionalProperties": False,
         "properties": {"never": {"type": "string", "minLength": 1}}},
        {"type": "object", "required": ["operation"], "additionalProperties": False, "properties": {
            # "METHOD /path" of the contract, without x-effects (the loader refuses any other).
            "operation": {"type": "string", "pattern": "^(GET|POST) /"},
            "path": {"type": "object", "additionalProperties": {"type": "string"}},
            "query": {"type": "object"},
            "body": {},  # a POST read's JSON body; "example": the operation's example as the rules send it
            # Dotted member holding the records; absent: the answer is the record list itself.
            "items": {"type": "string"},
            # member: a record's member (dotted); page-size: how many records a page with a next
            # cursor holds; cursor-member: the page member carrying the last record's ``member``
            # (the next cursor); date: the answer's Date header as YYYY-mm-DD.
            "value": {"enum": ["member", "page-size", "cursor-member", "date"]},
            "member": _MEMBER,
            "where": {"type": "object"},  # only records whose members equal these
            "unlike": {"type": "object", "additionalProperties": {"type": "string"}},  # members that differ
            "pick": {"type": "integer", "minimum": 0},  # the n-th distinct value (default the first)
            # Every distinct value over every page, joined; fewer than min leaves it unset.
            "all": {"type": "object", "additionalProperties": False, "required": ["join"], "properties": {
                "join": {"type": "string"}, "min": {"type": "integer", "minimum": 1}}},
            "pages": {"type": "object", "additionalProperties": False, "required": ["next", "param"],
                      "properties": {"next": _MEMBER, "param": _MEMBER,
                                     "max": {"type": "integer", "minimum": 1}}},
        }},
    ],
}

_FAULT_NAMES: dict[str, Any] = {"type": "array", "minItems": 1, "uniqueItems": True,
                                "items": {"type": "string", "pattern": r"^[a-z0-9][a-z0-9._-]*$"}}

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
                    # Where `conformance discover` reads the setting from (conformance/discovery/).
                    "discover": DISCOVER_SCHEMA,
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
                    # Hand-written faults of the service package that break this rule (named by
                    # the fault's name): the binding lives here, never as a rule id in Python.
                    "faults": _FAULT_NAMES,
                    # Families of faults the core derives that do not fit the rule's check, and why.
                    "derived_faults": {"type": "object", "required": ["except", "why"], "additionalProperties": False,
                                       "properties": {"except": {"type": "array", "minItems": 1, "uniqueItems": True,
                                                                 "items": {"type": "string",
                                                                           "pattern": "^[a-z0-9-]+$"}},
                                                      "why": {"type": "string", "minLength": 10}}},
                },
            },
        },
        # Rules derived from openapi.yaml are not written above; a hand-written fault breaking one
        # is bound here, by the derived rule's id.
        "derived_rules": {
            "type": "object",
            "propertyNames": {"pattern": r"^[a-z]+\.[a-z0-9-]+\.[a-z0-9-]+$"},
            "additionalProperties": {"type": "object", "required": ["faults"], "additionalProperties": False,
                                     "properties": {"faults": _FAULT_NAMES}},
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
                                                 "pattern": r"^(body|query|header|path|response)\."},
                                       # The member's documented type is left open too (it may be
                                       # ignored): its derived wrong-type probe is switched off.
                                       "type": {"enum": ["open"]}},
                    }},
                    # Why the gap names no operation or member (a policy, a rate, a product the
                    # API does not serve): every gap has ``about`` or this.
                    "about_none": {"type": "string", "minLength": 10},
                    # The target setting (a credential name) that resolves the gap on a target.
                    "setting": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
                    # The conforming choices the gap leaves open, as core variant families
                    # (faults/variants.py GAP_FAMILIES) with their params: every rule must pass each.
                    "allows": {"type": "array", "minItems": 1, "items": {
                        "type": "object", "required": ["family"], "properties": {"family": {"type": "string"}}}},
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
