"""Redacted renderings of an exchange for reports: request, response and a curl line.

Each is made visible (``text.visible``) last: a body or header value the target sent, or a path
built from one, reaches Allure as text, never as control characters a terminal or viewer acts on."""

from __future__ import annotations

import re
import shlex
from urllib.parse import urlencode

from conformance.reporting.text import visible
from conformance.transport.model import Exchange
from conformance.transport.scrub import scrub_headers, scrub_json_text, scrub_pairs

__all__ = ["curl_line", "render_request", "render_response"]

_BODY_CHARS = 4000
# A body is scrubbed whole and then cut (issue 34): cut first, a JSON body no longer parses, so its
# secret-named members and the values JSON escaped inside it escaped the scrub, and a credential
# straddling the cut left its first half. Up to what reports keep of a body (kept_body_bytes).
_SCRUB_CHARS = 64 * 1024


def _body(raw: bytes, secrets: list[str]) -> str:
    text = raw.decode("utf-8", "replace")
    scrubbed = scrub_json_text(text[:_SCRUB_CHARS], secrets)
    if len(scrubbed) > _BODY_CHARS or len(text) > _SCRUB_CHARS:
        return scrubbed[:_BODY_CHARS] + f"... ({len(text)} characters in all)"
    return scrubbed


def _target(exchange: Exchange, secrets: list[str], base_url: str | None = None) -> str:
    req = exchange.request
    query = urlencode(scrub_pairs(req.query, secrets))
    return (base_url or exchange.base_url) + req.path + (f"?{query}" if query else "")


def _render(first: str, headers: dict[str, str], body: bytes, secrets: list[str]) -> str:
    lines = [first] + [f"{k}: {v}" for k, v in scrub_headers(headers, secrets).items()]
    if body:
        lines += ["", _body(body, secrets)]
    return visible("\n".join(lines))


def render_request(exchange: Exchange, secrets: list[str]) -> str:
    req = exchange.request
    return _render(f"{req.method} {_target(exchange, secrets)}", req.headers, req.body, secrets)


def render_response(exchange: Exchange, secrets: list[str]) -> str:
    res = exchange.response
    return _render(f"HTTP {res.status}", res.headers, res.body, secrets)


# A credential the line takes from the environment is held by a placeholder (letters and digits
# only, so URL encoding leaves it alone) until the shell word is built around it.
_HOLE = "ZZCONFORMANCEENV{}ZZ"
_HOLES = re.compile(r"ZZCONFORMANCEENV(\d+)ZZ")
# What a credential header may hold besides the credentials themselves: a scheme and separators.
# Anything else (a token the run obtained, Basic's base64) stays REDACTED.
_ONLY_SCHEME = re.compile(r"^(?:[A-Za-z]+ )?[\s:,]*$")
_DOUBLE_QUOTE_SAFE = re.compile(r'^[^"\\$`!]*$')


def _holes(text: str, env: dict[str, str], names: list[str]) -> str:
    """``text`` with each credential value of ``env`` (value -> variable) replaced by a hole."""
    for value in sorted(env, key=len, reverse=True):
        if value in text:
            if env[value] not in names:
                names.append(env[value])
            text = text.replace(value, _HOLE.format(names.index(env[value])))
    return text


def _word(text: str, names: list[str]) -> str:
    """One shell word: holes become ``$VARIABLE`` (double-quoted, so the shell expands them)."""
    if not _HOLES.search(text):
        return shlex.quote(text)
    literal = _HOLES.split(text)[::2]
    if all(_DOUBLE_QUOTE_SAFE.match(part) for part in literal):
        return '"' + _HOLES.sub(lambda m: "${" + names[int(m.group(1))] + "}", text) + '"'
    pieces = _HOLES.split(text)
    return "".join(shlex.quote(p) if i % 2 == 0 else f'"${{{names[int(p)]}}}"' for i, p in enumerate(pieces) if p)


def curl_line(exchange: Exchange, secrets: list[str], *, base_url: str | None = None, preamble: str = "",
              env: dict[str, str] | None = None) -> str:
    """One runnable curl command; ``base_url`` replaces the exchange's (an in-process simulator's
    host cannot be reached: the report says how to serve it), ``preamble`` comes first as comments.

    ``env`` (credential value -> the variable that holds it, e.g. CONFORMANCE_PRESENTATIONS_API_KEY):
    a header or query parameter carrying such a credential reads it from that variable
    (``-H "X-API-KEY: ${CONFORMANCE_PRESENTATIONS_API_KEY}"``), so the line runs as printed where
    the variable is set, and the value never reaches the report. Any other secret stays REDACTED."""
    req = exchange.request
    env = {v: n for v, n in (env or {}).items() if v}
    names: list[str] = []
    pairs = []
    for key, value in req.query:
        held = _holes(value, env, names) if value in env else None
        pairs.append((key, held) if held is not None else scrub_pairs([(key, value)], secrets)[0])
    query = urlencode(pairs)
    url = (base_url or exchange.base_url) + req.path + (f"?{query}" if query else "")
    parts = ["curl", "-sS", "-X", req.method, _word(url, names)]
    scrubbed = scrub_headers(req.headers, secrets)
    for name, value in req.headers.items():
        if name in ("content-length", "host"):
            continue
        held = _holes(value, env, names)
        if held == value or not _ONLY_SCHEME.match(_HOLES.sub("", held)):
            parts += ["-H", shlex.quote(f"{name}: {scrubbed[name]}")]
        else:
            parts += ["-H", _word(f"{name}: {held}", names)]
    if req.body:
        text = req.body.decode("utf-8", "replace")
        if len(text) > _BODY_CHARS:
            parts += ["--data-binary", "@body.json", f"# body of {len(text)} characters omitted"]
        else:
            parts += ["--data-raw", shlex.quote(scrub_json_text(text, secrets))]
    # A control character in a word stays escaped, not sent: the line is for reading first.
    return visible(preamble + " ".join(parts))
