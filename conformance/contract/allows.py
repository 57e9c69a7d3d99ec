"""A gap's ``allows:`` entries checked where the contract is loaded, not when variants are built.

The variant families live on the faults floor (faults/families.py, member_families.py), above
the loader, so the loader cannot build them. It checks each entry against the family's
declared params instead (``FAMILY_PARAMS``: the family exists, every param is one the family
reads, each required one is given, each value has its type), that the operations it names are
in openapi.yaml, that no member pattern is a near spelling of a member the document shows while
picking none (a pattern picking no shown member may pick an unshown one: what many gaps are
about), and that no two entries give their variant the same name.
A mistake is one ContractFileError line naming rules.yaml, the gap and the entry, from
``conformance run`` and ``conformance rules`` as from ``selftest``. The builders still read their
params through faults/gap_params.py (what they check beyond this, e.g. ``taken_back`` with a
format, stays there); tests/contract/test_allows.py holds the declarations to the builders.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from conformance.contract.model import Contract, Gap
from conformance.errors import ContractFileError, did_you_mean

__all__ = ["FAMILY_PARAMS", "Param", "check_allows", "variant_names"]


@dataclass(frozen=True)
class Param:
    """What a param's value must be: ``ok`` says whether it is, ``says`` it in words."""

    ok: Callable[[Any], bool]
    says: str
    required: bool = False
    # Where the value must resolve: "operations" (of openapi.yaml), member patterns over "answers"
    # or "requests" (request bodies), or "request-names" (top-level members of request bodies).
    resolve: str = ""
    choices: tuple[str, ...] = ()  # the only values taken, where the family names them


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_status(value: Any) -> bool:
    return _is_int(value) and 100 <= value <= 599


def _texts(value: Any) -> list[str] | None:
    """A string or a non-empty list of strings as a list; None when neither."""
    listed = [value] if isinstance(value, str) else value
    return listed if isinstance(listed, list) and listed and all(isinstance(v, str) for v in listed) else None


def _compiles(value: Any) -> bool:
    try:
        re.compile(value)
    except (re.error, TypeError):
        return False
    return isinstance(value, str)


def _statuses(value: Any) -> bool:
    listed = value if isinstance(value, list) else [value]
    return bool(listed) and all(_is_status(v) or (isinstance(v, str) and re.fullmatch(r"[1-5]xx", v)) for v in listed)


_OPERATION = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /")
# faults/json_paths.py ``pattern``: dotted globs, '$' or a leading '$.' anchoring at the root.
_MEMBER = re.compile(r"^(\$|\$\.[^.]+(\.[^.]+)*|[^.$][^.]*(\.[^.]+)*)$")


def _formats_a_number(value: Any) -> bool:
    try:
        value.format(1.5)
    except (ValueError, IndexError, KeyError, AttributeError):
        return False
    return isinstance(value, str)


def _mapping(values: Callable[[Any], bool] = lambda v: True, *, empty: bool = False) -> Callable[[Any], bool]:
    return lambda m: isinstance(m, dict) and (empty or bool(m)) and all(
        isinstance(k, str) and values(v) for k, v in m.items())


TEXT = Param(lambda v: isinstance(v, str), "a string")
ANY = Param(lambda v: True, "any JSON value")
FLAG = Param(lambda v: isinstance(v, bool), "true or false")
REGEX = Param(_compiles, "a regular expression")
STATUS = Param(_is_status, "an HTTP status")
STATUSES = Param(_statuses, 'an HTTP status, a class such as "2xx", or a list of them')
TEXTS = Param(lambda v: _texts(v) is not None, "a string or a non-empty list of strings")
MEMBERS = Param(lambda v: (t := _texts(v)) is not None and all(_MEMBER.match(p) for p in t),
                "a member pattern or a non-empty list of them (dotted names, '*' globs, '$.' anchors at the root)",
                resolve="answers")
OPERATIONS = Param(lambda v: (t := _texts(v)) is not None and all(_OPERATION.match(o) for o in t),
                   "a non-empty list of 'METHOD /path'", resolve="operations")
MAPPING = Param(_mapping(), "a non-empty mapping of member names to values")


def _required(param: Param, resolve: str | None = None) -> Param:
    return Param(param.ok, param.says, True, param.resolve if resolve is None else resolve, param.choices)


def _choice(*choices: str) -> Param:
    return Param(lambda v: v in choices, f"one of {', '.join(choices)}", True, choices=choices)


