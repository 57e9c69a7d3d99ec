"""A local HTTP server that answers every request in one bad way (the mode), on raw sockets so it
can do what no well-behaved framework would: hang, trickle, reset, break chunking, never end.

Listens on 127.0.0.1 only; every mode is bounded (an endless body stops when the client leaves, a
stall or a trickle when the client leaves or after ``HOLD_SECONDS``), and leaving the context shuts
every open connection down, so a client still waiting gets its end of file at once.

The stage modes (``slow-connect``, ``stall``, ``trickle-headers``, ``trickle-body``) hold a request
at one stage for longer than any test waits; the JSON modes (``deep-json``, ``wide-json``) send
bodies that parse badly or slowly.
"""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

__all__ = ["BOMB_BYTES", "DEEP_LEVELS", "HOLD_SECONDS", "MODES", "WIDE_BYTES", "gzip_bomb", "hostile_server"]

_JSON = b"Content-Type: application/json\r\n"
# Longest a stall or a trickle holds a connection when the client never leaves.
HOLD_SECONDS = 300.0
# Seconds between two bytes of a trickle: httpx's read timeout restarts on every byte.
_TRICKLE_GAP = 0.25
# Nesting of the deep-json body (issue 22: 100,000 levels gave harness tracebacks).
DEEP_LEVELS = 100_000
# Size of the wide-json flat array: under the 1 MiB cap the hostile runs use.
WIDE_BYTES = 1_000_000
# What the gzip bombs decode to (issue 34: 1,827 bytes of `gzip, gzip` made 1 GiB).
BOMB_BYTES = 1 << 30


