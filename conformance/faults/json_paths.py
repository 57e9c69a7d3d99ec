"""Members of a JSON body picked by dotted patterns, as an ``allows`` entry names them.

A pattern is dot-separated segments, each a glob (``fnmatch``) over a member name or an array
index: ``network_id`` is a member of that name at any depth, ``paging.next`` one under a
``paging`` member at any depth, ``*_id`` any member whose name ends in ``_id``. A pattern starting
with ``$`` is anchored at the body's root: ``$.data.*`` is each item of the root's ``data``,
``$`` the root itself.
"""

from __future__ import annotations

from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import Any

__all__ = ["DROP", "Pattern", "edit_members", "pattern"]

# What an edit returns to leave the member out.
DROP = object()


class Pattern:
    def __init__(self, text: str) -> None:
        self.text = text
        self.anchored = text == "$" or text.startswith("$.")
        self.segments = tuple(text.removeprefix("$").removeprefix(".").split(".")) if text != "$" else ()

    def matches(self, at: tuple[str, ...]) -> bool:
        if self.anchored:
            return len(at) == len(self.segments) and all(map(fnmatchcase, at, self.segments))
        k = len(self.segments)
        return len(at) >= k and all(map(fnmatchcase, at[len(at) - k:], self.segments))


def pattern(text: str) -> Pattern:
    """A pattern, or ValueError saying what is wrong with it."""
    if not text or (text != "$" and ".." in text) or text.endswith(".") or (text.startswith("$") and text[1:2] not in (
            "", ".")):
        raise ValueError(f"not a member pattern: {text!r} (dotted names, '*' globs, '$.' anchors at the root)")
    return Pattern(text)


def edit_members(body: Any, patterns: list[Pattern], edit: Callable[[Any], Any]) -> Any:
    """``body`` with every member a pattern picks replaced by ``edit(member)`` (left out when it
    returns DROP); picked members' new values are walked too. The root can be picked (``$``)."""

    def walk(node: Any, at: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            out: dict[str, Any] = {}
            for key, value in node.items():
                new = visit(value, (*at, str(key)))
                if new is not DROP:
                    out[key] = new
            return out
        if isinstance(node, list):
            return [new for i, value in enumerate(node) if (new := visit(value, (*at, str(i)))) is not DROP]
        return node

    def visit(node: Any, at: tuple[str, ...]) -> Any:
        if any(p.matches(at) for p in patterns):
            node = edit(node)
            if node is DROP:
                return DROP
        return walk(node, at)

    result = visit(body, ())
    return body if result is DROP else result