_REFUSAL = Param(lambda v: _is_int(v) and 400 <= v <= 499, "a 4xx status (a refusal)")
_VALUES = Param(lambda v: isinstance(v, list) and bool(v), "a non-empty list of values")
_JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")

# The scope params (faults/gap_params.py ``Params.scope``), read by every family.
_SCOPE = {"name": TEXT, "paths": REGEX, "method": TEXTS, "operations": OPERATIONS}
# The families over JSON answers also read ``statuses`` (member_families.py ``_answers``).
_ANSWERS = {**_SCOPE, "statuses": STATUSES}

FAMILY_PARAMS: dict[str, dict[str, Param]] = {
    "plain-text-errors": _SCOPE,
    "other-error-body": {**_SCOPE, "body": _required(ANY), "message_from": TEXT},
    "other-status": {**_SCOPE, "status": _required(STATUS), "instead_of": _required(STATUSES),
                     "body_matches": REGEX, "body": ANY},
    "bodiless-answers": {**_SCOPE, "status": _required(STATUS), "instead_of": STATUSES,
                         "headers": Param(_mapping(lambda v: isinstance(v, str), empty=True),
                                          "a mapping of header names to text values")},
    "other-media-type": {**_SCOPE, "content_type": _required(TEXT), "instead_of": REGEX, "statuses": STATUSES},
    "request-defaults": {**_SCOPE, "defaults": Param(
        lambda v: _mapping(lambda m: isinstance(m, dict) and bool(m))(v) and all(_OPERATION.match(k) for k in v),
        "a mapping of operations ('POST /path') to mappings of members", True, "operations")},
    "echoed-header": {**_SCOPE, "header": _required(TEXT)},
    "text-members": {**_ANSWERS, "members": _required(MEMBERS), "format": Param(_formats_a_number, "a format for "
                                                                                 "one number, such as '{:.2f}'"),
                     "taken_back": FLAG},
    "whole-numbers-as-integers": {**_ANSWERS, "members": _required(MEMBERS)},
    "extra-members": {**_ANSWERS, "members": _required(MAPPING), "at": MEMBERS},
    "other-member-values": {**_ANSWERS, "members": _required(MAPPING), "at": MEMBERS},
    "enveloped-answers": {**_ANSWERS, "member": TEXT, "beside": Param(
        _mapping(empty=True), "a mapping of member names to values")},
    "renamed-members": {**_ANSWERS, "names": Param(_mapping(lambda v: isinstance(v, str)),
                                                   "a non-empty mapping of member names to names", True),
                        "at": MEMBERS},
    "absent-members": {**_ANSWERS, "members": _required(MEMBERS)},
    "reversed-items": {**_ANSWERS, "members": _required(MEMBERS)},
    "other-values": {**_ANSWERS, "members": _required(MEMBERS), "otherwise": ANY, "values": Param(
        lambda v: isinstance(v, dict) and bool(v), "a non-empty mapping of values to values", True)},
    "letter-case": {**_ANSWERS, "members": _required(MEMBERS), "case": _choice("upper", "lower", "mixed")},
    "timestamp-spelling": {**_ANSWERS, "members": MEMBERS, "naive_utc": FLAG, "spelling": _choice(
        "zero-offset", "fraction-zero-offset", "basic", "comma-fraction-basic-offset")},
    "answered-later": {**_SCOPE, "status": Param(lambda v: _is_status(v) or (
        isinstance(v, list) and bool(v) and all(map(_is_status, v))), "an HTTP status or a list of them", True),
        "every": Param(lambda v: _is_int(v) and v >= 2, "a whole number of at least 2")},
    "extra-columns": {**_SCOPE, "columns": Param(_mapping(lambda v: isinstance(v, str)),
                                                 "a non-empty mapping of column names to text values", True)},
    "null-members": {**_ANSWERS, "members": _required(MEMBERS)},
    # Over request bodies (faults/request_families.py); a refusal is a 4xx.
    "values-refused": {**_SCOPE, "members": _required(MEMBERS, "requests"), "status": _REFUSAL,
                       "accepted": _VALUES, "refused": _VALUES},
    "future-dates-refused": {**_SCOPE, "members": _required(MEMBERS, "requests"), "status": _REFUSAL},
    "members-taken": {**_SCOPE, "members": _required(MEMBERS, "requests"), "types": Param(
        lambda v: (t := _texts(v)) is not None and all(n in _JSON_TYPES for n in t),
        f"a JSON type name or a list of them ({', '.join(_JSON_TYPES)})")},
    "zoned-request-times": {**_SCOPE, "members": _required(MEMBERS, "requests"), "offset_hours": Param(
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and -12 <= v <= 14,
        "a number from -12 to 14 (a UTC offset)", True)},
}


