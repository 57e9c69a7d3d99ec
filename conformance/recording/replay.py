"""Replay at dictionary speed: a cassette served by an httpx transport, looked up by key.

vcrpy plays a cassette by patching httpx and, for every request, deep-copying and scrubbing it
four times and running each matcher (its ``body`` matcher parses JSON on both sides) against
every recorded interaction: about 7 ms a request, growing with the cassette's length (measured
in benchmarks/bench.py). Replay needs none of that: the recorded requests are indexed once by
the same four things vcrpy matches on here (method, path, query, body; host and port left out)
and each request is a dict lookup. Recording, the file format and the scrubbing stay vcrpy's
and ours (recording/cassettes.py); this module only reads.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import httpx
from vcr.request import Request as VcrRequest

from conformance.errors import CassetteMismatch
from conformance.recording.cassettes import read_cassette, request_scrubber

__all__ = ["ReplayTransport", "match_key"]

Key = tuple[str, str, tuple[tuple[str, str], ...], bytes]


def _body_key(request: VcrRequest) -> bytes:
    body = request.body or b""
    if isinstance(body, str):
        body = body.encode("utf-8")
    if not isinstance(body, bytes):
        return repr(body).encode()
    content_type = str(request.headers.get("Content-Type") or "")
    if body and "json" in content_type.lower():
        try:
            # Member order and spacing do not count (as in vcrpy's JSON body matcher).
            return json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
        except (ValueError, UnicodeDecodeError):
            return body
    return body


def match_key(request: VcrRequest) -> Key:
    """Method, path, query (sorted pairs, as vcrpy's ``query`` matcher compares) and body."""
    return (request.method.upper(), request.path, tuple(request.query), _body_key(request))


def _to_httpx(response: dict[str, Any]) -> httpx.Response:
    headers = [(name, value) for name, values in (response.get("headers") or {}).items()
               for value in (values if isinstance(values, list) else [values])]
    body = response["body"]["string"]
    message = response["status"].get("message")
    return httpx.Response(response["status"]["code"], headers=headers,
                          content=body if isinstance(body, bytes) else str(body).encode("utf-8"),
                          extensions={"reason_phrase": message.encode("ascii", "replace")} if message else None)


class ReplayTransport(httpx.BaseTransport):
    """Serves each recorded response once, in recorded order per request, and never the network.

    A request the cassette does not hold is a ``CassetteMismatch`` (the suite changed since the
    recording): an error telling to re-record, never a verdict."""

    def __init__(self, path: Path, secrets: list[str]) -> None:
        requests, self._responses = read_cassette(path)
        self._scrub = request_scrubber(secrets)
        self._index: dict[Key, deque[int]] = {}
        for i, recorded in enumerate(requests):
            self._index.setdefault(match_key(recorded), deque()).append(i)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        # The request goes through the scrubber it was recorded through, so a secret-named
        # parameter compares as the REDACTED it was stored as.
        incoming = self._scrub(VcrRequest(request.method, str(request.url), request.read(), dict(request.headers)))
        queue = self._index.get(match_key(incoming))
        if not queue:
            raise CassetteMismatch(
                f"replay: no recorded response for {request.method} {request.url.raw_path.decode('ascii')}. "
                "The suite now sends a request the cassette does not hold: re-record with "
                "`conformance run --record` against a live target.")
        return _to_httpx(self._responses[queue.popleft()])
