"""Transport-neutral request and response values.

Simulators, checks, recordings and reports all speak this model, so none of them depends on
how the bytes travelled (MockTransport in process, a socket, a cassette).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, urlencode

from conformance.transport.jsonbody import JsonTooDeep, loads
from conformance.transport.scrub import scrub_json_text, scrub_pairs

__all__ = ["Exchange", "Request", "Response", "JSON_TYPE"]

JSON_TYPE = "application/json"
_SUMMARY_BODY_CHARS = 300
# A body up to this size is scrubbed whole (parsed, member by member) before a summary cuts it;
# past it, its first bytes are scrubbed as text (names and values), as reports scrub the part
# they keep: failures are built per probe, and each walked the whole body (3 s for 1 MB).
_SUMMARY_SCRUB_BYTES = 64 * 1024


def _summary_body(body: bytes) -> str:
    text = scrub_json_text(body[:_SUMMARY_SCRUB_BYTES].decode("utf-8", "replace"), [])
    more = "..." if len(text) > _SUMMARY_BODY_CHARS or len(body) > _SUMMARY_SCRUB_BYTES else ""
    return text[:_SUMMARY_BODY_CHARS] + more


def _lower(headers: dict[str, str] | None) -> dict[str, str]:
    return {k.lower(): v for k, v in (headers or {}).items()}


@dataclass
class Request:
    method: str
    path: str
    query: list[tuple[str, str]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def __post_init__(self) -> None:
        self.method = self.method.upper()
        # Header names are case-insensitive on the wire; keep one spelling so lookups are plain.
        self.headers = _lower(self.headers)

    @classmethod
    def build(
        cls,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | list[tuple[str, str]] | None = None,
        headers: dict[str, str] | None = None,
        json_body: Any = None,
        form: dict[str, str] | None = None,
        content: bytes | None = None,
    ) -> Request:
        hdrs = _lower(headers)
        body = b""
        if json_body is not None:
            body = json.dumps(json_body, separators=(",", ":")).encode()
            hdrs.setdefault("content-type", JSON_TYPE)
        elif form is not None:
            body = urlencode(form).encode()
            hdrs.setdefault("content-type", "application/x-www-form-urlencoded")
        elif content is not None:
            body = content
        if isinstance(params, dict):
            query = [(k, _param_text(v)) for k, v in params.items() if v is not None]
        else:
            query = list(params or [])
        return cls(method, path, query, hdrs, body)

    @property
    def params(self) -> dict[str, str]:
        """First value of each query parameter (repeat handling is up to the caller)."""
        out: dict[str, str] = {}
        for k, v in self.query:
            out.setdefault(k, v)
        return out

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def json(self) -> Any:
        # Nesting bounded like a response's: a served simulator reads hostile clients' bodies here.
        return loads(self.body.decode("utf-8"))

    def form(self) -> dict[str, str]:
        return dict(parse_qsl(self.body.decode("utf-8"), keep_blank_values=True))

    @property
    def target(self) -> str:
        return self.path + (("?" + urlencode(self.query)) if self.query else "")

    def summary(self) -> str:
        """One line for messages: secret-named query values are masked (a key may ride there)."""
        query = urlencode(scrub_pairs(self.query, []))
        # Scrub the body, then cut: a cut JSON body no longer parses, so its secret-named members
        # would escape the name-based scrub.
        return f"{self.method} {self.path}{'?' + query if query else ''} {_summary_body(self.body)}".rstrip()


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass
class Response:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def __post_init__(self) -> None:
        self.headers = _lower(self.headers)

    @classmethod
    def json_response(
        cls, status: int, payload: Any, headers: dict[str, str] | None = None
    ) -> Response:
        hdrs = {"content-type": JSON_TYPE, **_lower(headers)}
        return cls(status, hdrs, json.dumps(payload, separators=(",", ":")).encode())

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def json(self) -> Any:
        """The body as JSON, or None when it is not JSON or nests deeper than
        CONFORMANCE_MAX_JSON_DEPTH (checks report that as a failure; ``json_problem`` says which).

        Parsed once per body: a check reads the same answer several times (validated, then walked
        page by page), and a list page of a few hundred rows took milliseconds a parse, a tenth of
        a replay (issue 31). So every reader gets the same value: readers do not change it (a
        fault or variant that edits an answer parses its own copy and builds a new Response)."""
        memo = self.__dict__.get("_parsed")
        if memo is not None and memo[0] is self.body:  # a body assigned since is parsed afresh
            return memo[1]
        try:
            value = loads(self.body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            value = None
        self.__dict__["_parsed"] = (self.body, value)
        return value

    def json_problem(self) -> str | None:
        """Why the body is not JSON the harness reads (not JSON, not UTF-8, nested too deep), or None."""
        try:
            loads(self.body.decode("utf-8"))
        except UnicodeDecodeError:
            return "not UTF-8"
        except ValueError as exc:
            return str(exc) if isinstance(exc, JsonTooDeep) else f"not JSON ({exc})"
        return None

    @property
    def is_json(self) -> bool:
        ctype = (self.header("content-type") or "").split(";")[0].strip()
        return ctype == JSON_TYPE or ctype.endswith("+json")

    def summary(self) -> str:
        """One line for messages: tokens the target issued (access_token, code ...) are masked."""
        return f"{self.status} {_summary_body(self.body)}".rstrip()


@dataclass
class Exchange:
    """One request with the response it got; what failures carry and reports attach."""

    request: Request
    response: Response
    base_url: str = ""
    # Set when the answer is still a status the document tells clients to retry after the
    # session's bounded retries: the document's words for it ("overloaded; retry").
    transient: str = ""

    def bounded(self, max_body: int, secrets: Iterable[str] = ()) -> Exchange:
        """A copy whose bodies are cut to ``max_body`` bytes: what reports keep, so a run's
        memory does not grow with what a target sends. A cut never ends in the first part of a
        credential (``secrets``): reports scrub whole values, and a cut one would escape them."""
        if len(self.request.body) <= max_body and len(self.response.body) <= max_body:
            return self
        request = replace(self.request, body=_cut(self.request.body, max_body, secrets))
        response = replace(self.response, body=_cut(self.response.body, max_body, secrets))
        return Exchange(request, response, self.base_url)


def _cut(body: bytes, max_body: int, secrets: Iterable[str]) -> bytes:
    if len(body) <= max_body:
        return body
    cut = body[:max_body]
    for secret in secrets:
        raw = secret.encode()
        # The longest start of the secret the cut ends with (a whole one is scrubbed as usual).
        for size in range(min(len(raw) - 1, len(cut)), 0, -1):
            if cut.endswith(raw[:size]):
                cut = cut[:-size]
                break
    return cut
