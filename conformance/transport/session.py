"""Sends model requests through an httpx client and keeps the exchanges for reports.

This is the only module that touches httpx's request/response types: httpx exceptions are
mapped here to ``TargetUnreachable`` / ``CassetteMismatch`` so nothing above leaks them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from email.utils import parsedate_to_datetime
from http.cookiejar import Cookie, CookieJar, DefaultCookiePolicy
from urllib.request import Request as UrllibRequest

import httpx
from tenacity import RetryCallState, Retrying, retry_if_result, stop_after_attempt, wait_exponential
from tenacity.stop import stop_base

from conformance.errors import (
    HarnessError,
    OverBudget,
    ResponseTooLarge,
    RuleSkipped,
    SkipKind,
    TargetUnreachable,
)
from conformance.settings import Limits
from conformance.transport.deadline import Deadline, within
from conformance.transport.decoding import decoded
from conformance.transport.issued import issued_values, looks_issued
from conformance.transport.model import Exchange, Request, Response
from conformance.transport.scrub import REDACTED

__all__ = ["CUT_EXTENSION", "Session", "from_httpx_request", "retry_after", "to_httpx"]

# Enough history for a failure report without holding a whole run in memory.
_KEEP_EXCHANGES = 50
# The response extension a cassette's answer carries when its body passed the cap as it was
# recorded: the message then (recording/recorder.py writes it, recording/replay.py serves it).
CUT_EXTENSION = "conformance_cut"


class _NeverKeep(DefaultCookiePolicy):
    """A cookie policy that stores nothing and sends nothing: the harness sends only the
    credentials the contract names (in each request's own headers). A client that kept what a
    target's Set-Cookie gave sent it on every later request of the rule, a probe "without
    credentials" included, and a Cookie header that grew to 1 MB."""

    def set_ok(self, cookie: Cookie, request: UrllibRequest) -> bool:
        return False

    def return_ok(self, cookie: Cookie, request: UrllibRequest) -> bool:
        return False


def _without_cookies(client: httpx.Client) -> httpx.Client:
    """``client`` with a cookie jar that never keeps one (each rule's client starts empty, too)."""
    client.cookies = CookieJar(policy=_NeverKeep())
    return client


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


def retry_after(response: Response, now: Callable[[], float] = time.time) -> float | None:
    """Seconds a 429's Retry-After asks for (delta-seconds or an HTTP-date, RFC 9110 10.2.3)."""
    value = (response.header("retry-after") or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    base = response.header("date")
    try:
        reference = parsedate_to_datetime(base).timestamp() if base else now()
    except (TypeError, ValueError, IndexError):
        reference = now()
    return max(0.0, when.timestamp() - reference)


class stop_when(stop_base):  # noqa: N801 (named like tenacity's own stop conditions)
    """A tenacity stop condition from a predicate on the retry state."""

    def __init__(self, predicate: Callable[[RetryCallState], bool]) -> None:
        self._predicate = predicate

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self._predicate(retry_state)


# Retries of a status the document tells clients to retry, before the answer counts as transient.
_RETRIES = 3

class Session:
    """A client bound to one target. ``sleep`` is the target's notion of waiting.

    Every request is bounded: the body is read up to ``limits.max_response_bytes``, and the whole
    exchange, connect to last byte, ends by one wall-clock deadline: ``limits.request_seconds``
    from its start, or sooner when the session's budget (``limits.rule_seconds`` from its start)
    or the run's (``run_deadline``, a ``time.monotonic()`` value) ends first. History keeps the last
    exchanges with bodies cut to ``limits.kept_body_bytes``, so a run's memory does not grow with
    what targets send."""

    def __init__(
        self,
        client: httpx.Client,
        *,
        base_url: str,
        sleep: Callable[[float], None],
        on_exchange: Callable[[Exchange], None] | None = None,
        secrets: list[str] | None = None,
        limits: Limits | None = None,
        throttle: Callable[[], None] | None = None,
        run_deadline: float | None = None,
        issuers: frozenset[str] = frozenset(),
        joins: Callable[[str], Iterable[str]] | None = None,
        retry_statuses: Mapping[int, str] | None = None,
    ) -> None:
        # Statuses the document tells clients to retry (status -> its words), retried as it says.
        self._retry_statuses = dict(retry_statuses or {})
        self._client = client  # through the setter below: a client that keeps no cookie
        # Every credential value of this session, including ones obtained during it (tokens):
        # cassettes and reports scrub them. Shared by reference with the cassette scrubber.
        self.secrets: list[str] = secrets if secrets is not None else []
        # Paths whose answers issue credentials (token endpoints): every credential in them is
        # learned by value the moment it arrives (``learn``), whatever shape the body has.
        self._issuers = issuers
        # The combined values an obtained credential travels in (``Bearer <user>.<token>``).
        self._joins = joins
        self.base_url = base_url
        self.sleep = sleep
        self.limits = limits or Limits()
        self.exchanges: list[Exchange] = []
        self._on_exchange = on_exchange
        self._started = time.monotonic()
        self._run_deadline = run_deadline
        # Keeps the request rates the document gives clients (live targets only): blocks until
        # the next request may go.
        self._throttle = throttle

    @property
    def _client(self) -> httpx.Client:
        return self._httpx

    @_client.setter
    def _client(self, client: httpx.Client) -> None:
        # Every client a session sends through keeps no cookie.
        self._httpx = _without_cookies(client)

    def _budgets(self) -> dict[str, tuple[float, float]]:
        """The session's own bounds: variable -> (deadline, seconds)."""
        bounds = {"CONFORMANCE_RULE_SECONDS": (self._started + self.limits.rule_seconds, self.limits.rule_seconds)}
        if self._run_deadline is not None:
            bounds["CONFORMANCE_RUN_SECONDS"] = (self._run_deadline, self.limits.run_seconds)
        return bounds

    def learn(self, value: str) -> str:
        """Register a credential obtained during the session (a token, a code, a verifier) and
        every combined value it travels in: all are scrubbed from whatever is written."""
        if not value or REDACTED in value or value in self.secrets:
            return value
        self.secrets.append(value)
        for joined in self._joins(value) if self._joins is not None else ():
            if joined not in self.secrets:
                self.secrets.append(joined)
        return value

    def _learn_issued(self, request: Request, response: Response) -> None:
        if request.path in self._issuers or looks_issued(response.body):
            for value in issued_values(response.headers, response.body):
                self.learn(value)

    def ending_budget(self) -> str:
        """The variable of the budget that ends first (the rule's or the run's)."""
        return Deadline.earliest(self._budgets()).variable

    def time_left(self) -> float:
        """Real seconds before the rule's or the run's budget ends (waits are held to it too)."""
        return min(at for at, _ in self._budgets().values()) - time.monotonic()

    def _check_budget(self) -> None:
        budget = Deadline.earliest(self._budgets())
        if budget.passed():
            what = ("the rule's real-time budget of {0:g} s ran out" if budget.variable == "CONFORMANCE_RULE_SECONDS"
                    else "run deadline of {0:g} s reached")
            raise OverBudget(f"{what.format(budget.seconds)} ({budget.variable}) before the next request",
                             budget.variable)

    def _cut(self, request: Request, deadline: Deadline, exc: Exception) -> HarnessError:
        """The error for a request that did not finish: the bound that ended it and the stage it was
        at. The request's own bound is the target's doing (it counts towards the circuit breaker);
        the rule's and the run's budgets are the harness's (``OverBudget``)."""
        where = f"{request.method} {self.base_url}{request.path}"
        if not deadline.passed():  # a timeout before the deadline: httpx's own, outside ``within``
            return TargetUnreachable(f"{where}: timed out at the {deadline.stage} stage ({type(exc).__name__})")
        if deadline.variable == "CONFORMANCE_REQUEST_SECONDS":
            return TargetUnreachable(f"{where}: {deadline.reached()}")
        return OverBudget(f"{where}: {deadline.reached()}", deadline.variable)

    def _read(self, raw: httpx.Response, request: Request, deadline: Deadline) -> bytes:
        """The body, decoded as it arrives (``transport/decoding.py``): the cap counts decoded bytes
        and the deadline is checked between steps, so neither a bomb nor an endless body is held
        past them. Live answers and cassettes' alike: replay serves a body as one raw chunk."""
        cap = self.limits.max_response_bytes
        where = f"{request.method} {request.path}: "
        declared = raw.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise ResponseTooLarge(f"{where}the response declares {declared} bytes, "
                                   f"over the cap of {cap} (CONFORMANCE_MAX_RESPONSE_BYTES)")

        def tick() -> None:
            if deadline.passed():
                raise self._cut(request, deadline, TimeoutError())

        if raw.is_stream_consumed:
            # Built whole in this process (a simulator's MockTransport answer): httpx holds it
            # decoded already, so it is only counted.
            chunks, encoding = iter([raw.content]), None
        else:
            chunks, encoding = raw.iter_raw(), raw.headers.get("content-encoding")
        body = b"".join(decoded(chunks, encoding, cap=cap, max_encodings=self.limits.max_encodings, tick=tick,
                                where=where))
        cut = raw.extensions.get(CUT_EXTENSION)
        if cut:
            # Replay of an answer that passed the cap when it was recorded: the cassette holds what
            # was read then, and the rule ends as it did then.
            raise ResponseTooLarge(f"{where}{cut}")
        return body

    def send(self, request: Request) -> Exchange:
        self._check_budget()
        try:
            built = to_httpx(self._client, request)
        except (httpx.InvalidURL, UnicodeEncodeError, ValueError, TypeError) as exc:
            raise HarnessError(f"cannot build {request.method} {request.path!r}: {type(exc).__name__}: {exc}") from None
        if self._throttle is not None:
            self._throttle()
            self._check_budget()
        started = time.monotonic()
        deadline = Deadline.earliest({**self._budgets(), "CONFORMANCE_REQUEST_SECONDS": (
            started + self.limits.request_seconds, self.limits.request_seconds)})
        try:
            # Every socket operation of this request ends by the deadline (transport/deadline.py).
            with within(deadline):
                raw = self._client.send(built, stream=True)
                try:
                    deadline.enter("body")
                    response = Response(raw.status_code, dict(raw.headers), self._read(raw, request, deadline))
                finally:
                    raw.close()
        except httpx.TimeoutException as exc:
            raise self._cut(request, deadline, exc) from None
        except (httpx.TransportError, httpx.StreamError) as exc:
            if deadline.passed():
                raise self._cut(request, deadline, exc) from None
            raise TargetUnreachable(f"{request.method} {self.base_url}{request.path}: "
                                    f"{type(exc).__name__}: {exc}") from None
        self._learn_issued(request, response)
        exchange = Exchange(request, response, self.base_url)
        self.exchanges.append(exchange.bounded(self.limits.kept_body_bytes, self.secrets))
        del self.exchanges[:-_KEEP_EXCHANGES]
        if self._on_exchange is not None:
            self._on_exchange(exchange)
        return exchange

    def send_with_backoff(self, request: Request) -> Exchange:
        """Back off on 429 as the documents tell clients to: Retry-After when the target gives it,
        else exponentially from 1 s; at most 8 retries and ``limits.retry_after_ceiling`` seconds of
        waiting in all, after which the rule is reported rate-limited (not failed). Every attempt
        is settled first (``send_settled``): a status the document says to retry, then a 429, then
        a retry status again is retried each time as its own kind asks."""
        ceiling = self.limits.retry_after_ceiling
        # Nearly every answer is not a 429: send once, and build tenacity's machinery only when one
        # is (it cost ~0.15 ms a request, 2% of a suite, on the in-process simulators). The first
        # attempt is then handed to tenacity as its own, so attempts and waits count as before.
        first = self.send_settled(request, wait=True)
        if first.response.status != 429:
            return first
        pending = [first]

        def attempt(request: Request) -> Exchange:
            return pending.pop() if pending else self.send_settled(request, wait=True)

        def wait(state: RetryCallState) -> float:
            assert state.outcome is not None
            asked = retry_after(state.outcome.result().response)
            return asked if asked is not None else wait_exponential(multiplier=1, max=ceiling)(state)

        def give_up(state: RetryCallState) -> Exchange:
            assert state.outcome is not None
            last: Exchange = state.outcome.result()
            raise RuleSkipped(f"{request.method} {request.path}: still 429 after {state.attempt_number} attempts and "
                              f"{state.idle_for:.0f} s of back-off (ceiling {ceiling:.0f} s, "
                              f"CONFORMANCE_RETRY_AFTER_CEILING): {last.response.summary()}", SkipKind.RATE_LIMITED)

        retrying = Retrying(
            retry=retry_if_result(lambda exchange: exchange.response.status == 429),
            wait=wait,
            stop=stop_after_attempt(9) | stop_when(lambda state: state.idle_for + state.upcoming_sleep > ceiling),
            sleep=self.sleep,
            retry_error_callback=give_up,
            reraise=True,
        )
        result: Exchange = retrying(attempt, request)
        return result

    def send_settled(self, request: Request, *, wait: bool = False) -> Exchange:
        """One request, with a status the document tells clients to retry (social's 202 "accepted
        but no proper answer yet; retry", 503 "overloaded; retry") sent again up to ``_RETRIES``
        times; a 429 comes back as it is. ``wait``: 1, 2 then 4 s apart on the target's clock (the
        session's ``sleep``, never real time on a simulator or a cassette); without it the retries
        go at once, for a check counting requests within a window (``checks/rates.py``), which a
        wait would move: the document says to retry, not when. An answer still of such a status
        comes back marked ``transient``: the check context then reports the rule unchecked."""
        exchange = self.send(request)
        for attempt in range(_RETRIES):
            if exchange.response.status not in self._retry_statuses:
                return exchange
            if wait:
                self.sleep(float(2 ** attempt))
            exchange = self.send(request)
        if exchange.response.status in self._retry_statuses:
            words = self._retry_statuses[exchange.response.status]
            exchange.transient = f"{exchange.response.status} ({words}) after {_RETRIES} retries"
        return exchange

    def close(self) -> None:
        self._client.close()
