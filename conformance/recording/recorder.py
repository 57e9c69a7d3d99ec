"""Recording a rule's cassette: vcrpy's cassette, fed by our transport as the session reads.

vcrpy records httpx by patching its transports, and its stub joins the whole raw body before the
client reads a byte; its decode filter then inflates that in one call (one rule's 1 MB gzip bomb
took 6.3 GB, an endless body 2.1 GB in 5 s, issue 34). vcrpy keeps what it does well here: the
cassette (``Cassette.load``: the record modes, what plays back and what is write-protected), the
request and response filters (our scrubbers) and saving through ``CassetteFormat``. Its patchers
are not installed: ``RecordingTransport`` wraps the client's own transport, plays back what the
mode plays back, and hands a live answer up as a stream decoded as it is read
(``transport/decoding.py``, under the session's cap and the request's deadline). When the reader
is done, what it took is recorded: the whole body, or the part read under the cap with the message
of the cut (``cut``; replay ends the rule with the same error), never more. An answer cut by a
deadline or a broken connection is not recorded, as before.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import vcr
from vcr.cassette import Cassette
from vcr.errors import CannotOverwriteExistingCassetteException
from vcr.request import Request as VcrRequest

from conformance.errors import CassetteMismatch, HarnessError, ResponseTooLarge
from conformance.recording.cassettes import (
    MATCH_ON,
    BoundedPersister,
    CassetteFormat,
    request_scrubber,
    response_scrubber,
)
from conformance.recording.examples import ExampleBook
from conformance.recording.replay import response_from_cassette
from conformance.settings import Limits
from conformance.transport.deadline import current
from conformance.transport.decoding import decoded, encodings_of

__all__ = ["CASSETTE_BODY_BYTES", "Recorder", "RecordingTransport", "cassette_context"]

# vcrpy's arguments that are not the cassette's (``CassetteContextDecorator`` sets them apart too).
_NOT_THE_CASSETTES = ("path_transformer", "func_path_generator", "record_on_exception")
# Most body bytes one rule's cassette records. Each body is capped (CONFORMANCE_MAX_RESPONSE_BYTES),
# but not their sum: presentations' burst rule recorded 90 answers of 1 MB and peaked at 368 MB
# (issue 34), its cassette past the 64 MiB replay reads. Saving holds the bodies ~4.5 times over
# (recorded, vcrpy's text copy, the scrubbed copy, the JSON text, its encoding): at 32 MiB a rule
# still peaked at 295 MB after a run's other rules. The largest committed cassette is 1.8 MB; a live
# target whose rule's bodies pass 16 MiB is reported as such, not recorded.
CASSETTE_BODY_BYTES = 16 * 1024 * 1024


def _tick() -> None:
    """Between two decoding steps: the request's deadline (the session's ``within`` block) holds
    here too, so a layer that inflates to nothing for long is cut like a slow read."""
    deadline = current()
    if deadline is not None and deadline.passed():
        raise httpx.ReadTimeout(deadline.reached())


class _Recorded(httpx.SyncByteStream):
    """The decoded body of a live answer, recorded into the cassette once read to its end or to
    the cap."""

    def __init__(self, recorder: Recorder, request: VcrRequest, real: httpx.Response, where: str) -> None:
        self._recorder, self._request, self._real, self._where = recorder, request, real, where

    def __iter__(self) -> Iterator[bytes]:
        limits = self._recorder.limits
        got: list[bytes] = []
        # The transport's raw stream, not ``iter_raw``: an in-process answer was read as it was built.
        raw = self._real.stream
        assert isinstance(raw, httpx.SyncByteStream)  # a sync client's transport
        room = CASSETTE_BODY_BYTES - self._recorder.recorded
        cap = min(limits.max_response_bytes, room)
        chunks = decoded(raw, self._real.headers.get("content-encoding"),
                         cap=cap, max_encodings=limits.max_encodings, tick=_tick)
        try:
            for chunk in chunks:
                got.append(chunk)
                yield chunk
        except ResponseTooLarge as exc:
            body = b"".join(got)
            why = str(exc) if cap == limits.max_response_bytes else (
                f"the rule's cassette reached {CASSETTE_BODY_BYTES} bytes of bodies, the most one cassette records "
                "(each body has its own cap; this bounds their sum, so a larger cap would not help)")
            self._recorder.record(self._request, self._real, body,
                                  f"when recorded, {why}; the cassette holds the {len(body)} bytes read")
            raise ResponseTooLarge(f"{self._where}{why}") from None
        self._recorder.record(self._request, self._real, b"".join(got))

    def close(self) -> None:
        self._real.close()


class RecordingTransport(httpx.BaseTransport):
    """``inner`` with the cassette in front: what the record mode plays back is served from it,
    what it write-protects is refused, and every live answer is recorded as it is read."""

    def __init__(self, inner: httpx.BaseTransport, recorder: Recorder) -> None:
        self._inner, self._recorder = inner, recorder

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        cassette = self._recorder.cassette
        asked = VcrRequest(request.method, str(request.url), request.read(), request.headers)
        if cassette.can_play_response_for(asked):
            return response_from_cassette(cassette.play_response(asked))
        if cassette.write_protected and cassette.filter_request(asked):
            raise CannotOverwriteExistingCassetteException(cassette=cassette, failed_request=asked)
        real = self._inner.handle_request(request)
        cap = self._recorder.limits.max_response_bytes
        declared = real.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            # The session refuses it by its header, before reading: recorded so, with nothing read.
            self._recorder.record(asked, real, b"", f"when recorded, the response declared {declared} bytes, "
                                  f"over the cap of {cap} (CONFORMANCE_MAX_RESPONSE_BYTES); nothing was read")
            return real
        # The reader gets the body decoded: the encoding and the raw length no longer describe it.
        headers = [(name, value) for name, value in real.headers.multi_items()
                   if not encodings_of(real.headers.get("content-encoding"))
                   or name.lower() not in ("content-encoding", "content-length")]
        body = _Recorded(self._recorder, asked, real, f"{request.method} {request.url.path}: ")
        return httpx.Response(real.status_code, headers=headers, stream=body, extensions=real.extensions)

    def close(self) -> None:
        self._inner.close()


class Recorder:
    """One rule's cassette while it is recorded."""

    def __init__(self, cassette: Cassette, limits: Limits) -> None:
        self.cassette = cassette
        self.limits = limits
        self.recorded = 0  # body bytes recorded by this rule (CASSETTE_BODY_BYTES bounds them)

    def wrap(self, client: httpx.Client) -> httpx.Client:
        """``client`` with every transport it sends through (direct and the environment's proxies)
        recording into this cassette. httpx takes transports only when a client is built; these
        clients are built by the targets, so theirs are wrapped in place."""
        client._transport = RecordingTransport(client._transport, self)
        client._mounts = {pattern: None if transport is None else RecordingTransport(transport, self)
                          for pattern, transport in client._mounts.items()}
        return client

    def record(self, request: VcrRequest, real: httpx.Response, body: bytes, cut: str | None = None) -> None:
        """Append one exchange as vcrpy's httpx stub would, with the body as read (decoded: no
        ``Content-Encoding``, its own length) and, when it was cut, why."""
        headers: dict[str, list[str]] = defaultdict(list)
        changed = bool(encodings_of(real.headers.get("content-encoding"))) or cut is not None
        for name, value in real.headers.multi_items():
            if changed and name.lower() in ("content-encoding", "content-length"):
                continue
            headers[name].append(value)
        if changed:
            headers["content-length"] = [str(len(body))]
        response: dict[str, Any] = {"status": {"code": real.status_code, "message": real.reason_phrase},
                                    "headers": dict(headers), "body": {"string": body}}
        if cut is not None:
            response["cut"] = cut
        self.recorded += len(body)
        self.cassette.append(request, response)


