"""Renderings of messages for consoles and lists: shortened, never cutting what to set, and with
the target's control characters made visible."""

from __future__ import annotations

import re

__all__ = ["shorten", "visible"]

_VARIABLE = re.compile(r"CONFORMANCE_[A-Z0-9_]+")
# Every C0 control but tab and newline, DEL and every C1 control: what a terminal, a CI log viewer
# or Allure acts on (ESC opens clipboard writes, window titles, erasures, colours; 0x9b is CSI
# alone; CR and backspace overwrite what was printed). Each becomes its visible escape, ``\x1b``.
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7f, 0xa0)] if chr(c) not in "\t\n"}


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


def visible(text: str) -> str:
    r"""``text`` with every control character but newline and tab written as its escape (``\x1b``),
    so a body or header value a target sent reaches a terminal, a report or a log as inert text."""
    return text.translate(_CONTROLS)