def variant_names(gaps: list[Gap]) -> Iterator[tuple[Gap, int, str]]:
    """(gap, entry index, variant name) of every allows entry, named as faults/variants.py
    ``gap_variants`` names them: the entry's ``name``, else the family, else (when an earlier entry
    took the family's name) the family and the gap."""
    taken: set[str] = set()
    for gap in gaps:
        for j, entry in enumerate(gap.allows):
            family, name = str(entry.get("family")), entry.get("name")
            if not isinstance(name, str):
                name = family if family not in taken else f"{family}:{gap.id.split('.gap.', 1)[-1]}"
            taken.add(name)
            yield gap, j, name


# Markers in a schema's member paths: an array's items (any index) and a member of any name.
_INDEX, _ANY_NAME = "\0index", "\0any"
_MAX_DEPTH = 24


def _member_paths(contract: Contract, schemas: list[Any]) -> set[tuple[str, ...]]:
    """Every member path the schemas show, from the body's root: property names, ``_INDEX`` for
    array items, ``_ANY_NAME`` under additional or pattern properties. References on the way are
    followed once per path (a recursive schema ends)."""
    out: set[tuple[str, ...]] = set()

    def walk(node: Any, at: tuple[str, ...], refs: frozenset[str]) -> None:
        if not isinstance(node, dict) or len(at) > _MAX_DEPTH:
            return
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in refs:
                return
            refs, node = refs | {ref}, contract.resolve(node)
        out.add(at)
        for combined in ("allOf", "anyOf", "oneOf"):
            for sub in node.get(combined) or ():
                walk(sub, at, refs)
        for name, sub in (node.get("properties") or {}).items():
            walk(sub, (*at, str(name)), refs)
        extra = node.get("additionalProperties")
        if extra is True or isinstance(extra, dict) or node.get("patternProperties"):
            out.add((*at, _ANY_NAME))
            walk(extra if isinstance(extra, dict) else {}, (*at, _ANY_NAME), refs)
        for sub in (node.get("patternProperties") or {}).values():
            walk(sub, (*at, _ANY_NAME), refs)
        if isinstance(node.get("items"), dict):
            walk(node["items"], (*at, _INDEX), refs)
        for sub in node.get("prefixItems") or ():
            walk(sub, (*at, _INDEX), refs)

    for schema in schemas:
        walk(schema, (), frozenset())
    return out


def _segment(shown: str, glob: str) -> bool:
    if shown == _ANY_NAME:
        return True
    if shown == _INDEX:
        return glob.isdigit() or fnmatchcase("0", glob)
    return fnmatchcase(shown, glob)


def _resolves(pattern: str, paths: set[tuple[str, ...]]) -> bool:
    """Whether the member pattern (faults/json_paths.py) picks a member some path shows."""
    anchored = pattern == "$" or pattern.startswith("$.")
    segments = tuple(pattern.removeprefix("$").removeprefix(".").split(".")) if pattern != "$" else ()
    k = len(segments)
    return any((len(at) == k if anchored else len(at) >= k) and all(map(_segment, at[len(at) - k:], segments))
               for at in paths)


def _scoped(contract: Contract, entry: dict[str, Any]) -> list[str]:
    """The operations an entry's ``operations`` and ``method`` pick (its ``paths`` is searched in
    real request paths, not templates, so it does not narrow what members must resolve in)."""
    listed = _texts(entry.get("operations"))
    methods = {m.upper() for m in _texts(entry.get("method")) or ["*"]}
    return [op for op in (listed or contract.operations()) if "*" in methods or op.split(" ", 1)[0] in methods]


def _answer_schemas(contract: Contract, operations: list[str]) -> list[Any]:
    out: list[Any] = []
    for op in operations:
        for answer in (contract.operation(op).get("responses") or {}).values():
            for media in (contract.resolve(answer).get("content") or {}).values():
                if isinstance(media, dict) and "schema" in media:
                    out.append(media["schema"])
    return out


