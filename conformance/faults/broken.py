"""Answer values outside their documented schema: the one walker the answer families break
members with, at whatever depth the document describes them (nested objects, arrays of records,
arrays of scalars, schemas built with ``allOf``).

``broken(contract, schema, value, how)`` finds, depth first (required members before the others),
the first value of an actual answer it can make invalid the way ``how`` asks, and returns the
answer with that value replaced, or None when there is none:

* ``ENUM``: a listed value replaced by one of the same JSON type the list does not hold;
* ``TYPE``: a typed value replaced by one of another JSON type;
* ``ANY``: the first of these the value's schema allows: off its list, outside its format, not
  matching its pattern, of another type.

Every replacement is held to the member's own schema (the contract's validator) before it is
used: a value the schema would still take is no break.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from conformance.contract import Contract
from conformance.contract.derive import FORMAT_MISSES
from conformance.contract.validation import validator

__all__ = ["ANY", "ENUM", "TYPE", "broken", "reaches"]

ENUM, TYPE, ANY = "enum", "type", "any"

# A value of another JSON type than the documented one.
RETYPED: dict[str, Any] = {"string": 12345, "integer": "12345", "number": "1.5", "boolean": "yes",
                           "array": {"not": "an array"}, "object": ["not", "an", "object"]}
_UNMATCHED = ("conformance not matching!", "", "~")


def merged(contract: Contract, schema: Any) -> dict[str, Any]:
    """A schema with the parts of its ``allOf`` folded in (a record built on a base schema)."""
    schema = contract.deref(schema) if isinstance(schema, dict) else {}
    merged_: dict[str, Any] = {k: v for k, v in schema.items() if k not in ("allOf", "properties", "required")}
    merged_["required"] = list(schema.get("required") or [])
    merged_["properties"] = dict(schema.get("properties") or {})
    for part in (merged(contract, p) for p in schema.get("allOf") or []):
        for key, value in part.items():
            if key == "required":
                merged_["required"] += [n for n in value if n not in merged_["required"]]
            elif key == "properties":
                for name, sub in value.items():
                    merged_["properties"][name] = {**contract.deref(merged_["properties"].get(name) or {}),
                                                   **contract.deref(sub)}
            else:
                merged_.setdefault(key, value)
    return merged_


def _kinds(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) else [k for k in kind or [] if isinstance(k, str)]


def _off_list(allowed: list[Any]) -> Any:
    if allowed and all(isinstance(v, str) for v in allowed):
        return "conformance-not-listed"
    numbers = [v for v in allowed if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if numbers and len(numbers) == len(allowed):
        return max(numbers) + 1000
    return None


def _candidates(schema: dict[str, Any], how: str) -> list[Any]:
    out: list[Any] = []
    if how in (ENUM, ANY) and isinstance(schema.get("enum"), list):
        out.append(_off_list(schema["enum"]))
    if how == ENUM:
        return [v for v in out if v is not None]
    kinds = _kinds(schema)
    if how == ANY and "string" in kinds:
        if schema.get("format") in FORMAT_MISSES:
            out.append(FORMAT_MISSES[schema["format"]])
        if isinstance(schema.get("pattern"), str):
            out += [text for text in _UNMATCHED if not re.search(schema["pattern"], text)][:1]
    out += [RETYPED[k] for k in kinds if k in RETYPED]
    return [v for v in out if v is not None]


def _break_value(contract: Contract, schema: dict[str, Any], how: str) -> Any:
    check = validator(contract, schema)
    for candidate in _candidates(schema, how):
        if not check.is_valid(candidate):
            return candidate
    return _NONE


_NONE = object()


def _walk(contract: Contract, schema: Any, value: Any, how: str) -> Any:
    """The value with the first thing in it that can break broken (its members and items before
    itself), or _NONE."""
    schema = merged(contract, schema)
    props: dict[str, Any] = schema.get("properties") or {}
    if isinstance(value, dict) and props:
        names = [*[n for n in schema["required"] if n in props], *[n for n in props if n not in schema["required"]]]
        for name in names:
            if name in value and (found := _walk(contract, props[name], value[name], how)) is not _NONE:
                return {**value, name: found}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, element in enumerate(value):
            if (found := _walk(contract, schema["items"], element, how)) is not _NONE:
                return [*value[:i], found, *value[i + 1:]]
    own = {k: v for k, v in schema.items() if k not in ("required", "properties", "items")}
    if own.get("enum") is not None or own.get("type") is not None:
        return _break_value(contract, own, how)
    return _NONE


def broken(contract: Contract, schema: Any, value: Any, how: str) -> Any | None:
    """``value`` with its first breakable value broken as ``how`` asks (module doc), or None."""
    found = _walk(contract, schema, copy.deepcopy(value), how)
    return None if found is _NONE else found


def reaches(contract: Contract, schema: Any, how: str, depth: int = 0) -> bool:
    """Whether the schema describes, at some depth, a value ``broken`` could break as ``how`` asks
    (whether an actual answer holds it is only known when it comes)."""
    schema = merged(contract, schema)
    if depth > 8:
        return False
    if any(reaches(contract, sub, how, depth + 1) for sub in (schema.get("properties") or {}).values()):
        return True
    if isinstance(schema.get("items"), dict) and reaches(contract, schema["items"], how, depth + 1):
        return True
    own = {k: v for k, v in schema.items() if k not in ("required", "properties", "items")}
    return bool(_candidates(own, how)) if ("enum" in own or "type" in own) else False
