"""Response bodies against the contract's schemas, at a cost the kill matrix affords.

Measured before this module (cProfile of ``run_suite('affiliate', ...)`` over the clean simulator
and its variants): ``expect_json_schema`` took about a quarter of all time, jsonschema's
``iter_errors`` walking bodies of up to 1.5 MB (``affiliate.clicks.cap``: 0.3-0.5 s a body).
Two savings, neither of which can change a verdict or its message:

- A body's verdict is a function of the schema and the body's bytes alone (the format checker is
  fixed for the process), so a valid body is remembered per (schema, SHA-256 of the bytes). The
  same bodies come back often: one affiliate suite validated 109 bodies of which 54 were distinct,
  and the clean suite plus five variants 654 of which 108 were (the matrix runs each suite ~25
  times per service; a variant or fault that changes a body changes its bytes, so it is validated
  anew).
- ``$ref``s to ``$defs`` are inlined once per schema, so a validation does not look every one up
  through ``referencing`` (about 10% of a validation on our contracts). Only where no message can
  tell the difference: jsonschema never adds ``$ref`` to an error's paths, and the only messages
  that print a subschema (``not``, ``oneOf``) keep theirs untouched.

- jsonschema_rs (already installed: schemathesis validates with it) answers "valid" first: it
  walks a body about ten times faster (response validation was 0.55-0.8 s of a 4.3 s replay).
  Its formats and regular expressions are not python-jsonschema's, so it is never the judge of a
  failure: only a body it finds valid skips python-jsonschema, and anything else (invalid, a schema
  or value it cannot take) is judged, and worded, by python-jsonschema as before. A verdict could
  differ only where jsonschema_rs is looser than python-jsonschema; tests/checks/
  test_fast_validation.py holds every format and pattern of the contracts to "never looser" on
  values at their edges (its e-mail check is stricter, which only costs the slow path).
"""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import jsonschema
import jsonschema_rs

from conformance.contract.model import Contract

__all__ = ["FORMAT_CHECKER", "body_error", "fast_valid", "fast_validator", "validator"]

# Formats are assertions, not annotations: a date-time member holding "not-a-date" breaks the
# contract. Which formats are really checked depends on jsonschema's optional dependencies
# (listed in pyproject.toml); tests/checks/test_formats.py fails if one of ours is not.
FORMAT_CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER

_DEFS = "#/$defs/"
# Keywords whose presence makes a reference resolve somewhere else than the root's $defs (a new
# base URI, an anchor, a dynamic scope) or follow references on its own: such a schema is not inlined.
_SCOPED = frozenset({"$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
                     "unevaluatedProperties", "unevaluatedItems"})
# Keywords whose value is one subschema, a list of them, or a name -> subschema map. Everything
# else (enum, const, examples, default ...) is data and is copied as it is; `not` and `oneOf` are
# absent on purpose: their messages print their subschemas, which must read as they do today.
_ONE = frozenset({"additionalProperties", "items", "contains", "propertyNames", "if", "then", "else"})
_MANY = frozenset({"allOf", "anyOf", "prefixItems"})
_NAMED = frozenset({"properties", "patternProperties", "dependentSchemas"})
# Longest message of a body's error. jsonschema writes the failing instance into it with repr():
# a 1 MB array answered where an object belongs made a 1.5 MB message, kept per failing rule by the
# outcome, pytest's report and the summary (a run against such a target grew by ~9 MB a rule). The
# middle goes: the start shows the value, the end says what was wrong with it.
MAX_MESSAGE = 2000
_HEAD = 1200
# Bodies remembered as valid (keys of ~100 bytes). Invalid ones are not remembered: their message
# may quote a whole body, and a body that breaks a rule comes from a fault run that sends it once.
_KEEP_VALID = 4096


@dataclass(frozen=True)
class _Compiled:
    # Both held, so their id()s (the cache key) cannot be reused by other objects while cached.
    contract: Contract
    schema: dict[str, Any]
    plain: jsonschema.protocols.Validator
    inlined: jsonschema.protocols.Validator
    standalone: dict[str, Any]

    @functools.cached_property
    def fast(self) -> Any:
        """jsonschema_rs's validator of the same schema, None where it cannot build one; built when
        a body is first validated (most callers of ``validator`` only want python-jsonschema's)."""
        return fast_validator(self.standalone)


