"""A target hands out one ``Session`` per case, with credentials and a notion of waiting.

* ``sim``: a fresh simulator per case (deterministic ids, no shared state between cases),
  called through ``httpx.MockTransport``: synchronous, no event loop, no socket.
* ``http``: any base URL; waiting is real (divided by the time scale).
* ``replay``: cassettes only; the transport refuses every call, so the network is never used.

Targets know no service package: the sim target is handed its simulator factory, the seeded
credentials and any fault or variant wrapper (``conformance.services.target_for`` does that).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from conformance.auth.forms import CredentialForms
from conformance.contract import Contract
from conformance.errors import CassetteMissing, HarnessError, OverBudget, UsageError
from conformance.interrupts import checkpoint
from conformance.recording.cassettes import cassette_context
from conformance.recording.replay import ReplayTransport
from conformance.settings import RunSettings, env_name
from conformance.simulators import Simulator
from conformance.transport.deadline import bounded_client
from conformance.transport.scrub import REDACTED
from conformance.transport.session import Session, from_httpx_request

__all__ = ["Capabilities", "SimulatorFactory", "Target", "base_urls", "make_target", "SIM_BASE_URL", "REPLAY_BASE_URL"]

# A fresh simulator: (clock, **options) -> Simulator; None means a fresh simulated clock.
SimulatorFactory = Callable[..., Simulator]

SIM_BASE_URL = "http://{service}.sim.invalid"
REPLAY_BASE_URL = "http://{service}.replay.invalid"


@dataclass(frozen=True)
class Capabilities:
    """What a target can do. Checks ask this, never the target's name."""

    # Waiting costs real seconds (divided by CONFORMANCE_TIME_SCALE); elsewhere it is simulated or free.
    waits_real_time: bool = False
    # The simulator object of the current case is reachable (its clock, its state).
    steerable: bool = False
    # Credential values are the real ones (not replay placeholders), so their format can be inspected.
    real_credentials: bool = True
    # Answers come from recordings: nothing sent reaches a server.
    replays: bool = False
    # A server we do not control: spending credits and writing data need an explicit allowance.
    live: bool = False


# Beside each service's cassettes: the names (never values) of the credentials configured when
# they were recorded, so replay knows which optional credentials the recorded rules had.
CONFIGURED_FILE = "configured-credentials.json"


def _mock_transport(sim: Simulator) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        checkpoint("sim-request")  # a test may interrupt the run here, mid-rule (inert otherwise)
        response = sim.handle(from_httpx_request(request))
        return httpx.Response(response.status, headers=response.headers, content=response.body)

    return httpx.MockTransport(handler)


def _no_cassette(path: Path, request: httpx.Request) -> httpx.Response:
    raise CassetteMissing(f"no cassette {path}: record it first with `conformance run --record` "
                          "(against the simulator or a live target)")


