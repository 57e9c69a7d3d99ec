"""Sends model requests through an httpx client and keeps the exchanges for reports.

This is the only module that touches httpx's request/response types: httpx exceptions are
mapped here to ``TargetUnreachable`` / ``CassetteMismatch`` so nothing above leaks them.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from conformance.errors import CassetteMismatch, HarnessError, TargetUnreachable
from conformance.transport.model import Exchange, Request, Response

__all__ = ["Session", "to_httpx", "from_httpx_request"]

# Enough history for a failure report without holding a whole run in memory.
_KEEP_EXCHANGES = 50


def to_httpx(client: httpx.Client, request: Request) -> httpx.Request:
    return client.build_request(
        request.method,
        request.path,
        params=list(request.query) or None,
        headers=request.headers,
        content=request.body or None,
    )


def from_httpx_request(request: httpx.Request) -> Request:
    return Request(
        method=request.method,
        path=request.url.path,
        query=[(k, v) for k, v in request.url.params.multi_items()],
        headers=dict(request.headers),
        body=request.read(),
    )


class Session:
    """A client bound to one target. ``sleep`` is the target's notion of waiting."""

    def __init__(
        self,
        client: httpx.Client,
        *,
        base_url: str,
        sleep: Callable[[float], None],
        on_exchange: Callable[[Exchange], None] | None = None,
        secrets: list[str] | None = None,
    ) -> None:
        self._client = client
        # Every credential value of this session, including ones obtained during it (tokens):
        # cassettes and reports scrub them. Shared by reference with the cassette scrubber.
        self.secrets: list[str] = secrets if secrets is not None else []
        self.base_url = base_url
        self.sleep = sleep
        self.exchanges: list[Exchange] = []
        self._on_exchange = on_exchange

    def send(self, request: Request) -> Exchange:
        try:
            built = to_httpx(self._client, request)
        except httpx.InvalidURL as exc:
            raise HarnessError(f"cannot build a URL for {request.method} {request.path!r}: {exc}") from None
        try:
            raw = self._client.send(built)
            response = Response(raw.status_code, dict(raw.headers), raw.content)
        except httpx.TransportError as exc:
            raise TargetUnreachable(f"{request.method} {self.base_url}{request.path}: {exc}") from exc
        except Exception as exc:  # vcrpy raises its own type for an unmatched request
            if type(exc).__name__ == "CannotOverwriteExistingCassetteException":
                raise CassetteMismatch(
                    f"replay: no recorded response for {request.method} {request.target}. "
                    "The suite now sends a request the cassette does not hold: re-record with "
                    "`conformance run --record` against a live target."
                ) from None
            raise
        exchange = Exchange(request, response, self.base_url)
        self.exchanges.append(exchange)
        del self.exchanges[:-_KEEP_EXCHANGES]
        if self._on_exchange is not None:
            self._on_exchange(exchange)
        return exchange

    def send_with_backoff(
        self, request: Request, *, attempts: int = 8, first_delay: float = 1.0
    ) -> Exchange:
        """Exponential back-off on 429, as the documents tell clients to do."""
        delay = first_delay
        exchange = self.send(request)
        for _ in range(attempts):
            if exchange.response.status != 429:
                break
            self.sleep(delay)
            delay *= 2
            exchange = self.send(request)
        return exchange

    def close(self) -> None:
        self._client.close()