@contextmanager
def cassette_context(path: Path, *, secrets: list[str], mode: str = "rewrite", contract_digest: str | None = None,
                     limits: Limits | None = None, book: ExampleBook | None = None) -> Iterator[Recorder]:
    """Record into ``path`` what the clients ``Recorder.wrap`` gives are sent inside the block,
    scrubbed of ``secrets``, with bodies read under ``limits``, and what ``book`` holds once the
    block ends (the examples the rule's property tests drew).

    ``mode``: pytest-recording's vocabulary (settings.RECORD_MODES); "rewrite" replaces the old
    cassette whole, the others are vcrpy's own modes over the existing file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if mode == "rewrite":
            path.unlink(missing_ok=True)
    except OSError as exc:
        raise HarnessError(f"cannot write cassettes into {path.parent}: {exc.strerror}") from None
    config = vcr.VCR(
        record_mode="all" if mode == "rewrite" else mode,
        match_on=MATCH_ON,
        before_record_request=request_scrubber(secrets),
        before_record_response=response_scrubber(secrets),
    )
    config.register_serializer("cassette", CassetteFormat(path, secrets, contract_digest, book))
    config.register_persister(BoundedPersister)
    arguments = config.get_merged_config(path=str(path), serializer="cassette")
    for name in _NOT_THE_CASSETTES:
        arguments.pop(name, None)
    # What ``use_cassette`` does on entering and leaving, without its patchers.
    cassette = Cassette.load(**arguments)
    try:
        yield Recorder(cassette, limits or Limits())
    except CannotOverwriteExistingCassetteException:
        raise CassetteMismatch(
            f"record mode {mode}: {path} exists and does not hold a request this rule now sends; "
            "record it again with --record-mode new_episodes (add) or rewrite (afresh)") from None
    finally:
        cassette._save()
