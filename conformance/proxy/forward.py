"""One request to the upstream, bounded as a run bounds its own (``settings.Limits``), its answer
kept byte for byte: the caller gets what the upstream sent, the checks get it decoded.

- The whole exchange, connect to last byte, ends within ``request_seconds``; the raw body is read up
  to ``max_response_bytes`` (an answer past it cannot be passed on unchanged: the caller gets a 502
  saying so, and the exchange is not checked).
- Decoding for the checks goes through ``transport/decoding.py`` under the same caps (a bomb is
  refused there, the raw bytes still pass through unchanged).
- Redirects are not followed (a 3xx goes back to the caller as it is) and the environment's proxies
  are not used: the caller's credentials go to the upstream's origin and nowhere else.
- Hop-by-hop headers (RFC 9110 section 7.6.1) are not forwarded either way; httpx adds nothing of its
  own to what the caller sent but Host and Content-Length.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx

from conformance.errors import HarnessError
from conformance.settings import Limits
from conformance.transport.decoding import decoded
from conformance.transport.urls import http_url

__all__ = ["HOP_BY_HOP", "Forwarder", "Upstream", "UpstreamFailed"]

HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                        "transfer-encoding", "upgrade", "host", "content-length"})


class UpstreamFailed(Exception):
    """The upstream gave no answer the proxy can pass on (unreachable, too slow, too large)."""


@dataclass
class Upstream:
    status: int
    headers: list[tuple[bytes, bytes]]  # as sent, case and repeats kept, hop-by-hop ones dropped
    raw: bytes  # the body as sent (still encoded)

    def decoded(self, limits: Limits) -> bytes:
        """The body for the checks, content encodings undone under the run's caps; raises
        ``ResponseTooLarge`` / ``ResponseUndecodable`` as a run would."""
        encoding = ", ".join(v.decode("latin-1") for k, v in self.headers if k.lower() == b"content-encoding") or None
        return b"".join(decoded([self.raw], encoding, cap=limits.max_response_bytes,
                                max_encodings=limits.max_encodings))


class Forwarder:
    def __init__(self, upstream: str, limits: Limits, transport: httpx.AsyncBaseTransport | None = None) -> None:
        url = http_url(upstream, "--upstream", HarnessError)
        if url.userinfo or url.query or url.fragment:
            # Credentials go in the caller's requests, not in the URL (it would be printed and written).
            raise HarnessError("--upstream takes scheme://host[:port][/path] only: no user, password, query "
                               "or fragment")
        self.url = url
        self.limits = limits
        self._client = httpx.AsyncClient(transport=transport, follow_redirects=False, trust_env=False,
                                         timeout=limits.request_seconds)

    @property
    def origin(self) -> str:
        """scheme://host[:port], never the URL's user or path: what reports may name."""
        port = f":{self.url.port}" if self.url.port else ""
        return f"{self.url.scheme}://{self.url.host}{port}"

    @property
    def _prefix(self) -> bytes:
        """The upstream URL's own path, before every forwarded path (``http://host/api`` -> ``/api``)."""
        return self.url.raw_path.split(b"?", 1)[0].rstrip(b"/")

    def url_for(self, path: str) -> str:
        """Where a request for ``path`` went (origin and prefix, never the URL's user)."""
        return f"{self.origin}{self._prefix.decode('ascii')}{path}"

    async def send(self, method: str, raw_path: bytes, query: bytes, headers: list[tuple[bytes, bytes]],
                   body: bytes) -> Upstream:
        target = self._prefix + raw_path + (b"?" + query if query else b"")
        request = httpx.Request(method, self.url.copy_with(raw_path=target),
                                headers=[(k, v) for k, v in headers if k.lower().decode("latin-1") not in HOP_BY_HOP],
                                content=body)
        try:
            return await asyncio.wait_for(self._exchange(request), self.limits.request_seconds)
        except asyncio.TimeoutError:
            raise UpstreamFailed(f"no whole answer within {self.limits.request_seconds:g} s "
                                 "(CONFORMANCE_REQUEST_SECONDS)") from None
        except httpx.HTTPError as exc:
            raise UpstreamFailed(f"{type(exc).__name__}: {exc}") from None

    async def _exchange(self, request: httpx.Request) -> Upstream:
        cap = self.limits.max_response_bytes
        response = await self._client.send(request, stream=True)
        try:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                raise UpstreamFailed(f"the answer declares {declared} bytes, over the cap of {cap} "
                                     "(CONFORMANCE_MAX_RESPONSE_BYTES)")
            chunks: list[bytes] = []
            size = 0
            # An answer built whole in this process (a mock transport's) has been read already.
            raw = _whole(response.content) if response.is_stream_consumed else response.aiter_raw()
            async for chunk in raw:
                size += len(chunk)
                if size > cap:
                    raise UpstreamFailed(f"the answer passed the cap of {cap} bytes (CONFORMANCE_MAX_RESPONSE_BYTES)")
                chunks.append(chunk)
        finally:
            await response.aclose()
        headers = [(k, v) for k, v in response.headers.raw if k.lower().decode("latin-1") not in HOP_BY_HOP
                   or k.lower() == b"content-length"]
        return Upstream(response.status_code, headers, b"".join(chunks))

    async def aclose(self) -> None:
        await self._client.aclose()



async def _whole(body: bytes) -> AsyncIterator[bytes]:
    yield body
