"""One wall-clock deadline per request, whatever the peer does.

httpx bounds each socket operation, not a request: its read timeout starts again on every byte,
so a peer sending its headers a byte a second is never cut off. A request here has one absolute
deadline (``Deadline``): the earliest of its own bound (CONFORMANCE_REQUEST_SECONDS), the rule's
budget (CONFORMANCE_RULE_SECONDS) and the run's (CONFORMANCE_RUN_SECONDS), covering connect,
sending, headers and body alike.

It is kept at the socket: ``DeadlineBackend`` is httpcore's own network backend with every
connect, TLS handshake, read and write given the time left until the deadline instead of
httpx's per-operation timeout; once it is gone the next operation fails at once with httpcore's
timeout, which httpx maps as it maps any timeout. Chosen over a watchdog thread that closes the
connection at the deadline: closing a socket from another thread does not wake a ``recv``
blocked on it (only ``shutdown`` does, and httpcore's streams close), there is no socket to close
while a connect is under way, and a timer racing the request needs locks where this needs none.
The deadline travels in a context variable, so one client serves requests with different
deadlines and a request sent outside a ``within`` block keeps httpx's timeouts.

Name resolution happens inside ``connect`` (``getaddrinfo`` takes no timeout): it is bounded by
the system resolver's own timeouts, not by the deadline. The peer does not control it.
"""

from __future__ import annotations

import functools
import os
import ssl
import time
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import httpcore
import httpx

from conformance.transport.decoding import ACCEPTED

__all__ = ["Deadline", "DeadlineBackend", "bounded_client", "current", "within"]

# What each bound is called where it is set, and how a message says it ran out.
_BOUNDS = {
    "CONFORMANCE_REQUEST_SECONDS": "no complete response within {seconds:g} s",
    "CONFORMANCE_RULE_SECONDS": "the rule's real-time budget of {seconds:g} s ran out",
    "CONFORMANCE_RUN_SECONDS": "run deadline of {seconds:g} s reached",
}
# The stages of a request, in order: TCP and TLS set-up, the request sent, the status line and
# headers awaited, the body read.
STAGES = ("connect", "send", "headers", "body")
# A write is handed to the socket in slices, so the time left is measured again between them.
_WRITE_SLICE = 16 * 1024

_current: ContextVar[Deadline | None] = ContextVar("conformance_request_deadline", default=None)


@dataclass
class Deadline:
    """When a request must be over (``time.monotonic()``), which bound set it, and where it is."""

    at: float
    variable: str
    seconds: float
    stage: str = "connect"

    @classmethod
    def earliest(cls, bounds: dict[str, tuple[float, float]]) -> Deadline:
        """The deadline of the bound that ends first; ``bounds``: variable -> (at, seconds)."""
        variable, (at, seconds) = min(bounds.items(), key=lambda item: item[1][0])
        return cls(at, variable, seconds)

    def left(self) -> float:
        return self.at - time.monotonic()

    def passed(self) -> bool:
        return self.left() <= 0

    def clip(self, timeout: float | None) -> float:
        """The time an operation may take: httpx's own timeout, never past the deadline."""
        left = self.left()
        return left if timeout is None else min(timeout, left)

    def reached(self) -> str:
        """One phrase naming the bound and the stage, e.g. for a message after the request's URL."""
        what = _BOUNDS.get(self.variable, "deadline of {seconds:g} s reached").format(seconds=self.seconds)
        return f"{what} ({self.variable}); cut off at the {self.stage} stage"

    def enter(self, stage: str) -> None:
        # Stages only move forward: a read after the headers (the session says so) is the body.
        if STAGES.index(stage) > STAGES.index(self.stage):
            self.stage = stage


@contextmanager
def within(deadline: Deadline) -> Iterator[Deadline]:
    """Every socket operation of requests sent in this block ends by ``deadline``."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def current() -> Deadline | None:
    """The deadline of the request being sent in this context, or None outside a ``within`` block."""
    return _current.get()


def _clip(timeout: float | None, stage: str, gone: type[Exception]) -> float | None:
    deadline = _current.get()
    if deadline is None:
        return timeout
    deadline.enter(stage)
    left = deadline.clip(timeout)
    if left <= 0:
        raise gone(deadline.reached())
    return left


class _Stream(httpcore.NetworkStream):
    """httpcore's stream with every operation bounded by the current request's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _clip(timeout, "headers", httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        # httpcore loops on send() with the same timeout each time: in slices, the time left is
        # measured again, so a peer reading a byte at a time cannot stretch one write.
        view = memoryview(buffer)
        for start in range(0, len(view), _WRITE_SLICE):
            self._inner.write(bytes(view[start:start + _WRITE_SLICE]), _clip(timeout, "send", httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        # The handshake is part of connecting (CPython bounds a whole handshake by one timeout).
        bounded = _clip(timeout, "connect", httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's synchronous backend, bounded by the current request's deadline."""

    def __init__(self, inner: httpcore.NetworkBackend | None = None) -> None:
        self._inner = inner or httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None) -> httpcore.NetworkStream:
        bounded = _clip(timeout, "connect", httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_tcp(host, port, bounded, local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None
                            ) -> httpcore.NetworkStream:
        bounded = _clip(timeout, "connect", httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _bound(transport: httpx.BaseTransport | None) -> None:
    # httpx gives no way to hand its transport a network backend; its pool (httpcore's
    # ConnectionPool, or the HTTP/SOCKS proxy pools built on it) keeps one in `_network_backend`.
    # httpx is held below 0.29 in pyproject.toml, and the deadline tests fail if this stops working.
    if transport is None:
        return
    pool = getattr(transport, "_pool", None)
    if not isinstance(transport, httpx.HTTPTransport) or pool is None or not hasattr(pool, "_network_backend"):
        raise TypeError(f"cannot bound requests through {type(transport).__name__}: no httpcore pool")
    if not isinstance(pool._network_backend, DeadlineBackend):
        pool._network_backend = DeadlineBackend(pool._network_backend)


@functools.lru_cache(maxsize=4)
def _tls(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    # httpx's own default context (SSL_CERT_FILE, SSL_CERT_DIR, else certifi's bundle), built once:
    # loading the CA bundle cost 15-19 ms of CPU for every rule's client, plain-HTTP targets too.
    return httpx.create_ssl_context()


def bounded_client(*, base_url: str, timeout: httpx.Timeout) -> httpx.Client:
    """An httpx client whose requests keep the deadline of the ``within`` block they are sent in:
    the direct transport and any proxy the environment names alike."""
    # Accept-Encoding names what transport/decoding.py decodes, bounded (httpx would add br and
    # zstd when their packages happen to be installed).
    tls = _tls(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))  # keyed: they pick the bundle
    client = httpx.Client(base_url=base_url, timeout=timeout, headers={"Accept-Encoding": ACCEPTED}, verify=tls)
    _bound(client._transport)
    for transport in client._mounts.values():
        _bound(transport)
    return client
