"""One-line renderings of messages for consoles and lists: shortened, never cutting what to set."""

from __future__ import annotations

import re

__all__ = ["shorten"]

_VARIABLE = re.compile(r"CONFORMANCE_[A-Z0-9_]+")


def shorten(text: str, limit: int) -> str:
    """The first line of ``text`` in about ``limit`` characters, cut at a space. A variable the
    message names (what to set to un-skip a rule) is never cut: a cut inside one moves past it,
    and variables the kept part lost are named at the end."""
    line = (text.strip().splitlines() or [""])[0]
    if len(line) <= limit:
        return line
    cut = line.rfind(" ", 0, limit + 1)
    cut = limit if cut <= 0 else cut
    for match in _VARIABLE.finditer(line):
        if match.start() < cut < match.end():
            cut = match.end()
    kept = line[:cut].rstrip() + " ..."
    lost = [v for v in dict.fromkeys(_VARIABLE.findall(line)) if v not in kept]
    return kept + (f" (set {', '.join(lost)})" if lost else "")
