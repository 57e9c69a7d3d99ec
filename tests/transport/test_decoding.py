"""Every body the harness reads is decoded a bounded step at a time (issue 34, items 1 and 2).

The decoder alone (layers, formats, the cap on every layer, the encoding limit, ``tick`` between
steps), then one session request against a bomb the three ways a body arrives: live over a socket,
replayed from a cassette (one raw chunk), and recorded (``--record``). Memory is Python's own peak
(tracemalloc sees every buffer zlib hands back), so the in-process tests need no subprocess. The code
before the fix peaked at 2.2 GB for one `gzip, gzip` request (it inflated each raw chunk whole).
"""

from __future__ import annotations

import json
import signal
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from vcr.serializers import yamlserializer

from conformance.errors import ResponseTooLarge, ResponseUndecodable, TargetUnreachable
from conformance.recording.recorder import cassette_context
from conformance.recording.replay import ReplayTransport
from conformance.settings import Limits
from conformance.transport.deadline import bounded_client
from conformance.transport.decoding import STEP, decoded, encodings_of
from conformance.transport.model import Request
from conformance.transport.session import Session
from tests.hostile.server import BOMB_BYTES, gzip_bomb, hostile_server

MiB = 1 << 20
# One request's Python peak: the cap (1 MiB) read, a few steps in flight, the bomb's raw bytes.
PEAK_MB = 16


def _gzip(data: bytes) -> bytes:
    return zlib.compress(data, wbits=zlib.MAX_WBITS | 16)


def _pieces(data: bytes, size: int) -> Iterator[bytes]:
    return (data[i:i + size] for i in range(0, len(data), size))


def _all(raw: bytes, encoding: str | None, *, cap: int = 64 * MiB, size: int = 1 << 16, **kwargs: object) -> bytes:
    return b"".join(decoded(_pieces(raw, size), encoding, cap=cap, max_encodings=2, **kwargs))  # type: ignore[arg-type]


def _peak_mb(action: Callable[[], object]) -> tuple[float, BaseException | None]:
    tracemalloc.start()
    caught: BaseException | None = None
    try:
        action()
    except Exception as exc:  # noqa: BLE001 (handed to the test)
        caught = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1] / MiB
        tracemalloc.stop()
    return peak, caught


TEXT = json.dumps({"data": [{"id": i, "name": f"theme {i}"} for i in range(2000)]}).encode()


@pytest.mark.parametrize("size", [1, 7, 1 << 16])
@pytest.mark.parametrize(("encoding", "encode"), [
    ("gzip", _gzip),
    ("x-gzip", _gzip),
    ("deflate", zlib.compress),  # the zlib format, as RFC 9110 names it
    ("deflate", lambda data: zlib.compress(data, wbits=-zlib.MAX_WBITS)),  # raw deflate, as some servers send
    ("gzip, gzip", lambda data: _gzip(_gzip(data))),
    ("deflate, gzip", lambda data: _gzip(zlib.compress(data))),
    ("identity", lambda data: data),
    ("GZIP , identity", _gzip),
])
def test_each_encoding_decodes_whatever_the_chunks(encoding: str, encode: Callable[[bytes], bytes], size: int) -> None:
    assert _all(encode(TEXT), encoding, size=size) == TEXT


def test_encodings_are_listed_in_the_order_applied() -> None:
    assert encodings_of("gzip, deflate") == ["gzip", "deflate"]
    assert encodings_of(" identity ,, GZip") == ["gzip"]
    assert encodings_of(None) == []


def test_the_cap_counts_decoded_bytes_and_hands_out_none_past_it() -> None:
    raw = _gzip(b" " * (4 * MiB))
    got: list[bytes] = []
    with pytest.raises(ResponseTooLarge, match=r"passed 1048576 bytes decoded .*CONFORMANCE_MAX_RESPONSE_BYTES"):
        for chunk in decoded([raw], "gzip", cap=MiB, max_encodings=2, where="GET /x: "):
            assert len(chunk) <= STEP
            got.append(chunk)
    assert sum(map(len, got)) <= MiB
    assert _all(_gzip(b" " * MiB), "gzip", cap=MiB) == b" " * MiB  # exactly the cap is read
    with pytest.raises(ResponseTooLarge, match=r"^GET /x: the response body passed 10 bytes and was not read"):
        _all(b"x" * 11, None, cap=10, where="GET /x: ")


def test_every_layer_counts_against_the_cap() -> None:
    """An inner stream of empty blocks inflates to nothing: the outer layer, inflating it, is held
    to the cap all the same (or it would run without end on a few KB)."""
    empty_block = b"\x00\x00\x00\xff\xff"  # a stored block of no bytes, not the last
    inner = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + empty_block * 500_000 + b"\x03\x00" + bytes(8)  # 2.5 MB
    with pytest.raises(ResponseTooLarge, match="after undoing gzip alone"):
        _all(_gzip(inner), "gzip, gzip", cap=MiB)
    assert _all(_gzip(inner), "gzip, gzip", cap=4 * MiB) == b""