def _refuse(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError(f"replay target never uses the network ({request.url})")


class Target:
    """Base: subclasses say how a case gets its client, credentials and clock."""

    name = ""
    capabilities = Capabilities()

    def __init__(self, contract: Contract, settings: RunSettings) -> None:
        self.contract = contract
        self.settings = settings
        self.service = contract.service
        # The simulator of the current case (sim target only): scenario checks may steer it.
        self.simulator: Simulator | None = None
        # Circuit breaker: after limits.breaker_failures consecutive transport failures the
        # target is unavailable and the remaining rules are reported with that one cause.
        self.unavailable: str | None = None
        self._failures: list[str] = []
        self.limiting: str | None = None
        self.spent = 0
        self.rule_spent = 0  # spending requests of the rule now running
        self._limited: list[str] = []
        # The run's start, not this target's: a service started late gets what is left of the run.
        started = settings.run_started
        self._started = time.monotonic() - (max(0.0, time.time() - started) if started is not None else 0.0)
        # The session of the case under way: real waits end with its rule's or the run's budget.
        self._session: Session | None = None
        self._credential_forms: CredentialForms | None = None

    def transport_failed(self, why: str) -> None:
        self._failures.append(why)
        if len(self._failures) >= self.settings.limits.breaker_failures:
            self.unavailable = (f"{len(self._failures)} consecutive transport failures "
                                f"(CONFORMANCE_BREAKER_FAILURES); first: {self._failures[0]}")

    def transport_ok(self) -> None:
        self._failures.clear()

    def rate_limited(self, why: str) -> None:
        """A rule gave up on 429s: after as many in a row as the breaker allows, the target is
        rate-limiting everything and the remaining rules are skipped as rate-limited at once."""
        self._limited.append(why)
        if len(self._limited) >= self.settings.limits.breaker_failures:
            self.limiting = f"{len(self._limited)} rules in a row rate-limited; last: {why}"

    def not_rate_limited(self) -> None:
        self._limited.clear()

    def spend(self, operation: str) -> str | None:
        """Count one request that costs credits; once a budget is used up, which one (else None).
        Each rule may spend ``spend_per_rule``; the run, ``spend_budget`` when one is set."""
        limits = self.settings.limits
        if self.rule_spent >= limits.spend_per_rule:
            return (f"this rule's spend budget of {limits.spend_per_rule} requests is used up "
                    "(CONFORMANCE_SPEND_PER_RULE)")
        if limits.spend_budget is not None and self.spent >= limits.spend_budget:
            return f"the run's spend budget of {limits.spend_budget} requests is used up (CONFORMANCE_SPEND_BUDGET)"
        self.spent += 1
        self.rule_spent += 1
        return None

    def run_seconds_left(self) -> float:
        return self.settings.limits.run_seconds - (time.monotonic() - self._started)

    def run_deadline(self) -> float:
        """When the run's real-time budget ends (``time.monotonic()``): requests in flight then stop."""
        return self._started + self.settings.limits.run_seconds

    def missing_required(self) -> list[str]:
        """Required (non-optional) credentials this target lacks: a run without them checks little."""
        return [c["name"] for c in self.contract.settings.get("credentials", [])
                if not c.get("optional") and not self.credential(c["name"])]

    def credential(self, name: str) -> str | None:
        """The configured value of a credential or setting, or None when it is not configured."""
        return os.environ.get(env_name(self.service, name)) or None

    def configured(self) -> list[str]:
        """Names of the contract's credentials this target really has."""
        return [c["name"] for c in self.contract.settings.get("credentials", []) if self.credential(c["name"])]

    def base_url(self) -> str:
        raise NotImplementedError

    def _client(self) -> httpx.Client:
        raise NotImplementedError

    def _sleep(self) -> Callable[[float], None]:
        return self._real_sleep

    def _real_sleep(self, seconds: float) -> None:
        """Wait for real, never past the rule's or the run's budget: a wait that would end after it
        waits until then and stops the rule (the budgets hold on the wall clock)."""
        wanted = seconds / self.settings.time_scale
        left = self._session.time_left() if self._session is not None else wanted
        if wanted <= left:
            time.sleep(wanted)
            return
        time.sleep(max(0.0, left))
        raise OverBudget(f"a wait of {wanted:g} s would pass the rule's or the run's real-time budget "
                         "(CONFORMANCE_RULE_SECONDS, CONFORMANCE_RUN_SECONDS); stopped when it ran out")

    def _throttle(self) -> Callable[[], None] | None:
        """What keeps the document's client request rates; only a live target that waits real time
        needs it (a simulator in process has no rate to keep, replay sends nothing)."""
        return None

    def _timeout(self) -> httpx.Timeout:
        # httpx's timeouts bound each socket operation; the session's deadline (connect to last
        # byte, transport/deadline.py) cuts every one of them shorter, so this is only its fallback.
        return httpx.Timeout(self.settings.limits.request_seconds)

    @contextmanager
    def session(self, case_id: str) -> Iterator[Session]:
        self.rule_spent = 0  # one session per rule: its spend count starts afresh
        client = self._client()
        session = Session(client, base_url=self.base_url(), sleep=self._sleep(), secrets=self.secrets(),
                          limits=self.settings.limits, throttle=self._throttle(), run_deadline=self.run_deadline(),
                          issuers=self._forms().issuers, joins=self._forms().obtained)
        self._session = session
        try:
            cassette = Path(self.settings.cassette_dir) / self.service / f"{case_id}.yaml"
            if self.capabilities.replays and not cassette.is_file():
                # No recording: a check that skips before sending still gives its own reason;
                # the first request it sends makes the rule cassette-missing.
                session._client = httpx.Client(base_url=self.base_url(), transport=httpx.MockTransport(
                    partial(_no_cassette, cassette)))
                yield session
            elif self.capabilities.replays:
                session._client = httpx.Client(base_url=self.base_url(),
                                               transport=ReplayTransport(
                                                   cassette, session.secrets, contract_digest=self.contract.digest,
                                                   rule_id=case_id, service=self.service))
                yield session
            elif self.settings.record:
                folder = Path(self.settings.cassette_dir) / self.service
                _remember_configured(folder, self.configured(), self.recorded_settings())
                with cassette_context(cassette, secrets=session.secrets, mode=self.settings.record_mode,
                                      contract_digest=self.contract.digest):
                    yield session
            else:
                yield session
        finally:
            self._session = None
            session.close()

    def secrets(self) -> list[str]:
        """Every secret credential value this target knows, and every combined value the auth
        code can send them in (``KEY:SECRET``, ``Bearer PREFIX:ID:SECRET``; auth/forms.py):
        scrubbed from anything written. Settings marked ``secret: false`` (ids, URLs) are not."""
        return self._forms().configured()

    def _forms(self) -> CredentialForms:
        if self._credential_forms is None:
            self._credential_forms = CredentialForms(
                self.contract, lambda name: None if self.credential(name) == REDACTED else self.credential(name))
        return self._credential_forms

    def recorded_settings(self) -> dict[str, str]:
        """Values of the non-secret settings, kept beside cassettes so replay sends the same."""
        out = {}
        secrets = self.secrets()
        for cred in self.contract.settings.get("credentials", []):
            value = self.credential(cred["name"])
            # A setting that holds a secret (a client id that is the API key) stays off disk.
            if not cred.get("secret", True) and value and not any(s in value for s in secrets):
                out[cred["name"]] = value
        return out


class SimTarget(Target):
    name = "sim"
    capabilities = Capabilities(steerable=True)

    def __init__(self, contract: Contract, settings: RunSettings, simulator: SimulatorFactory,
                 credentials: Mapping[str, str], decorate: Callable[[Simulator], Simulator] | None = None) -> None:
        super().__init__(contract, settings)
        self._new_simulator = simulator
        self._credentials = dict(credentials)
        self._decorate = decorate
        self._seeded: dict[str, str] | None = None

    def base_url(self) -> str:
        return SIM_BASE_URL.format(service=self.service)

    def credential(self, name: str) -> str | None:
        # The seeded values of the simulator as decorated: an allowed variant may choose another
        # value for a setting (another name for an unnamed value) by overriding ``credentials``.
        if self._seeded is None:
            seeded = dict(self._credentials)
            if self._decorate is not None:
                seeded.update(getattr(self._decorate(self._new_simulator()), "credentials", {}) or {})
            self._seeded = seeded
        return self._seeded.get(name) or None

    def serve_options(self) -> dict[str, str]:
        """Path settings changed from their default (--option, environment): the simulator serves
        them, as `conformance serve --option` does."""
        return {name: value for name, (value, _d) in self.contract.server_variables().items()
                if os.environ.get(env_name(self.service, name.upper())) is not None}

    def _client(self) -> httpx.Client:
        sim = self._new_simulator(None, **self.serve_options())
        if self._decorate is not None:
            sim = self._decorate(sim)
        self.simulator = sim
        return httpx.Client(base_url=self.base_url(), transport=_mock_transport(sim), timeout=self._timeout())

    def _sleep(self) -> Callable[[float], None]:
        return lambda seconds: self.simulator.clock.advance(seconds) if self.simulator else None


def _rate_scale(service: str) -> float:
    """CONFORMANCE_<ID>_RATE_SCALE: how many times the documented client rate a sandbox allows
    (default 1). Separate from CONFORMANCE_TIME_SCALE, which also divides Retry-After waits."""
    import math

    name = env_name(service, "RATE_SCALE")
    text = os.environ.get(name) or "1"
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"{name} must be a number above 0 (times the documented rate), got {text!r}")
    return value


