"""Every combined value the transport can carry, rendered from credential templates.

A scheme's credential is often several secrets joined (``{API_KEY}:{SHARED_SECRET}``,
``Bearer {KEY_PREFIX}:{KEY_ID}:{KEY_SECRET}``). Scrubbing each part alone misses the joined
value once it is encoded: base64 of ``KEY:SECRET`` contains neither base64 of ``KEY`` nor of
``SECRET``. So the joined values themselves are secrets, and ``scrub.forms_of`` encodes each.

Pure string work: which templates and which values fill them is the caller's (auth/forms.py).
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["MAX_COMBINATIONS", "SCHEME_WORDS", "names_in", "render_all", "wire_values"]

# Past this many fillings of one template only the first are kept: a run scrubs every text with
# every value, and a template with many placeholders over many secrets would multiply without end.
MAX_COMBINATIONS = 512

# Scheme words an Authorization value starts with (RFC 9110 section 11.4); a credential of one
# scheme is also scrubbed as the other's (a check may present a key as a bearer to see it refused).
SCHEME_WORDS = ("Bearer", "Basic")

_MIN_LEN = 4  # what scrub.py would scrub at all


def names_in(template: str) -> list[str]:
    """The placeholder names of ``template`` (``str.format`` syntax; ``{{`` is a literal brace)."""
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def render_all(template: str, choices: Mapping[str, Sequence[str]]) -> set[str]:
    """``template`` rendered with each name taking each of its ``choices``; a template naming a
    name without choices renders to nothing (it cannot be sent)."""
    names = list(dict.fromkeys(names_in(template)))
    if any(not choices.get(name) for name in names):
        return set()
    out: set[str] = set()
    for values in itertools.islice(itertools.product(*(choices[n] for n in names)), MAX_COMBINATIONS):
        out.add(template.format_map(dict(zip(names, values, strict=True))))
    return out


def wire_values(rendered: Iterable[str]) -> set[str]:
    """Each rendered credential as it may travel: whole, without its scheme word, and behind
    each scheme word. Values too short to scrub are left out."""
    out: set[str] = set()
    for value in rendered:
        core = value
        word, _, rest = value.partition(" ")
        if rest and word in SCHEME_WORDS:
            core = rest
        if len(core.strip()) < _MIN_LEN:
            continue
        out.update({value, core, *(f"{w} {core}" for w in SCHEME_WORDS)})
    return out
