"""Credentials a target issues (a token endpoint's answer), read as leniently as possible.

A token the target hands out is a secret the run was never configured with: it must be learned
by value at once, so every later copy of it (a header, another member, an echo in an error body,
a report of this very exchange) is scrubbed too, not only the ``access_token`` member the name
net masks. A hostile or sloppy target does not send strict JSON: a byte-order mark, trailing
text, a list around the object, a form instead of JSON, or text nothing parses. Each is read as
far as it goes; when nothing parses, the values of token-named members are found by a pattern.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl

__all__ = ["credential_name", "issued_values", "looks_issued"]

_MAX_TEXT = 1 << 20  # a token answer is small; a huge body is read only this far
_MAX_DEPTH = 64  # nesting followed when looking for members (a hostile body may nest without end)
_MIN_LEN = 4  # what scrub.py would scrub at all

# Normalised (lower case, separators dropped) names that carry a credential in a token answer.
_EXACT = frozenset({"apikey", "password", "jwt", "assertion", "codeverifier", "sessionid"})
_SUFFIXES = ("token", "secret", "password", "apikey", "credential", "credentials")
# Token-named members that describe rather than carry a token (RFC 6749 section 5.1, 7.1).
_DESCRIPTIVE = frozenset({"tokentype", "tokentypehint", "issuedtokentype", "requestedtokentype"})

# A member whose value is a credential, in text no parser reads: "access_token": "v", token=v ...
_NAMED = re.compile(r"[\"']?(?P<name>[A-Za-z][\w.-]{0,63})[\"']?\s*[:=]\s*[\"']?(?P<value>[^\"'&\s,;}\]<>]+)")
_ISSUED_HINT = re.compile(rb"(?:access|refresh|id)_?token", re.IGNORECASE)


def credential_name(name: str) -> bool:
    """Whether a member or header of a token answer named ``name`` carries a credential."""
    norm = re.sub(r"[^a-z0-9]", "", name.lower())
    if norm in _DESCRIPTIVE:
        return False
    return norm in _EXACT or norm.endswith(_SUFFIXES)


def looks_issued(body: bytes) -> bool:
    """Whether a body names a token member (an OAuth 2.0 token answer from any path)."""
    head = body[:_MAX_TEXT]
    # Every match holds "token" in some case (an ASCII pattern; bytes.lower() folds ASCII as
    # IGNORECASE does): the regex alone tried every offset, 16 ms for a 1.5 MB affiliate click
    # list sent on every answer; the substring test first takes 1.5 ms.
    return b"token" in head.lower() and bool(_ISSUED_HINT.search(head))


def _members(node: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, dict):
        for name, value in node.items():
            yield str(name), value
            yield from _members(value, depth + 1)
    elif isinstance(node, list):
        for item in node:
            yield from _members(item, depth + 1)


def _parsed(text: str) -> Any:
    """The first JSON value in ``text`` (after a BOM, junk before it or trailing text), else a
    form's members, else None."""
    text = text.lstrip("\ufeff \t\r\n")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text[:4096]):
        try:
            return decoder.raw_decode(text, match.start())[0]
        except (ValueError, RecursionError):
            continue
    if "=" in text and not any(c in text for c in "{}<>\n"):
        return dict(parse_qsl(text.strip(), keep_blank_values=True))
    return None


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield str(value)


def issued_values(headers: Mapping[str, str], body: bytes) -> list[str]:
    """Every credential value of a token answer: credential-named headers and members at any
    depth of whatever the body parses as, and credential-named members the text shows."""
    found: list[str] = [v for k, v in headers.items() if credential_name(k)]
    text = body[:_MAX_TEXT].decode("utf-8", "replace")
    for name, value in _members(_parsed(text)):
        if credential_name(name):
            found.extend(_texts(value))
    # The pattern runs whatever parsed: a body may hold a second object after the first.
    found.extend(m.group("value") for m in _NAMED.finditer(text) if credential_name(m.group("name")))
    return [v for v in dict.fromkeys(v.strip() for v in found) if len(v) >= _MIN_LEN]