_COMPILED: dict[tuple[int, int], _Compiled] = {}
_VALID: OrderedDict[tuple[int, int, bytes], None] = OrderedDict()


def _scoped(node: Any) -> bool:
    if isinstance(node, dict):
        return any(k in _SCOPED for k in node) or any(_scoped(v) for v in node.values())
    if isinstance(node, list):
        return any(_scoped(v) for v in node)
    return False


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (standalone: components under ``$defs``) with each sole ``{"$ref": "#/$defs/X"}``
    in a schema position replaced by X, itself inlined; a reference back into X inside X stays a
    reference (resolved as before). ``$defs`` stays, so every reference left resolves as it did."""
    defs = schema.get("$defs")
    if not isinstance(defs, dict) or _scoped(schema):
        return schema
    done: dict[str, Any] = {}

    def sub(node: Any, inside: frozenset[str]) -> Any:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if len(node) == 1 and isinstance(ref, str) and ref.startswith(_DEFS):
            name = ref[len(_DEFS):]
            # A name needing JSON-pointer or percent decoding is left to referencing.
            if name in defs and not any(c in name for c in "/~%") and name not in inside:
                if name not in done:
                    done[name] = sub(defs[name], inside | {name})
                return done[name]
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _ONE:
                out[key] = sub(value, inside)
            elif key in _MANY and isinstance(value, list):
                out[key] = [sub(v, inside) for v in value]
            elif key in _NAMED and isinstance(value, dict):
                out[key] = {k: sub(v, inside) for k, v in value.items()}
            else:
                out[key] = value
        return out

    top = sub({k: v for k, v in schema.items() if k != "$defs"}, frozenset())
    top["$defs"] = defs
    return top


def _compiled(contract: Contract, schema: dict[str, Any]) -> _Compiled:
    # Keyed by identity of the contract and of its own schema object: contracts are cached and read-only.
    key = (id(contract), id(schema))
    entry = _COMPILED.get(key)
    if entry is None or entry.contract is not contract or entry.schema is not schema:
        standalone = contract.standalone(schema)
        entry = _Compiled(
            contract, schema,
            jsonschema.Draft202012Validator(standalone, format_checker=FORMAT_CHECKER),
            jsonschema.Draft202012Validator(_inline(standalone), format_checker=FORMAT_CHECKER),
            standalone,
        )
        _COMPILED[key] = entry
    return entry


def validator(contract: Contract, schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """jsonschema's validator for one of the contract's schemas, references as written (errors
    print their subschemas as the contract has them)."""
    return _compiled(contract, schema).plain


def body_error(contract: Contract, schema: dict[str, Any], body: bytes, instance: Any) -> tuple[str, str] | None:
    """None when ``instance`` (``body`` parsed) is valid under ``schema``; else where and why, from
    jsonschema's best match: ('/'-joined path or '(body)', message)."""
    entry = _compiled(contract, schema)
    key = (id(contract), id(schema), hashlib.sha256(body).digest())
    if key in _VALID:
        _VALID.move_to_end(key)
        return None
    error = None if fast_valid(entry.fast, instance) else \
        jsonschema.exceptions.best_match(entry.inlined.iter_errors(instance))
    if error is not None:
        return "/".join(str(p) for p in error.absolute_path) or "(body)", _cut(error.message)
    _VALID[key] = None
    if len(_VALID) > _KEEP_VALID:
        _VALID.popitem(last=False)
    return None


def fast_validator(schema: dict[str, Any]) -> Any:
    """jsonschema_rs's draft 2020-12 validator of ``schema``, formats asserted; None where it
    refuses the schema (a keyword or a pattern it does not take): python-jsonschema alone then."""
    try:
        return jsonschema_rs.Draft202012Validator(schema, validate_formats=True)
    except Exception:  # noqa: BLE001 - any refusal only means the slow path
        return None


def fast_valid(fast: Any, instance: Any) -> bool:
    """Whether jsonschema_rs finds ``instance`` valid; False when it cannot say (no validator, a
    value it cannot convert such as an integer beyond 64 bits): then python-jsonschema judges."""
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(instance))
    except Exception:  # noqa: BLE001 - only a "valid" from it counts
        return False


def _cut(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    cut = len(message) - MAX_MESSAGE
    return f"{message[:_HEAD]} ... ({cut:,} characters cut) ... {message[len(message) - (MAX_MESSAGE - _HEAD):]}"
