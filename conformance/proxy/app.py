"""The proxy as an ASGI app (served by uvicorn as ``conformance serve`` serves a simulator).

Each request is forwarded first and its answer sent back to the caller as it came; only then is the
exchange checked and recorded, in a worker thread (one check at a time), so the caller waits for the
upstream and the forwarding alone and other callers are forwarded meanwhile. A check that raises is
the harness's bug: counted (the session then exits 2), never the caller's problem.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from conformance.contract.model import Contract
from conformance.errors import HarnessError
from conformance.proxy.accepted import accepted_findings
from conformance.proxy.caller import EncodedBody, JsonTooDeep, caller_findings, credential_values
from conformance.proxy.findings import RuleIndex
from conformance.proxy.forward import Forwarder, Upstream, UpstreamFailed
from conformance.proxy.operations import OperationIndex
from conformance.proxy.record import ExchangeRecorder
from conformance.proxy.tally import Tally
from conformance.proxy.vendor import vendor_findings
from conformance.settings import Limits
from conformance.simulators.asgi import lifespan
from conformance.transport.model import Request, Response

__all__ = ["ProxyApp", "ProxySession"]


@dataclass
class ProxySession:
    contract: Contract
    forwarder: Forwarder
    limits: Limits
    record_to: Path | None = None
    tally: Tally = field(default_factory=Tally)
    # Every credential a caller sent: scrubbed from every file the session writes.
    secrets: list[str] = field(default_factory=list)
    harness_errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self.rules = RuleIndex(self.contract)
        self.operations = OperationIndex(self.contract)
        self.recorder = (None if self.record_to is None else
                         ExchangeRecorder(self.record_to, self.contract.digest, self.limits, self.secrets))

    def learn(self, request: Request) -> None:
        for value in credential_values(self.contract, request):
            if value not in self.secrets:
                self.secrets.append(value)

    def check_safely(self, request: Request, upstream: Upstream) -> None:
        """``check`` one exchange at a time (checks run in worker threads); a check that raises is
        the harness's bug: counted (exit 2), never the caller's problem."""
        with self._lock:
            try:
                self.check(request, upstream)
            except Exception as exc:  # noqa: BLE001 (a check's bug must not end the proxy)
                self.harness_errors.append(f"{request.method} {request.path}: {type(exc).__name__}: {exc}")

    def check(self, request: Request, upstream: Upstream) -> None:
        """Hold one exchange to the contract, both sides, and record it when asked."""
        number, label = self.tally.next_label(request.method, request.path)
        try:
            body = upstream.decoded(self.limits)
        except HarnessError as exc:  # a bomb, too many encodings: passed on unchanged, not checked
            self.tally.note_unchecked(f"{request.method} {request.path}: {exc}")
            return
        headers: dict[str, str] = {}
        for name, value in upstream.headers:
            headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
        response = Response(upstream.status, headers, body)
        matched = self.operations.match(request.method, request.path)
        if matched is None:
            self.tally.note_unknown(request.method, request.path)
        else:
            vendor = vendor_findings(self.contract, self.rules, matched.operation, response)
            try:
                caller = caller_findings(self.contract, self.rules, matched.operation, request, matched.path_values)
            except (JsonTooDeep, EncodedBody) as exc:
                self.tally.note_unchecked(f"{request.method} {request.path}: the caller's body: {exc}")
                caller = []
            accepted = accepted_findings(self.rules, request, caller, upstream.status)
            self.tally.add(f"{label} ({matched.operation})", vendor.touched, [*caller, *vendor.findings, *accepted],
                           upstream.status)
        if self.recorder is not None:
            query = f"?{urlencode(request.query)}" if request.query else ""
            url = f"{self.forwarder.url_for(request.path)}{query}"
            self.recorder.record(number, request.method, url, dict(request.headers), request.body, upstream, body)


class ProxyApp:
    def __init__(self, session: ProxySession) -> None:
        self.session = session

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send, self.session.forwarder.aclose)
            return
        if scope["type"] != "http":
            return
        limits = self.session.limits
        try:
            # A caller that sends its body slowly (or never finishes it) is bounded like an upstream.
            async with asyncio.timeout(limits.request_seconds):
                body, too_big = await _body(receive, limits.max_response_bytes)
        except TimeoutError:
            self.session.tally.note_unchecked("a request body not sent whole within CONFORMANCE_REQUEST_SECONDS")
            await _answer(send, 408, f"conformance proxy: the request body did not arrive within "
                                     f"{limits.request_seconds:g} s; not forwarded")
            return
        if body is None:  # the caller went away
            return
        cap = limits.max_response_bytes
        if too_big:
            self.session.tally.note_unchecked("a request body over the cap (CONFORMANCE_MAX_RESPONSE_BYTES)")
            await _answer(send, 413, f"conformance proxy: request body over {cap} bytes; not forwarded")
            return
        raw_headers: list[tuple[bytes, bytes]] = list(scope["headers"])
        query = scope.get("query_string", b"")
        request = Request(method=scope["method"], path=scope["path"],
                          query=parse_qsl(query.decode("latin-1"), keep_blank_values=True),
                          headers={k.decode("latin-1"): v.decode("latin-1") for k, v in raw_headers},
                          body=bytes(body))
        self.session.learn(request)
        raw_path = scope.get("raw_path") or scope["path"].encode("utf-8")
        try:
            upstream = await self.session.forwarder.send(scope["method"], raw_path, query, raw_headers, bytes(body))
        except UpstreamFailed as exc:
            self.session.tally.note_unchecked(f"the upstream gave no answer to pass on: {exc}")
            await _answer(send, 502, f"conformance proxy: the upstream gave no answer to pass on: {exc}")
            return
        await send({"type": "http.response.start", "status": upstream.status, "headers": upstream.headers})
        await send({"type": "http.response.body", "body": upstream.raw})
        # Off the event loop: other callers' requests are forwarded while this one is checked.
        await asyncio.to_thread(self.session.check_safely, request, upstream)


async def _body(receive: Any, cap: int) -> tuple[bytearray | None, bool]:
    """The request body (None when the caller disconnected) and whether it passed ``cap``: past it
    nothing more is kept, but the rest is drained so the caller is answered, not cut off."""
    body, too_big = bytearray(), False
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None, too_big
        if not too_big:
            body += message.get("body", b"")
            too_big = len(body) > cap
        if not message.get("more_body"):
            return body, too_big


async def _answer(send: Any, status: int, text: str) -> None:
    """The proxy's own answer (never the upstream's): plain text, marked as the proxy's."""
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"x-conformance-proxy", b"1")]})
    await send({"type": "http.response.body", "body": (text + "\n").encode("utf-8")})