def test_a_stacked_bomb_is_decoded_a_step_at_a_time() -> None:
    bomb = gzip_bomb(2)
    assert len(bomb) < 2048
    peak, error = _peak_mb(lambda: _all(bomb, "gzip, gzip", cap=MiB))
    assert isinstance(error, ResponseTooLarge)
    assert peak < PEAK_MB, f"{peak:.0f} MB"


def test_tick_runs_between_steps_so_a_deadline_or_a_signal_stops_a_bomb() -> None:
    """With a cap above the bomb, only ``tick`` stops it: what it raises (the session's deadline,
    or a KeyboardInterrupt from the signal handler, which runs between two steps) ends the read."""
    ticks = 0

    def tick() -> None:
        nonlocal ticks
        ticks += 1
        if ticks == 50:
            raise KeyboardInterrupt

    got = 0
    with pytest.raises(KeyboardInterrupt):
        for chunk in decoded([gzip_bomb(2)], "gzip, gzip", cap=4 * BOMB_BYTES, max_encodings=2, tick=tick):
            got += len(chunk)
    assert ticks == 50 and got <= 50 * STEP


@pytest.mark.parametrize("encoding", ["gzip, gzip, gzip", "deflate, gzip, gzip"])
def test_more_encodings_than_the_limit_are_refused_before_reading(encoding: str) -> None:
    def never() -> Iterator[bytes]:
        raise AssertionError("read")
        yield b""

    with pytest.raises(ResponseUndecodable, match=r"3 content encodings .* than the 2 .*CONFORMANCE_MAX_ENCODINGS"):
        decoded(never(), encoding, cap=MiB, max_encodings=2)
    assert b"".join(decoded([_gzip(_gzip(_gzip(TEXT)))], "gzip, gzip, gzip", cap=MiB, max_encodings=3)) == TEXT


@pytest.mark.parametrize(("encoding", "raw", "why"), [
    ("br", b"\x1b\x00", "'br' is not one the harness decodes"),
    ("zstd", b"\x28\xb5", "'zstd' is not one the harness decodes"),
    ("gzip", b"not gzip at all", "gzip content encoding does not decode"),
    ("deflate", b"\x78\x9c\xff\xff\xff", "deflate content encoding does not decode"),
])
def test_what_does_not_decode_is_one_line(encoding: str, raw: bytes, why: str) -> None:
    with pytest.raises(ResponseUndecodable, match=why) as caught:
        _all(raw, encoding, where="GET /x: ")
    assert str(caught.value).startswith("GET /x: ") and "\n" not in str(caught.value)


# -- one request, the three ways a body arrives ------------------------------------------------------

LIMITS = Limits(max_response_bytes=MiB, request_seconds=30.0)


def _send(client: httpx.Client, url: str) -> Callable[[], object]:
    session = Session(client, base_url=url, sleep=time.sleep, limits=LIMITS, run_deadline=time.monotonic() + 60)
    return lambda: session.send(Request.build("GET", "/v1/themes"))


@pytest.mark.parametrize("mode", ["gzip-bomb", "gzip-gzip-bomb"])
def test_a_live_bomb_stops_at_the_cap(mode: str) -> None:
    gzip_bomb(1), gzip_bomb(2)  # built before measuring
    with hostile_server(mode) as url:
        peak, error = _peak_mb(_send(bounded_client(base_url=url, timeout=httpx.Timeout(30)), url))
    assert peak < PEAK_MB, f"{peak:.0f} MB"
    assert isinstance(error, ResponseTooLarge), error
    assert str(error).startswith("GET /v1/themes: the response body passed 1048576 bytes decoded")


ENDLESS = Limits(max_response_bytes=1 << 50, request_seconds=60.0)  # only a deadline or a signal ends it


def test_an_endless_decode_ends_at_the_request_deadline() -> None:
    """`gzip, gzip` whose outer layer inflates without end to empty blocks: nothing is decoded, so
    no cap fires; the deadline, checked between steps, ends the request, and memory stays flat."""
    limits = Limits(max_response_bytes=ENDLESS.max_response_bytes, request_seconds=1.0)
    with hostile_server("gzip-gzip-endless") as url:
        session = Session(bounded_client(base_url=url, timeout=httpx.Timeout(60)), base_url=url, sleep=time.sleep,
                          limits=limits)
        peak, error = _peak_mb(lambda: session.send(Request.build("GET", "/v1/themes")))
    assert isinstance(error, TargetUnreachable), error
    assert "CONFORMANCE_REQUEST_SECONDS" in str(error) and "body stage" in str(error)
    assert peak < PEAK_MB, f"{peak:.0f} MB"