class HttpTarget(Target):
    name = "http"
    capabilities = Capabilities(waits_real_time=True, live=True)

    def __init__(self, contract: Contract, settings: RunSettings,
                 wait: Callable[[float], None] | None = None) -> None:
        super().__init__(contract, settings)
        # A served simulator whose clock the caller steps (tests): waits advance that clock, so
        # verdicts do not depend on how fast requests travel, and nothing waits real time.
        self._wait = wait
        self._limiter: Any = None
        if wait is not None:
            self.capabilities = Capabilities(waits_real_time=False, live=True)
        self.rate_scale = _rate_scale(contract.service)

    def client_rates(self) -> list[tuple[int, int]]:
        """The client rates the run keeps, as (requests, interval in ms): the document's
        (``x-client-rate-limits``), times CONFORMANCE_<ID>_RATE_SCALE for a sandbox that allows
        more, the interval divided by CONFORMANCE_TIME_SCALE for a simulator served faster."""
        rates = self.contract.openapi.get("x-client-rate-limits") or []
        return sorted(((max(1, int(r["requests"] * self.rate_scale)),
                        max(1, int(r["per_seconds"] * 1000 / self.settings.time_scale))) for r in rates),
                      key=lambda rate: rate[1])

    def _sleep(self) -> Callable[[float], None]:
        return self._wait if self._wait is not None else super()._sleep()

    def _throttle(self) -> Callable[[], None] | None:
        rates = self.client_rates()
        if not rates or not self.capabilities.waits_real_time:
            return None
        if self._limiter is None:
            from pyrate_limiter import InMemoryBucket, Limiter, Rate

            # One limiter per target (all rules share the rate), from the well-kept library.
            self._limiter = Limiter(InMemoryBucket([Rate(requests, interval) for requests, interval in rates]))
        limiter = self._limiter
        return lambda: limiter.try_acquire(self.service) and None

    def base_url(self) -> str:
        url = os.environ.get(env_name(self.service, "BASE_URL"))
        if not url:
            raise UsageError(
                f"target http needs {env_name(self.service, 'BASE_URL')} "
                f"(e.g. http://127.0.0.1:8080 for `conformance serve {self.service} --port 8080`)"
            )
        try:
            parsed = httpx.URL(url)
        except (httpx.InvalidURL, TypeError, ValueError) as exc:
            raise UsageError(f"{env_name(self.service, 'BASE_URL')} is not a URL ({exc}): {url!r}") from None
        if parsed.scheme not in ("http", "https") or not parsed.host:
            raise UsageError(f"{env_name(self.service, 'BASE_URL')} must be an http(s) URL with a host, got {url!r}")
        return url.rstrip("/")

    def _client(self) -> httpx.Client:
        return bounded_client(base_url=self.base_url(), timeout=self._timeout())


