"""Replay at dictionary speed: vcrpy's Cassette with recorded requests looked up by key.

vcrpy finds a recorded interaction by running every matcher (its ``body`` matcher parses JSON on
both sides) against every interaction of the cassette, several times per request; measured on
the committed cassettes that was 85% of replay time, and it grows with the square of the
cassette's length. Here the recorded requests are indexed once by (method, path, query, body)
and a request is looked up in a dict. A hit is confirmed with vcrpy's own matchers (so the
semantics stay vcrpy's); a miss falls back to vcrpy's scan, so an unusual body that our key
normalises differently is still found. Loading and playing stay vcrpy's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from vcr.cassette import Cassette
from vcr.matchers import requests_match

__all__ = ["IndexedCassette", "match_key"]

Key = tuple[str, str, tuple[tuple[str, str], ...], bytes]


def _body_key(request: Any) -> bytes:
    body = request.body
    if body is None:
        return b""
    if isinstance(body, str):
        body = body.encode("utf-8")
    if not isinstance(body, bytes):
        return repr(body).encode()
    content_type = str(request.headers.get("Content-Type") or request.headers.get("content-type") or "")
    if "json" in content_type.lower() and body:
        try:
            # Same equality as vcrpy's JSON transformer: member order and spacing do not count.
            return json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
        except (ValueError, UnicodeDecodeError):
            return body
    return body


def match_key(request: Any) -> Key:
    """The key under MATCH_ON = method, path, query, body (host and port left out)."""
    return (request.method.upper(), request.path, tuple(request.query), _body_key(request))


class IndexedCassette(Cassette):
    _index: dict[Key, list[int]]
    _indexed: int = -1

    def _lookup(self) -> dict[Key, list[int]]:
        # Rebuilt when interactions were appended (recording); replay builds it once.
        if self._indexed != len(self.data):
            self._index = {}
            for i, (stored, _response) in enumerate(self.data):
                self._index.setdefault(match_key(stored), []).append(i)
            self._indexed = len(self.data)
        return self._index

    def _responses(self, request: Any) -> Iterator[tuple[int, Any]]:
        request = self._before_record_request(request)
        if not request:
            return
        hits = self._lookup().get(match_key(request))
        candidates = hits if hits is not None else range(len(self.data))
        for i in candidates:
            stored, response = self.data[i]
            if requests_match(request, stored, self._match_on):
                yield i, response
