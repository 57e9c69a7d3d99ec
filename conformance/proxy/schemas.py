"""A jsonschema error as a finding's kind and place: the catalogue's vocabulary for what broke where."""

from __future__ import annotations

from typing import Any

import jsonschema

__all__ = ["kind_of", "place_of"]

# jsonschema keyword -> the catalogue's rule kind that states such a bound.
_KINDS = {
    "required": "required", "type": "type", "format": "format", "enum": "enum", "const": "enum",
    "maximum": "limit", "minimum": "limit", "exclusiveMaximum": "limit", "exclusiveMinimum": "limit",
    "maxLength": "limit", "minLength": "limit", "maxItems": "limit", "minItems": "limit", "multipleOf": "limit",
    "maxProperties": "limit", "minProperties": "limit",
}


def kind_of(error: jsonschema.ValidationError) -> str:
    return _KINDS.get(str(error.validator), "schema")


def place_of(area: str, error: jsonschema.ValidationError) -> str:
    """``body.sharingOptions.emailOptions.recipients`` for an error inside the body: array indexes are
    left out (the catalogue names a member, not one of its items); a missing required member is
    named itself, not its parent."""
    parts = [str(p) for p in error.absolute_path if not isinstance(p, int)]
    if error.validator == "required":
        missing = _missing(error.validator_value, error.instance)
        if missing:
            parts.append(missing)
    return ".".join([area, *parts])


def _missing(required: Any, instance: Any) -> str | None:
    if isinstance(required, list) and isinstance(instance, dict):
        for name in required:
            if name not in instance:
                return str(name)
    return None
