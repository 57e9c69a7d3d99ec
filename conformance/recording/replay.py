"""Replay at dictionary speed: a cassette served by an httpx transport, looked up by key.

vcrpy plays a cassette by patching httpx and, for every request, deep-copying and scrubbing it
four times and running each matcher (its ``body`` matcher parses JSON on both sides) against
every recorded interaction: about 7 ms a request, growing with the cassette's length (measured
in benchmarks/bench.py). Replay needs none of that: the recorded requests are indexed once by
the same four things vcrpy matches on here (method, path, query, body; host and port left out)
and each request is a dict lookup. Recording, the file format and the scrubbing stay vcrpy's
and ours (recording/cassettes.py); this module only reads.

No vcrpy ``Request`` is built on either side: the key needs only the method, the URI, the body
and the Content-Type, and building a Request (two case-insensitive header dicts, a URL parse)
cost more than the lookup it serves, for every recorded and every incoming request.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlparse

import httpx

from conformance.errors import CassetteMismatch
from conformance.recording.cassettes import read_cassette, request_scrubber
from conformance.recording.examples import ExampleBook
from conformance.transport.session import CUT_EXTENSION

__all__ = ["ReplayTransport", "match_key", "response_from_cassette"]

Key = tuple[str, str, tuple[tuple[str, str], ...], bytes]


def _body_key(body: Any, content_type: str) -> bytes:
    body = body or b""
    if isinstance(body, str):
        body = body.encode("utf-8")
    if not isinstance(body, bytes):
        return repr(body).encode()
    if body and "json" in content_type.lower():
        try:
            # Member order and spacing do not count (as in vcrpy's JSON body matcher).
            return json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
        except (ValueError, UnicodeDecodeError):
            return body
    return body


def match_key(method: str, uri: str, body: Any, content_type: str) -> Key:
    """Method, path, query (sorted pairs, as vcrpy's ``query`` matcher compares) and body."""
    parts = urlparse(uri)
    return method.upper(), parts.path, tuple(sorted(parse_qsl(parts.query))), _body_key(body, content_type)


def _header(headers: dict[Any, Any], name: str) -> str:
    """A recorded request's header as vcrpy reads it: names compare case-insensitively (the last
    spelling wins) and a list of values stands for its first."""
    found: Any = None
    for key, value in headers.items():
        if str(key).lower() == name:
            found = (value[0] if value else None) if isinstance(value, (list, tuple)) else value
    return str(found or "")


def _recorded_key(request: dict[str, Any]) -> Key:
    return match_key(request["method"], request["uri"], request.get("body"),
                     _header(request.get("headers") or {}, "content-type"))


@dataclass(slots=True)
class _Incoming:
    """What ``request_scrubber`` reads and rewrites of a request. Of the headers only the
    Content-Type is handed over: the scrubber treats each header alone and the key reads no other."""

    uri: str
    headers: dict[str, Any]
    body: Any


def response_from_cassette(response: dict[str, Any]) -> httpx.Response:
    """A recorded response as httpx hands a live one up: status, headers, the body as a stream."""
    headers = [(name, value) for name, values in (response.get("headers") or {}).items()
               for value in (values if isinstance(values, list) else [values])]
    body = response["body"]["string"]
    content = body if isinstance(body, bytes) else str(body).encode("utf-8")
    if not any(name.lower() == "content-length" for name, _ in headers):
        headers.append(("Content-Length", str(len(content))))  # as httpx adds for content=
    message = response["status"].get("message")
    extensions: dict[str, Any] = {"reason_phrase": message.encode("ascii", "replace")} if message else {}
    if response.get("cut"):
        extensions[CUT_EXTENSION] = str(response["cut"])
    # A stream, not content=: httpx decodes content= whole as the response is built (a 3 KB
    # cassette of `gzip, gzip` gave 1 GiB in one call); the session decodes the stream in bounded
    # steps, as it does a live answer.
    return httpx.Response(response["status"]["code"], headers=headers, stream=httpx.ByteStream(content),
                          extensions=extensions or None)


class ReplayTransport(httpx.BaseTransport):
    """Serves each recorded response once, in recorded order per request, and never the network.

    A request the cassette does not hold is a ``CassetteMismatch`` (the suite changed since the
    recording): an error telling to re-record, never a verdict. ``book`` gets the examples the
    rule's property tests drew when it was recorded."""

    def __init__(self, path: Path, secrets: list[str], *, contract_digest: str | None = None, rule_id: str = "",
                 service: str = "", book: ExampleBook | None = None) -> None:
        requests, self._responses = read_cassette(path, contract_digest=contract_digest, rule_id=rule_id,
                                                  service=service, book=book)
        self._scrub = request_scrubber(secrets)
        self._index: dict[Key, deque[int]] = {}
        for i, recorded in enumerate(requests):
            self._index.setdefault(_recorded_key(recorded), deque()).append(i)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        # The request goes through the scrubber it was recorded through, so a secret-named
        # parameter compares as the REDACTED it was stored as.
        content_type = request.headers.get("Content-Type")
        incoming = self._scrub(_Incoming(str(request.url), {} if content_type is None else
                                         {"Content-Type": content_type}, request.read()))
        key = match_key(request.method, incoming.uri, incoming.body,
                        str(incoming.headers.get("Content-Type") or ""))
        queue = self._index.get(key)
        if not queue:
            raise CassetteMismatch(
                f"replay: no recorded response for {request.method} {request.url.raw_path.decode('ascii')}. "
                "The suite now sends a request the cassette does not hold: re-record with "
                "`conformance run --record` against a live target.")
        return response_from_cassette(self._responses[queue.popleft()])
