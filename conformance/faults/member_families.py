"""Variant families over the members of JSON answers: a gap leaves a member's type, spelling,
presence, name or order open, and the family makes the other choice (faults/families.py lists
every family a gap may allow). Members are picked by dotted patterns (faults/json_paths.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from conformance.faults.gap_params import Params
from conformance.faults.json_paths import DROP, Pattern, edit_members, pattern
from conformance.faults.toolkit import Wrap, request_body, response_body

__all__ = ["Build", "MEMBER_FAMILIES"]

Build = Callable[[Params], tuple[Wrap, str]]
_EVERY = range(100, 600)


def _patterns(p: Params, name: str, default: list[str] | None = None) -> list[Pattern]:
    try:
        return [pattern(text) for text in p.texts(name, *([default] if default is not None else []))]
    except ValueError as exc:
        raise p.error(f"'{name}': {exc}") from None


def _answers(p: Params, default: tuple[int, ...] | range, edit: Callable[[Any], Any]) -> Wrap:
    """``edit`` applied to the JSON answers the entry's scope and ``statuses`` pick."""
    return response_body(p.scope(), edit, p.statuses("statuses", default) or _EVERY)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text_members(p: Params) -> tuple[Wrap, str]:
    """Numbers of the members picked as text: ``format`` (``"{:.2f}"``, ``"id-{}"``; default
    ``"{}"``); ``taken_back``: the server takes such text back where it reads those members in a
    request body (format ``"{}"`` only)."""
    members, form, back = _patterns(p, "members"), p.text("format", "{}"), p.flag("taken_back")
    try:
        form.format(1.5)
    except (ValueError, IndexError, KeyError) as exc:
        raise p.error(f"'format' is not a format for one number ({exc}): {form!r}") from None
    if back and form != "{}":
        raise p.error("'taken_back' needs the format '{}' (the text must read back as the number)")
    wrap = _answers(p, (200,), lambda body: edit_members(
        body, members, lambda v: form.format(v) if _is_number(v) else v))
    if not back:
        return wrap, f"numbers as text ({form}) in {', '.join(m.text for m in members)}"
    scope = p.scope()

    def number(value: Any) -> Any:
        if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
            return int(value)
        if isinstance(value, str) and re.fullmatch(r"-?\d+\.\d*", value):
            return float(value)
        return value

    taken = request_body(scope, lambda body: edit_members(body, members, number))
    return (lambda sim: wrap(taken(sim))), f"numbers as text in {', '.join(m.text for m in members)}, taken back"


def _whole_numbers_as_integers(p: Params) -> tuple[Wrap, str]:
    members = _patterns(p, "members")

    def whole(value: Any) -> Any:
        return int(value) if isinstance(value, float) and value.is_integer() else value

    return (_answers(p, (200,), lambda body: edit_members(body, members, whole)),
            f"whole numbers as JSON integers in {', '.join(m.text for m in members)}")


def _member_values(p: Params) -> dict[str, Any]:
    given = p.value("members")
    if not isinstance(given, dict) or not given:
        raise p.error(f"'members' must be a non-empty mapping of member names to values, not {given!r}")
    return given


def _extra_members(p: Params) -> tuple[Wrap, str]:
    """``members`` (a mapping) added to each object ``at`` picks (default the root, ``$``)."""
    extra, at = _member_values(p), _patterns(p, "at", ["$"])

    def add(node: Any) -> Any:
        return {**node, **extra} if isinstance(node, dict) else node

    return _answers(p, (200,), lambda body: edit_members(body, at, add)), f"records carry {', '.join(extra)}"


def _other_member_values(p: Params) -> tuple[Wrap, str]:
    """Members the objects ``at`` picks (default the root) carry, given the values of ``members``
    (a mapping) instead; a member the object does not carry is not added."""
    given, at = _member_values(p), _patterns(p, "at", ["$"])

    def replace(node: Any) -> Any:
        return {k: given.get(k, v) for k, v in node.items()} if isinstance(node, dict) else node

    return (_answers(p, (200,), lambda body: edit_members(body, at, replace)),
            f"{', '.join(given)} given other values")


def _enveloped_answers(p: Params) -> tuple[Wrap, str]:
    """Each JSON answer wrapped in an object: under ``member`` (default ``data``), beside the
    members of ``beside`` (a mapping, default none)."""
    member, beside = p.text("member", "data"), p.value("beside", {})
    if not isinstance(beside, dict):
        raise p.error(f"'beside' must be a mapping of member names to values, not {beside!r}")
    return _answers(p, (200,), lambda body: {member: body, **beside}), f"answers wrapped as {{{member}, ...}}"


def _renamed_members(p: Params) -> tuple[Wrap, str]:
    """Members of each object ``at`` picks (default the root) named otherwise: ``names`` maps
    the server's name to another (``{data: items}``), order kept."""
    names = p.value("names")
    if not isinstance(names, dict) or not names or not all(isinstance(v, str) for v in names.values()):
        raise p.error(f"'names' must be a non-empty mapping of member names to names, not {names!r}")
    at = _patterns(p, "at", ["$"])

    def rename(node: Any) -> Any:
        return {names.get(k, k): v for k, v in node.items()} if isinstance(node, dict) else node

    return (_answers(p, (200,), lambda body: edit_members(body, at, rename)),
            ", ".join(f"{k} named {v}" for k, v in names.items()))


