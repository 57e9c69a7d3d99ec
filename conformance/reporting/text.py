"""Renderings of messages for consoles, lists and Markdown: shortened, never cutting what to set,
with the target's control characters made visible, and quoted so no content leaves its quote."""

from __future__ import annotations

import re

__all__ = ["code_block", "code_span", "shorten", "visible"]

_VARIABLE = re.compile(r"CONFORMANCE_[A-Z0-9_]+")
# Every C0 control but tab and newline, DEL and every C1 control: what a terminal, a CI log viewer
# or Allure acts on (ESC opens clipboard writes, window titles, erasures, colours; 0x9b is CSI
# alone; CR and backspace overwrite what was printed). Each becomes its visible escape, ``\x1b``.
_BACKTICKS = re.compile("`+")
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7f, 0xa0)] if chr(c) not in "\t\n"}
# The bidirectional controls (Unicode's "Trojan Source" set): they reorder what a terminal or a
# viewer shows, so a value can read as something it is not. Each becomes ``\u202e`` and so on.
_CONTROLS.update({c: f"\\u{c:04x}" for c in [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                                                *range(0x2066, 0x206A)]})


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
    and every bidirectional control as its ``\u`` escape,
    so a body or header value a target sent reaches a terminal, a report or a log as inert text."""
    return text.translate(_CONTROLS)


def _fence(text: str, least: int) -> str:
    """A run of backticks longer than any in ``text`` (and at least ``least``): nothing in ``text``
    can end a code block or span opened with it (CommonMark allows fences of any length)."""
    return "`" * max(least, max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)


def code_block(text: str) -> list[str]:
    """``text`` (a message quoting a target's body) as the lines of a fenced Markdown code block
    that no content closes: a body holding a fence, ``# All rules passed`` and ``<!--`` stays
    inside it, shown as written, never rendered as a heading or an HTML comment hiding the rest."""
    text = visible(text)
    fence = _fence(text, 3)
    return [fence, text, fence]


def code_span(text: str) -> str:
    """``text`` on one line as a Markdown code span that nothing in it ends: no emphasis, link or
    HTML in it is rendered. Padded with a space each side, which CommonMark strips again, so a
    backtick at either end cannot join the fence."""
    text = visible(text).replace("\n", " ")
    fence = _fence(text, 1)
    return f"{fence} {text} {fence}"