def _gzip(data: bytes, *, repeat: int = 1) -> bytes:
    """``data`` * ``repeat`` gzipped, without compressing it ``repeat`` times: each copy is deflated
    after a full flush (the compressor's state is then the same each time), so copies after the
    first deflate to the same bytes, and the trailer's CRC is computed, not inflated."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    first = packer.compress(data) + packer.flush(zlib.Z_FULL_FLUSH)
    rest = packer.compress(data) + packer.flush(zlib.Z_FULL_FLUSH) if repeat > 1 else b""
    crc = 0
    for _ in range(repeat):
        crc = zlib.crc32(data, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = struct.pack("<II", crc, (len(data) * repeat) & 0xFFFFFFFF)
    return header + first + rest * (repeat - 1) + packer.flush() + trailer


@cache
def gzip_bomb(layers: int = 1, size: int = BOMB_BYTES) -> bytes:
    """``size`` bytes of JSON whitespace gzipped ``layers`` times: ~1 MB for one layer, 1.5 KB for
    two (built once per process, in well under a second)."""
    block = b" " * (4 << 20)  # 4 MiB copies: the outer layer then packs them into 1.5 KB
    body = _gzip(block, repeat=max(1, size // len(block)))
    for _ in range(layers - 1):
        body = _gzip(body)
    return body


@cache
def _empty_blocks() -> tuple[bytes, bytes]:
    """An endless `gzip, gzip` body: the inner stream is empty stored blocks without end (it
    inflates to nothing), gzipped; returned as the first piece and the piece repeated after it,
    each carrying 1 MiB of the inner stream in ~1 KB."""
    block = b"\x00\x00\x00\xff\xff" * ((1 << 20) // 5)  # a stored block of no bytes, not the last
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    first = packer.compress(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + block) + packer.flush(zlib.Z_FULL_FLUSH)
    return first, packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _head(status: str, extra: bytes = b"", length: int | None = None) -> bytes:
    size = b"" if length is None else f"Content-Length: {length}\r\n".encode()
    return f"HTTP/1.1 {status}\r\n".encode() + extra + size + b"Connection: close\r\n\r\n"


def _body(status: str, extra: bytes, body: bytes) -> bytes:
    return _head(status, extra, len(body)) + body


def _hold(sock: socket.socket, send: bytes = b"") -> None:
    """Send ``send`` a byte every ``_TRICKLE_GAP`` seconds (or nothing) until the client leaves
    or ``HOLD_SECONDS`` pass."""
    end = time.monotonic() + HOLD_SECONDS
    sock.settimeout(_TRICKLE_GAP)
    i = 0
    while time.monotonic() < end:
        if send:
            sock.sendall(send[i % len(send):i % len(send) + 1])
            i += 1
        try:
            if sock.recv(1024) == b"":
                return  # the client closed its side
        except TimeoutError:
            pass


def _drain(sock: socket.socket, data: bytes) -> None:
    """Read the request body (Content-Length) before answering: closing a socket with unread
    bytes sends a reset, which would hide the answer from the client behind a transport error."""
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = min(int(value.strip()), 64 << 20)
    left = length - len(body)
    while left > 0:
        chunk = sock.recv(min(left, 65536))
        if not chunk:
            return
        left -= len(chunk)


class _Handler(socketserver.BaseRequestHandler):
    mode = ""

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.settimeout(5)
        self.server.opened.append(sock)  # type: ignore[attr-defined]
        try:
            data = b""
            while b"\r\n\r\n" not in data and len(data) < 1 << 20:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                data += chunk
            _drain(sock, data)
            getattr(self, "mode_" + self.mode.replace("-", "_"))(sock)
        except OSError:
            pass  # the client left (cap, deadline): that is the point

    # -- modes ----------------------------------------------------------------------------
    def mode_malformed_json(self, sock: socket.socket) -> None:
        sock.sendall(_body("200 OK", _JSON, b'{"generationId": "x", oops'))

    def mode_html_200(self, sock: socket.socket) -> None:
        sock.sendall(_body("200 OK", b"Content-Type: text/html\r\n", b"<html><body>Welcome!</body></html>"))

    def mode_wrong_content_type(self, sock: socket.socket) -> None:
        sock.sendall(_body("200 OK", b"Content-Type: text/plain\r\n", b'{"data": [], "hasMore": false}'))

    def mode_big_body(self, sock: socket.socket) -> None:
        size = 20 * 1024 * 1024
        sock.sendall(_head("200 OK", _JSON, size))
        block = b" " * 65536
        for _ in range(size // len(block)):
            sock.sendall(block)

    def mode_endless_body(self, sock: socket.socket) -> None:
        sock.sendall(_head("200 OK", _JSON + b"Transfer-Encoding: chunked\r\n"))
        block = b"[" * 65536
        chunk = f"{len(block):x}\r\n".encode() + block + b"\r\n"
        while True:
            sock.sendall(chunk)

    # Bombs (issue 34): a small answer that inflates to 1 GiB, in one layer or two.
    def mode_gzip_bomb(self, sock: socket.socket) -> None:
        sock.sendall(_body("200 OK", _JSON + b"Content-Encoding: gzip\r\n", gzip_bomb(1)))

    def mode_gzip_gzip_bomb(self, sock: socket.socket) -> None:
        sock.sendall(_body("200 OK", _JSON + b"Content-Encoding: gzip, gzip\r\n", gzip_bomb(2)))

    def mode_gzip_gzip_endless(self, sock: socket.socket) -> None:
        # Inflates without end to a stream that inflates to nothing: only a deadline or a signal ends it.
        first, again = _empty_blocks()
        sock.sendall(_head("200 OK", _JSON + b"Content-Encoding: gzip, gzip\r\nTransfer-Encoding: chunked\r\n"))
        sock.sendall(_chunk(first))
        piece = _chunk(again * 64)
        while True:
            sock.sendall(piece)

    def mode_hang(self, sock: socket.socket) -> None:
        time.sleep(30)

    def mode_trickle(self, sock: socket.socket) -> None:
        sock.sendall(_head("200 OK", _JSON, 64))
        for _ in range(64):
            sock.sendall(b" ")
            time.sleep(0.5)

    def mode_reset(self, sock: socket.socket) -> None:
        # SO_LINGER 0: close with RST, mid-conversation.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()

    def mode_broken_chunking(self, sock: socket.socket) -> None:
        sock.sendall(_head("200 OK", _JSON + b"Transfer-Encoding: chunked\r\n") + b"zz\r\n{}\r\n0\r\n\r\n")

    def mode_500_storm(self, sock: socket.socket) -> None:
        sock.sendall(_body("500 Internal Server Error", _JSON, b'{"message": "boom"}'))

    def mode_503_storm(self, sock: socket.socket) -> None:
        sock.sendall(_body("503 Service Unavailable", b"Retry-After: 1\r\n" + _JSON, b'{"message": "later"}'))

    def mode_429_retry_after(self, sock: socket.socket) -> None:
        sock.sendall(_body("429 Too Many Requests", b"Retry-After: 1\r\n" + _JSON, b'{"message": "slow down"}'))

    def mode_redirect_loop(self, sock: socket.socket) -> None:
        sock.sendall(_body("302 Found", b"Location: /v1.0/themes\r\n", b""))

    def mode_non_utf8(self, sock: socket.socket) -> None:
        sock.sendall(_body("200 OK", _JSON, b'{"generationId": "\xff\xfe\xfd", "data": ["\xc3\x28"]}'))

    # Stage modes: each holds the request at one stage until the client gives up.
    def mode_stall(self, sock: socket.socket) -> None:
        _hold(sock)  # request read, no status line ever: the headers stage

    def mode_trickle_headers(self, sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\n")
        _hold(sock, b"X-Trickle: " + b"a" * 64)  # a header line that never ends, a byte at a time

    def mode_trickle_body(self, sock: socket.socket) -> None:
        sock.sendall(_head("200 OK", _JSON, 1_000_000))
        _hold(sock, b" ")  # headers at once, then a body a byte at a time

    # JSON modes: bodies a careless parser or validator breaks on.
    def mode_deep_json(self, sock: socket.socket) -> None:
        sock.sendall(_body("200 OK", _JSON, b"[" * DEEP_LEVELS + b"]" * DEEP_LEVELS))

    def mode_wide_json(self, sock: socket.socket) -> None:
        sock.sendall(_body("200 OK", _JSON, b"[" + b"0," * (WIDE_BYTES // 2 - 1) + b"0]"))


# slow-connect is no handler: its listener never accepts (see _slow_connect).
MODES = sorted([name[len("mode_"):].replace("_", "-") for name in vars(_Handler) if name.startswith("mode_")]
               + ["slow-connect"])


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.opened: list[socket.socket] = []


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes a handler blocked on it; the client reads end of file
    except OSError:
        pass


@contextmanager
def _slow_connect() -> Iterator[str]:
    """A listener whose accept queue is full: backlog 0 holds one connection (ours, never accepted),
    and Linux drops the SYN of every further one, so a client's connect waits until it gives up."""
    listener = socket.socket()
    filler = socket.socket()
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        filler.connect(listener.getsockname())
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        filler.close()
        listener.close()


@contextmanager
def hostile_server(mode: str) -> Iterator[str]:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode}; known: {', '.join(MODES)}")
    if mode == "slow-connect":
        with _slow_connect() as url:
            yield url
        return
    handler = type("Handler", (_Handler,), {"mode": mode})
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        for sock in server.opened:
            _shut(sock)
        server.server_close()