def _absent_members(p: Params) -> tuple[Wrap, str]:
    members = _patterns(p, "members")
    return (_answers(p, (200,), lambda body: edit_members(body, members, lambda v: DROP)),
            f"{', '.join(m.text for m in members)} left out")


def _reversed_items(p: Params) -> tuple[Wrap, str]:
    members = _patterns(p, "members")

    def reverse(value: Any) -> Any:
        return list(reversed(value)) if isinstance(value, list) else value

    return (_answers(p, (200,), lambda body: edit_members(body, members, reverse)),
            f"items of {', '.join(m.text for m in members)} in reverse order")


def _other_values(p: Params) -> tuple[Wrap, str]:
    """Values of the members picked named otherwise: ``values`` maps the server's value to
    another (``{0: draft, 1: running}``); ``otherwise``, if given, replaces a value not listed."""
    table, otherwise = p.value("values"), p.value("otherwise", DROP)
    if not isinstance(table, dict) or not table:
        raise p.error(f"'values' must be a non-empty mapping of values to values, not {table!r}")
    members = _patterns(p, "members")

    def rename(value: Any) -> Any:
        if isinstance(value, (dict, list, bool)) or value is None:
            return value
        return table.get(value, value if otherwise is DROP else otherwise)

    return (_answers(p, (200,), lambda body: edit_members(body, members, rename)),
            f"values of {', '.join(m.text for m in members)} named otherwise")


_CASES: dict[str, Callable[[str], str]] = {
    "upper": str.upper,
    "lower": str.lower,
    # Like an EIP-55 checksum: every other letter after a 0x prefix upper case.
    "mixed": lambda text: text[:2] + "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(text[2:])),
}


def _letter_case(p: Params) -> tuple[Wrap, str]:
    """String values of the members picked in another letter ``case`` (upper, lower, mixed)."""
    case = p.choice("case", _CASES)
    members, change = _patterns(p, "members"), _CASES[case]
    return (_answers(p, (200,), lambda body: edit_members(body, members, lambda v: change(v) if isinstance(v, str)
                                                          else v)),
            f"{', '.join(m.text for m in members)} in {case} case")


_STAMP = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]00:?00)?$")
# An instant in UTC, spelled another way ISO 8601 allows: (date, time, fraction or None) -> text.
_SPELLINGS: dict[str, Callable[[tuple[str, ...], tuple[str, ...], str | None], str]] = {
    "zero-offset": lambda d, t, f: f"{'-'.join(d)}T{':'.join(t)}{'.' + f if f else ''}+00:00",
    "fraction-zero-offset": lambda d, t, f: f"{'-'.join(d)}T{':'.join(t)}.{f or '250'}+00:00",
    "basic": lambda d, t, f: f"{''.join(d)}T{''.join(t)}{'.' + f if f else ''}Z",
    "comma-fraction-basic-offset": lambda d, t, f: f"{'-'.join(d)}T{':'.join(t)},{f or '5'}+0000",
}


def _timestamp_spelling(p: Params) -> tuple[Wrap, str]:
    """UTC timestamps of the members picked (default every string member) in another ISO 8601
    spelling; ``naive_utc``: a stamp without an offset is in UTC too."""
    spelling = p.choice("spelling", _SPELLINGS)
    members, naive, spell = _patterns(p, "members", ["*"]), p.flag("naive_utc"), _SPELLINGS[spelling]

    def respell(value: Any) -> Any:
        found = _STAMP.match(value) if isinstance(value, str) else None
        if not found or (found.group(8) is None and not naive):
            return value
        g = found.groups()
        return spell(g[0:3], g[3:6], g[6])

    return _answers(p, (200,), lambda body: edit_members(body, members, respell)), f"UTC timestamps {spelling}"


def _null_members(p: Params) -> tuple[Wrap, str]:
    """The members picked answered null (a server's "no data" for a key it was asked about)."""
    members = _patterns(p, "members")
    return (_answers(p, (200,), lambda body: edit_members(body, members, lambda v: None)),
            f"{', '.join(m.text for m in members)} null")


MEMBER_FAMILIES: dict[str, tuple[Build, str]] = {
    "text-members": (_text_members, "numbers given as text"),
    "whole-numbers-as-integers": (_whole_numbers_as_integers, "whole numbers written as JSON integers"),
    "extra-members": (_extra_members, "members beyond the listed ones"),
    "other-member-values": (_other_member_values, "members given other values"),
    "enveloped-answers": (_enveloped_answers, "answers wrapped in an envelope"),
    "renamed-members": (_renamed_members, "members named otherwise"),
    "absent-members": (_absent_members, "members not always present"),
    "reversed-items": (_reversed_items, "items in another order"),
    "other-values": (_other_values, "values named otherwise"),
    "letter-case": (_letter_case, "text in another letter case"),
    "timestamp-spelling": (_timestamp_spelling, "timestamps in another ISO 8601 spelling"),
    "null-members": (_null_members, "members answered null"),
}
