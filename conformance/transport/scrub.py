"""Redaction of credentials, shared by cassettes, reports, logs and the one-line summaries of
requests and responses (``transport/model.py``).

Two nets, because either alone leaks: names (headers, query parameters, form fields and JSON
members that carry secrets by convention) and values (every credential the target was given,
wherever it shows up: a URL, a redirect, an echoed body).
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode

from conformance.transport.jsonbody import loads

__all__ = ["REDACTED", "SECRET_NAMES", "forms_of", "scrub_headers", "scrub_json_text", "scrub_named_values",
           "scrub_pairs", "scrub_text", "scrub_url_params"]

REDACTED = "REDACTED"

# Lower-case names. Headers, query parameters, form fields and JSON keys alike.
SECRET_NAMES = frozenset({
    "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key",
    "apikey", "api_key", "key", "token", "access_token", "refresh_token", "id_token",
    "client_secret", "code", "code_verifier", "password", "secret", "shared_secret",
    "x-auth-token",
    # camelCase spellings of the same members (compared lower-case)
    "accesstoken", "refreshtoken", "idtoken", "clientsecret", "codeverifier", "sharedsecret",
})

_MIN_SECRET_LEN = 4  # shorter "secrets" would redact ordinary words

# A secret-named parameter inside a URL that is itself a value: an OAuth redirect's Location
# (?code=...), a fragment (#access_token=...), a link in a JSON body. Values the target issued
# (codes, tokens) are in no list of known secrets, so only their names can catch them.
_URL_PARAM = re.compile(
    r"(?<=[?&#;])(" + "|".join(re.escape(n) for n in sorted(SECRET_NAMES, key=len, reverse=True))
    + r")=([^&#\s\"']*)", re.IGNORECASE)


# A secret-named member in text that is not valid JSON or a form (trailing bytes, a BOM, an HTML
# page echoing a token response): "access_token": "v", accessToken=v, 'code': v ...
_NAMED_VALUE = re.compile(
    r"(?P<q1>[\"']?)(?P<name>" + "|".join(re.escape(n) for n in sorted(SECRET_NAMES, key=len, reverse=True))
    + r")(?P=q1)(?P<sep>\s*[:=]\s*)(?P<q2>[\"']?)(?P<value>[^\"'&\s,;}<>]+)", re.IGNORECASE)


def forms_of(secret: str) -> set[str]:
    """The ways a value shows up in text: raw, URL-encoded (%20 and + styles, ``/`` kept or
    not), JSON-escaped, base64 (standard and URL-safe, with and without padding). Joined
    credentials (``KEY:SECRET``) are values of their own (joins.py), so they get every form too."""
    raw = secret.encode("utf-8", "surrogateescape")
    b64 = base64.b64encode(raw).decode()
    b64url = base64.urlsafe_b64encode(raw).decode()
    return {secret, quote(secret, safe=""), quote(secret), quote_plus(secret), json.dumps(secret)[1:-1],
            json.dumps(secret, ensure_ascii=False)[1:-1], b64, b64.rstrip("="), b64url, b64url.rstrip("=")}


@functools.lru_cache(maxsize=64)
def _replaced(secrets: tuple[str, ...]) -> tuple[str, ...]:
    """Every form of ``secrets``, longest first (a joined value before its parts). Cached: a case
    scrubs many texts with one list, and joined credentials make that list long."""
    values = {f for s in secrets if s and len(s) >= _MIN_SECRET_LEN for f in forms_of(s)}
    return tuple(sorted((v for v in values if len(v) >= _MIN_SECRET_LEN), key=lambda v: (-len(v), v)))


# JSON's short escapes (RFC 8259 section 7): the one-letter forms an encoder may write instead of \uXXXX.
_SHORT_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}
_UNSHORT = {letter: char for char, letter in _SHORT_ESCAPES.items()}
_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))')


def _hex4(code: int) -> str:
    r"""``\uXXXX`` for ``code`` as a pattern: either case of each hex digit, and any number of
    backslashes (JSON text inside a JSON string escapes its escapes)."""
    return r"\\+u" + "".join(f"[{d.lower()}{d.upper()}]" if d.isalpha() else d for d in f"{code:04x}")


def _char_forms(char: str) -> str:
    r"""A pattern for ``char`` as JSON text may hold it: itself, ``\uXXXX`` (a surrogate pair past
    U+FFFF) or its short escape."""
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        escaped = _hex4(0xD800 + (code >> 10)) + _hex4(0xDC00 + (code & 0x3FF))
    else:
        escaped = _hex4(code)
    forms = [re.escape(char), escaped] + ([r"\\+" + re.escape(_SHORT_ESCAPES[char])] if char in _SHORT_ESCAPES
                                          else [])
    return "(?:" + "|".join(forms) + ")"


@functools.lru_cache(maxsize=64)
def _json_escaped(secrets: tuple[str, ...]) -> re.Pattern[str]:
    """``secrets`` in every JSON spelling, any character escaped or not, longest first."""
    values = sorted(set(secrets), key=lambda v: (-len(v), v))
    return re.compile("|".join("".join(_char_forms(c) for c in v) for v in values))


def _unescaped(text: str) -> str:
    """``text`` with every JSON escape decoded (surrogate pairs joined): a view to search, never shown."""
    decoded = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else _UNSHORT[m.group(2)], text)
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _scrub_escaped(text: str, secrets: tuple[str, ...]) -> str:
    r"""Secrets spelled with JSON escapes anywhere in ``text``: encoders differ (.NET writes ``+``
    as ``\u002B``, others escape ``/`` or every non-ASCII character), and a body that is not JSON
    as a whole (cut, wrapped in text, JSON inside a JSON string) is not parsed back to its values.
    Found in a decoded view first (one pass; up to three levels of escaping), so the pattern of
    every spelling runs only for the secrets that are there."""
    view = text
    for _ in range(3):
        if "\\" not in view:
            break
        view = _unescaped(view)
        present = tuple(s for s in secrets if len(s) >= _MIN_SECRET_LEN and s in view)
        if present:
            text = _json_escaped(present).sub(REDACTED, text)
    return text


def scrub_text(text: str, secrets: Iterable[str]) -> str:
    secrets = tuple(secrets)
    for value in _replaced(secrets):
        if value in text:
            text = text.replace(value, REDACTED)
    if "\\" in text:  # an escape: a secret may be spelled with some of its characters escaped
        text = _scrub_escaped(text, secrets)
    return text


def scrub_named_values(text: str) -> str:
    """Mask the values of secret-named members in free text (see ``_NAMED_VALUE``)."""
    return _NAMED_VALUE.sub(lambda m: f"{m.group('q1')}{m.group('name')}{m.group('q1')}{m.group('sep')}"
                                      f"{m.group('q2')}{REDACTED}", text)


def scrub_url_params(text: str) -> str:
    return _URL_PARAM.sub(lambda m: f"{m.group(1)}={REDACTED}", text) if "=" in text else text


# An authorization scheme (RFC 9110 section 11.4: a token, then the credentials) is no secret and
# a reader needs it to reproduce a request: "Bearer REDACTED", not "REDACTED".
_AUTH_HEADERS = frozenset({"authorization", "proxy-authorization"})
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) +\S")


def _redacted_header(name: str, value: Any) -> str:
    if name.lower() in _AUTH_HEADERS:
        scheme = _SCHEME.match(str(value))
        if scheme:
            return f"{scheme.group(1)} {REDACTED}"
    return REDACTED


def scrub_headers(headers: dict[str, Any], secrets: Iterable[str]) -> dict[str, Any]:
    secrets = list(secrets)
    out: dict[str, Any] = {}
    for name, value in headers.items():
        if name.lower() in SECRET_NAMES:
            out[name] = ([_redacted_header(name, v) for v in value] if isinstance(value, list)
                         else _redacted_header(name, value))
        elif isinstance(value, list):
            out[name] = [scrub_url_params(scrub_text(str(v), secrets)) for v in value]
        else:
            out[name] = scrub_url_params(scrub_text(str(value), secrets))
    return out


def scrub_pairs(pairs: Iterable[tuple[str, str]], secrets: Iterable[str]) -> list[tuple[str, str]]:
    secrets = list(secrets)
    return [
        (k, REDACTED if k.lower() in SECRET_NAMES else scrub_text(v, secrets)) for k, v in pairs
    ]


def _scrub_obj(node: Any, secrets: list[str]) -> Any:
    if isinstance(node, dict):
        return {
            k: (REDACTED if k.lower() in SECRET_NAMES and isinstance(v, (str, int)) else _scrub_obj(v, secrets))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_scrub_obj(v, secrets) for v in node]
    if isinstance(node, str):
        return scrub_url_params(scrub_text(node, secrets))
    return node


def scrub_json_text(text: str, secrets: Iterable[str]) -> str:
    """Scrub a body that may be JSON, a urlencoded form, or anything else."""
    secrets = list(secrets)
    try:
        parsed = loads(text)  # nesting bounded: scrubbing walks the value recursively
    except ValueError:
        parsed = None
    if isinstance(parsed, (dict, list)):
        return json.dumps(_scrub_obj(parsed, secrets), separators=(",", ":"))
    if re.fullmatch(r"[\w.\-~%+]+=[^&]*(&[\w.\-~%+]+=[^&]*)*", text):
        return urlencode(scrub_pairs(parse_qsl(text, keep_blank_values=True), secrets))
    return scrub_named_values(scrub_url_params(scrub_text(text, secrets)))
