"""Redacted renderings of an exchange for reports: request, response and a curl line."""

from __future__ import annotations

import shlex
from urllib.parse import urlencode

from conformance.transport.model import Exchange
from conformance.transport.scrub import scrub_headers, scrub_json_text, scrub_pairs

__all__ = ["curl_line", "render_request", "render_response"]

_BODY_CHARS = 4000


def _body(raw: bytes, secrets: list[str]) -> str:
    text = raw.decode("utf-8", "replace")
    if len(text) > _BODY_CHARS:
        return scrub_json_text(text[:_BODY_CHARS], secrets) + f"... ({len(text)} characters in all)"
    return scrub_json_text(text, secrets)


def _target(exchange: Exchange, secrets: list[str], base_url: str | None = None) -> str:
    req = exchange.request
    query = urlencode(scrub_pairs(req.query, secrets))
    return (base_url or exchange.base_url) + req.path + (f"?{query}" if query else "")


def _render(first: str, headers: dict[str, str], body: bytes, secrets: list[str]) -> str:
    lines = [first] + [f"{k}: {v}" for k, v in scrub_headers(headers, secrets).items()]
    if body:
        lines += ["", _body(body, secrets)]
    return "\n".join(lines)


def render_request(exchange: Exchange, secrets: list[str]) -> str:
    req = exchange.request
    return _render(f"{req.method} {_target(exchange, secrets)}", req.headers, req.body, secrets)


def render_response(exchange: Exchange, secrets: list[str]) -> str:
    res = exchange.response
    return _render(f"HTTP {res.status}", res.headers, res.body, secrets)


def curl_line(exchange: Exchange, secrets: list[str], *, base_url: str | None = None, preamble: str = "") -> str:
    """One runnable curl command; ``base_url`` replaces the exchange's (an in-process simulator's
    host cannot be reached: the report says how to serve it), ``preamble`` comes first as comments."""
    req = exchange.request
    parts = ["curl", "-sS", "-X", req.method, shlex.quote(_target(exchange, secrets, base_url))]
    for name, value in scrub_headers(req.headers, secrets).items():
        if name in ("content-length", "host"):
            continue
        parts += ["-H", shlex.quote(f"{name}: {value}")]
    if req.body:
        text = req.body.decode("utf-8", "replace")
        if len(text) > _BODY_CHARS:
            parts += ["--data-binary", "@body.json", f"# body of {len(text)} characters omitted"]
        else:
            parts += ["--data-raw", shlex.quote(scrub_json_text(text, secrets))]
    return preamble + " ".join(parts)
