"""Response bodies decoded as they arrive: layer by layer, a bounded step at a time, never past the cap.

httpx decodes ``Content-Encoding`` in ``iter_bytes`` with one ``decompress`` call per raw chunk and
no bound on what comes out: a 1.8 KB answer with ``gzip, gzip`` gives a 1 MiB chunk after the outer
layer and 1 GiB after the inner one, allocated whole in one call, before any cap counts a byte of
it, with no deadline check and no signal handled inside (issue 34). Here the raw bytes
(``Response.iter_raw``, or a cassette's body as one chunk) go through one ``zlib.decompressobj``
per layer, each asked for at most ``STEP`` bytes at a time (``max_length``, fed again with its
``unconsumed_tail``). The layers are generators chained from the outermost encoding in, so nothing
is decoded before the reader asks for it: what one pull costs is bounded whatever the ratio.

Every layer's output counts against the cap, not only the last: an inner layer that decodes to
nothing (empty stored blocks) would otherwise let the outer one inflate without end. ``tick`` runs
after every step: the session checks the request's deadline there, and as no step lasts long, a
Ctrl-C is handled between two of them. The header's encodings are checked before a byte is read:
more than ``max_encodings``, or one not decoded here, is refused in one line (``ResponseUndecodable``).

httpx's own decoders are not used for the layers: none takes an output bound (``GZipDecoder.decode``
returns all a chunk inflates to). Brotli and zstd are not decoded (neither package is installed
here; the bounded clients advertise only ``ACCEPTED``).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator

from conformance.errors import ResponseTooLarge, ResponseUndecodable

__all__ = ["ACCEPTED", "STEP", "decoded", "encodings_of"]

# Most bytes one decompress call may produce: small enough that a step is quick (a signal is
# handled and the deadline checked between two), large enough that a 16 MiB body is ~256 steps.
STEP = 64 * 1024
# What the bounded clients send as Accept-Encoding: the encodings decoded here.
ACCEPTED = "gzip, deflate"
# zlib's window bits per encoding: gzip with its header (RFC 1952); deflate is the zlib format
# (RFC 1950), though some servers send raw deflate (RFC 1951), told apart by the first two bytes.
_GZIP = zlib.MAX_WBITS | 16
_KNOWN = ("gzip", "x-gzip", "deflate")


def encodings_of(header: str | None) -> list[str]:
    """The encodings a ``Content-Encoding`` value lists, in the order they were applied
    (``identity`` and empty items left out; several header lines arrive joined by commas)."""
    names = [name.strip().lower() for name in (header or "").split(",")]
    return [name for name in names if name and name != "identity"]


def _wbits(encoding: str, head: bytes) -> int:
    if encoding != "deflate":
        return _GZIP
    # A zlib stream: CM 8 in the low nibble, and the two header bytes a multiple of 31.
    zlib_header = len(head) >= 2 and head[0] & 0x0F == 8 and ((head[0] << 8) | head[1]) % 31 == 0
    return zlib.MAX_WBITS if zlib_header else -zlib.MAX_WBITS


class _Counter:
    """Decoded bytes of one layer, against the cap."""

    def __init__(self, cap: int, where: str, layer: str) -> None:
        self.cap, self.where, self.layer, self.size = cap, where, layer, 0

    def add(self, size: int) -> None:
        self.size += size
        if self.size > self.cap:
            layer = f" {self.layer}" if self.layer else ""
            raise ResponseTooLarge(f"{self.where}the response body passed {self.cap} bytes{layer} and was "
                                   "not read further (CONFORMANCE_MAX_RESPONSE_BYTES)")


def _inflate(chunks: Iterable[bytes], encoding: str, counter: _Counter, tick: Callable[[], None]) -> Iterator[bytes]:
    """One layer: what ``chunks`` inflate to. Bytes after the end of the stream are ignored, as
    httpx does."""
    inflater: zlib._Decompress | None = None
    head = b""
    for chunk in chunks:
        if inflater is None:
            head += chunk
            if len(head) < 2:
                continue  # the deflate format is told by its first two bytes
            inflater = zlib.decompressobj(_wbits(encoding, head))
            chunk, head = head, b""
        yield from _drain(inflater, chunk, encoding, counter, tick)
    if inflater is None and head:  # a body of one byte
        yield from _drain(zlib.decompressobj(_wbits(encoding, head)), head, encoding, counter, tick)


def _drain(inflater: zlib._Decompress, data: bytes, encoding: str, counter: _Counter,
           tick: Callable[[], None]) -> Iterator[bytes]:
    """What ``data`` inflates to, at most ``STEP`` bytes per call."""
    while not inflater.eof:
        try:
            out = inflater.decompress(data, STEP)
        except zlib.error as exc:
            raise ResponseUndecodable(f"{counter.where}the {encoding} content encoding does not decode "
                                      f"({exc})") from None
        data = inflater.unconsumed_tail
        if out:
            counter.add(len(out))
            yield out
        tick()
        # Input used up and the call stopped short of STEP: nothing is held back, the next chunk
        # is needed. A call that stopped at STEP may hold more: called again, with no new input.
        if not data and len(out) < STEP:
            return


def _counted(chunks: Iterable[bytes], counter: _Counter, tick: Callable[[], None]) -> Iterator[bytes]:
    for chunk in chunks:
        counter.add(len(chunk))
        yield chunk
        tick()


def decoded(raw: Iterable[bytes], content_encoding: str | None, *, cap: int, max_encodings: int,
            tick: Callable[[], None] = lambda: None, where: str = "") -> Iterator[bytes]:
    """The body ``raw`` carries, decoded per ``content_encoding``, in chunks of at most ``STEP``
    bytes (an unencoded body in the chunks it came in). ``ResponseTooLarge`` as soon as any layer
    passes ``cap`` bytes, before a byte past it is handed out; ``ResponseUndecodable`` for more than
    ``max_encodings`` encodings, one not decoded here, or data that does not decode. ``where``
    prefixes messages (``"GET /path: "``)."""
    encodings = encodings_of(content_encoding)
    if len(encodings) > max_encodings:
        raise ResponseUndecodable(f"{where}the response has {len(encodings)} content encodings "
                                  f"({', '.join(encodings)}), more than the {max_encodings} the harness decodes "
                                  "(CONFORMANCE_MAX_ENCODINGS); not read")
    unknown = [name for name in encodings if name not in _KNOWN]
    if unknown:
        raise ResponseUndecodable(f"{where}the response's content encoding {unknown[0]!r} is not one the harness "
                                  f"decodes ({', '.join(_KNOWN)}); not read")
    if not encodings:
        return _counted(raw, _Counter(cap, where, ""), tick)
    chunks: Iterable[bytes] = raw
    # The last encoding listed was applied last: it is undone first.
    for depth, encoding in enumerate(reversed(encodings)):
        last = depth == len(encodings) - 1
        layer = "decoded" if last else f"after undoing {encoding} alone (an inner encoding still to go)"
        chunks = _inflate(chunks, encoding, _Counter(cap, where, layer), tick)
    return iter(chunks)