def _unresolved(contract: Contract, entry: dict[str, Any], name: str, how: str) -> str | None:
    """Why the value of ``name`` does not resolve in openapi.yaml, or None when it does."""
    value = entry[name]
    known = contract.operations()
    if how == "operations":
        missing = [op for op in (list(value) if isinstance(value, dict) else _texts(value) or []) if op not in known]
        return f"'{name}' names {missing[0]!r}, not an operation of openapi.yaml" if missing else None
    scoped = _scoped(contract, entry)
    if how in ("requests", "request-names"):
        paths, where = _member_paths(contract, [contract.request_schema(op) for op in scoped]), "request bodies"
        if how == "request-names":
            value = [f"$.{m}" for m in _texts(value) or []]
    else:
        paths, where = _member_paths(contract, _answer_schemas(contract, scoped)), "answers"
    for pattern in _texts(value) or []:
        near = None if _resolves(pattern, paths) else _near(pattern, paths)
        if near:
            shown = (pattern.removeprefix("$."), near.removeprefix("$.")) if how == "request-names" \
                else (pattern, near)
            return f"'{name}': {shown[0]!r} picks no member shown in the {where} of {_scope(scoped, known)} " \
                   f"in openapi.yaml (did you mean {shown[1]!r}?)"
    return None


def _scope(scoped: list[str], known: list[str]) -> str:
    return "every operation" if len(scoped) == len(known) else f"the {len(scoped)} operations it picks"


def _near(pattern: str, paths: set[tuple[str, ...]]) -> str | None:
    """A pattern one near spelling away from ``pattern`` that picks a member shown, else None.

    A pattern picking no member the document shows may pick one it does not show: what a gap is
    often about (bodies not shown, a nesting not shown), so that alone is no mistake. One a
    segment's near spelling away from a shown member is a typo."""
    import difflib

    anchored = pattern.startswith("$.")
    segments = pattern.removeprefix("$.").split(".") if pattern != "$" else []
    names = sorted({seg for at in paths for seg in at if not seg.startswith("\0")})
    for i, segment in enumerate(segments):
        if any(c in segment for c in "*?[") or segment.isdigit():
            continue
        for close in difflib.get_close_matches(segment, names, n=3, cutoff=0.75):
            candidate = ("$." if anchored else "") + ".".join([*segments[:i], close, *segments[i + 1:]])
            if _resolves(candidate, paths):
                return candidate
    return None


def _check_entry(contract: Contract, entry: dict[str, Any]) -> str | None:
    """What is wrong with one allows entry, or None."""
    family = entry.get("family")
    declared = FAMILY_PARAMS.get(str(family))
    if declared is None:
        return f"unknown variant family '{family}'{did_you_mean(str(family), FAMILY_PARAMS)}"
    given = [k for k in entry if k != "family"]
    unknown = sorted(set(given) - set(declared))
    if unknown:
        hint = did_you_mean(unknown[0], declared) if len(unknown) == 1 else ""
        return f"unknown param{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}{hint}"
    for name, param in declared.items():
        if name not in entry:
            if param.required:
                return f"needs the param '{name}'"
            continue
        if not param.ok(entry[name]):
            return f"'{name}' must be {param.says}, not {entry[name]!r}"
    for name, param in declared.items():
        if name in entry and param.resolve:
            problem = _unresolved(contract, entry, name, param.resolve)
            if problem:
                return problem
    return None


def check_allows(contract: Contract, rules_path: Path) -> None:
    """Every allows entry of every gap is one its family takes, resolving in openapi.yaml, and
    names a variant no other entry names: else one ContractFileError line naming the entry."""
    index = {id(gap): i for i, gap in enumerate(contract.gaps)}

    def where(gap: Gap, j: int) -> str:
        entry = gap.allows[j]
        named = f" '{entry['name']}'" if isinstance(entry.get("name"), str) else ""
        return f"{rules_path}: gaps[{index[id(gap)]}] ({gap.id}): allows[{j}] ({entry.get('family')}{named})"

    for gap in contract.gaps:
        for j, entry in enumerate(gap.allows):
            problem = _check_entry(contract, entry)
            if problem:
                raise ContractFileError(f"{where(gap, j)}: {problem}")
    first: dict[str, str] = {}
    for gap, j, name in variant_names(contract.gaps):
        if name in first:
            raise ContractFileError(f"{where(gap, j)}: variant name '{name}' is taken by {first[name]}; "
                                    "give it another 'name'")
        first[name] = f"allows[{j}] of {gap.id}"