class ReplayTarget(Target):
    name = "replay"
    capabilities = Capabilities(real_credentials=False, replays=True)

    def __init__(self, contract: Contract, settings: RunSettings) -> None:
        super().__init__(contract, settings)
        self._configured, self._settings = _read_configured(Path(settings.cassette_dir) / self.service, contract)

    def base_url(self) -> str:
        return REPLAY_BASE_URL.format(service=self.service)

    def credential(self, name: str) -> str | None:
        # Cassettes hold REDACTED in place of every secret; sending the same placeholder keeps
        # query-string matching exact where a key travels in the URL. Only credentials that were
        # configured when the cassettes were recorded count as configured here.
        if name in self._settings:
            return self._settings[name]
        return REDACTED if name in self._configured else None

    def _client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url(), transport=httpx.MockTransport(_refuse))

    def _sleep(self) -> Callable[[float], None]:
        return lambda seconds: None

    def secrets(self) -> list[str]:
        return []


def base_urls(targets: Mapping[str, Target]) -> dict[str, str]:
    """Each service's base URL as the reports show it; a target without a usable URL is left out
    (it already failed its rules)."""
    urls = {}
    for service, target in targets.items():
        try:
            urls[service] = target.base_url()
        except Exception:  # noqa: BLE001 (a target without a usable URL already failed its rules)
            continue
    return urls


def make_target(contract: Contract, settings: RunSettings,
                decorate: Callable[[Simulator], Simulator] | None = None,
                wait: Callable[[float], None] | None = None, *,
                simulator: SimulatorFactory | None = None, credentials: Mapping[str, str] | None = None) -> Target:
    """The target ``settings`` name; ``wait`` replaces real waiting over HTTP (a served simulator
    with a stepped clock). The sim target needs ``simulator`` and its seeded ``credentials``;
    ``decorate`` wraps each simulator (the fault or variant of ``settings.fault``).
    ``conformance.services.target_for`` hands all three from the service package."""
    if settings.target == "sim":
        if simulator is None or credentials is None:
            raise TypeError("the sim target needs simulator= and credentials= (conformance.services.target_for)")
        if decorate is None and settings.fault:
            raise TypeError(f"fault {settings.fault!r} not handed as decorate= (conformance.services.target_for)")
        return SimTarget(contract, settings, simulator, credentials, decorate)
    if settings.target == "http":
        return HttpTarget(contract, settings, wait)
    return ReplayTarget(contract, settings)


def _remember_configured(folder: Path, names: list[str], settings: dict[str, str]) -> None:
    path = folder / CONFIGURED_FILE
    known_names, known_settings = _read_file(path)
    merged = {**known_settings, **settings}
    if path.is_file() and known_names >= set(names) and merged == known_settings:
        return
    data = {"credentials": sorted(known_names | set(names)), "settings": dict(sorted(merged.items()))}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise HarnessError(f"cannot write {path}: {exc.strerror}") from None


def _read_file(path: Path) -> tuple[set[str], dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return set(), {}
    if not isinstance(data, dict):
        return set(), {}
    names = data.get("credentials")
    settings = data.get("settings")
    return ({n for n in names if isinstance(n, str)} if isinstance(names, list) else set(),
            {k: v for k, v in settings.items() if isinstance(v, str)} if isinstance(settings, dict) else {})


def _read_configured(folder: Path, contract: Contract) -> tuple[set[str], dict[str, str]]:
    path = folder / CONFIGURED_FILE
    if path.is_file():
        return _read_file(path)
    # No record of what was configured: the required credentials only (optional ones unknown).
    return {c["name"] for c in contract.settings.get("credentials", []) if not c.get("optional")}, {}
