"""JSON text from a target, parsed with a bound on nesting.

``json.loads`` recurses once per level of nesting: a body nested deeper than the interpreter's
recursion limit raises ``RecursionError`` (no ``ValueError``, so it escaped every caller as a
harness traceback), and one a little shallower parses, then overflows the stack of whatever
walks it next (validation, scrubbing, rendering). ``loads`` refuses both at the boundary with
``JsonTooDeep``, a ``ValueError``: every caller that already treats a body that does not parse as
the target's failure treats this one the same way.

The bound is ``CONFORMANCE_MAX_JSON_DEPTH`` (``settings.Limits.max_json_depth``).
"""

from __future__ import annotations

import json
from typing import Any

from conformance.settings import limit_in_force

__all__ = ["JsonTooDeep", "depth_over", "loads"]


class JsonTooDeep(ValueError):
    """A JSON text nested deeper than the bound: not parsed, like text that is not JSON."""


def depth_over(value: Any, bound: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``bound`` levels deep. Iterative, so
    measuring a deep value cannot overflow the stack itself."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if level > bound:
            return True
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _openings(text: str | bytes | bytearray) -> int:
    """How many arrays and objects the text opens at most (brackets inside strings count too):
    a text opening no more than the bound cannot nest deeper, and counting runs at C speed where
    walking a 500,000-item array took 0.1 s a parse."""
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


def loads(text: str | bytes | bytearray, *, max_depth: int | None = None, **options: Any) -> Any:
    """``json.loads(text, **options)``, refusing values nested more than ``max_depth`` levels
    (default: ``CONFORMANCE_MAX_JSON_DEPTH``) with ``JsonTooDeep``."""
    bound = max_depth if max_depth is not None else int(limit_in_force("max_json_depth"))
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise JsonTooDeep(f"JSON nested deeper than {bound} levels (CONFORMANCE_MAX_JSON_DEPTH); not parsed") from None
    if isinstance(value, (dict, list)) and _openings(text) > bound and depth_over(value, bound):
        raise JsonTooDeep(f"JSON nested deeper than {bound} levels (CONFORMANCE_MAX_JSON_DEPTH); not parsed")
    return value