def test_a_signal_stops_an_endless_decode() -> None:
    """Ctrl-C's KeyboardInterrupt is raised between two steps (a timer's signal stands in for it):
    the request ends long before its 60 s bound, with memory flat."""
    interrupted: list[bool] = []

    def send(session: Session) -> None:
        try:
            session.send(Request.build("GET", "/v1/themes"))
        except KeyboardInterrupt:
            interrupted.append(True)

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with hostile_server("gzip-gzip-endless") as url:
            session = Session(bounded_client(base_url=url, timeout=httpx.Timeout(60)), base_url=url,
                              sleep=time.sleep, limits=ENDLESS)
            started = time.monotonic()
            signal.setitimer(signal.ITIMER_REAL, 1.0)
            peak, error = _peak_mb(lambda: send(session))
            seconds = time.monotonic() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert interrupted and error is None, error
    assert seconds < 30, f"{seconds:.0f} s"
    assert peak < PEAK_MB, f"{peak:.0f} MB"


def _bomb_cassette(path: Path, encoding: str, body: bytes) -> Path:
    response = {"status": {"code": 200, "message": "OK"}, "body": {"string": body},
                "headers": {"Content-Type": ["application/json"], "Content-Encoding": [encoding]}}
    request: dict[str, object] = {"method": "GET", "uri": "http://replay.invalid/v1/themes", "body": None,
                                  "headers": {}}
    path.write_text(yamlserializer.serialize({"interactions": [{"request": request, "response": response}]}))
    return path


@pytest.mark.parametrize(("encoding", "layers"), [("gzip", 1), ("gzip, gzip", 2)])
def test_a_bomb_in_a_cassette_stops_at_the_cap(tmp_path: Path, encoding: str, layers: int) -> None:
    """A cassette's body is one chunk: httpx inflated it whole as the response was built."""
    cassette = _bomb_cassette(tmp_path / "bomb.yaml", encoding, gzip_bomb(layers))
    client = httpx.Client(base_url="http://replay.invalid", transport=ReplayTransport(cassette, []))
    peak, error = _peak_mb(_send(client, "http://replay.invalid"))
    assert isinstance(error, ResponseTooLarge), error
    assert peak < PEAK_MB + 2 * len(gzip_bomb(layers)) / MiB, f"{peak:.0f} MB"


@pytest.mark.parametrize("mode", ["gzip-bomb", "endless-body"])
def test_recording_keeps_what_was_read_under_the_cap(tmp_path: Path, mode: str) -> None:
    """--record read the whole raw body before the session's cap, then inflated it whole; it now
    records the part the session read (never past the cap), marked cut, and replay ends the same."""
    gzip_bomb(1)
    path = tmp_path / "rule.yaml"
    with hostile_server(mode) as url, cassette_context(path, secrets=[], limits=LIMITS) as recorder:
        client = recorder.wrap(bounded_client(base_url=url, timeout=httpx.Timeout(30)))
        peak, error = _peak_mb(_send(client, url))
    assert isinstance(error, ResponseTooLarge), error
    assert str(error).startswith("GET /v1/themes: the response body passed 1048576 bytes")
    assert peak < PEAK_MB, f"{peak:.0f} MB"
    (response,) = [item["response"] for item in json.loads(path.read_text())["interactions"]]
    assert len(response["body"]["string"]) <= MiB
    assert "content-encoding" not in {name.lower() for name in response["headers"]}
    assert "CONFORMANCE_MAX_RESPONSE_BYTES" in response["cut"]
    replayed = httpx.Client(base_url="http://replay.invalid", transport=ReplayTransport(path, []))
    _, again = _peak_mb(_send(replayed, "http://replay.invalid"))
    assert isinstance(again, ResponseTooLarge) and "when recorded, the response body passed" in str(again)


def test_recording_an_answer_whole_keeps_it_decoded(tmp_path: Path) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
                              stream=httpx.ByteStream(_gzip(TEXT)))

    path = tmp_path / "rule.yaml"
    with cassette_context(path, secrets=[], limits=LIMITS) as recorder:
        client = recorder.wrap(httpx.Client(base_url="http://h", transport=httpx.MockTransport(answer)))
        exchange = Session(client, base_url="http://h", sleep=time.sleep, limits=LIMITS).send(
            Request.build("GET", "/v1/themes"))
    assert exchange.response.body == TEXT
    (response,) = [item["response"] for item in json.loads(path.read_text())["interactions"]]
    assert json.loads(response["body"]["string"]) == json.loads(TEXT) and "cut" not in response
    assert response["headers"]["content-length"] == [str(len(TEXT))]  # the decoded length, as vcrpy set it
    assert "Content-Encoding" not in response["headers"]
