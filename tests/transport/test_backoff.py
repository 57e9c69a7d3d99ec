"""Back-off on 429: attempts, waits and the give-up message, with the first answer not a 429 or one."""

from __future__ import annotations

import httpx
import pytest

from conformance.errors import RuleSkipped, SkipKind
from conformance.transport.model import Request
from conformance.transport.session import Session


def _session(statuses: list[int], slept: list[float],
             headers: dict[str, str] | None = None) -> tuple[Session, list[int]]:
    sent: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(1)
        status = statuses[min(len(sent), len(statuses)) - 1]
        return httpx.Response(status, headers=headers if status == 429 else None, json={"n": len(sent)})

    client = httpx.Client(base_url="http://backoff.invalid", transport=httpx.MockTransport(handler))
    return Session(client, base_url="http://backoff.invalid", sleep=slept.append), sent


def test_an_answer_that_is_not_429_is_sent_once() -> None:
    slept: list[float] = []
    session, sent = _session([200], slept)
    assert session.send_with_backoff(Request.build("GET", "/x")).response.status == 200
    assert (len(sent), slept) == (1, [])


def test_retry_after_is_waited_then_the_answer_returned() -> None:
    slept: list[float] = []
    session, sent = _session([429, 429, 200], slept, {"retry-after": "3"})
    exchange = session.send_with_backoff(Request.build("GET", "/x"))
    assert (exchange.response.status, exchange.response.json(), len(sent), slept) == (200, {"n": 3}, 3, [3.0, 3.0])


def test_without_retry_after_the_waits_double_until_the_ceiling() -> None:
    slept: list[float] = []
    session, sent = _session([429], slept)
    with pytest.raises(RuleSkipped) as caught:
        session.send_with_backoff(Request.build("GET", "/x"))
    assert caught.value.kind == SkipKind.RATE_LIMITED
    # 1+2+...+32 = 63 s; the next 64 s would pass the 120 s ceiling.
    assert (slept, len(sent)) == ([1.0, 2.0, 4.0, 8.0, 16.0, 32.0], 7)
    assert str(caught.value).startswith("GET /x: still 429 after 7 attempts and 63 s of back-off (ceiling 120 s")


def test_a_long_retry_after_gives_up_at_the_ceiling() -> None:
    slept: list[float] = []
    session, sent = _session([429], slept, {"retry-after": "50"})
    with pytest.raises(RuleSkipped, match="still 429 after 3 attempts and 100 s of back-off"):
        session.send_with_backoff(Request.build("GET", "/x"))
    assert (slept, len(sent)) == ([50.0, 50.0], 3)
