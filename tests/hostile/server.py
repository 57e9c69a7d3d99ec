"""A local HTTP server that answers every request in one bad way (the mode), on raw sockets so it
can do what no well-behaved framework would: hang, trickle, reset, break chunking, never end.

Listens on 127.0.0.1 only; every mode is bounded (an endless body stops when the client leaves).
"""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["MODES", "hostile_server"]

_JSON = b"Content-Type: application/json\r\n"


def _head(status: str, extra: bytes = b"", length: int | None = None) -> bytes:
    size = b"" if length is None else f"Content-Length: {length}\r\n".encode()
    return f"HTTP/1.1 {status}\r\n".encode() + extra + size + b"Connection: close\r\n\r\n"


def _body(status: str, extra: bytes, body: bytes) -> bytes:
    return _head(status, extra, len(body)) + body


class _Handler(socketserver.BaseRequestHandler):
    mode = ""

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.settimeout(5)
        try:
            data = b""
            while b"\r\n\r\n" not in data and len(data) < 1 << 20:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                data += chunk
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


MODES = sorted(name[len("mode_"):].replace("_", "-") for name in vars(_Handler) if name.startswith("mode_"))


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextmanager
def hostile_server(mode: str) -> Iterator[str]:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode}; known: {', '.join(MODES)}")
    handler = type("Handler", (_Handler,), {"mode": mode})
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
