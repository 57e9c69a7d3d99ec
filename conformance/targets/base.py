"""The target interface: what every target shares, and ``Capabilities``, what checks may ask of one.

A target hands out one ``Session`` per case, with credentials and a notion of waiting. The targets
themselves have a module each (``sim.py``, ``http.py``, ``replay.py``; ``factory.make_target`` picks
one), as httpx keeps ``_transports/base.py`` for the interface only. The budgets a target counts
(``budget.py``), its circuit breakers (``breaker.py``) and the file of credentials configured when
cassettes were recorded (``credentials.py``) are their own modules too.

Targets know no service package: the sim target is handed its simulator factory, the seeded
credentials and any fault or variant wrapper (``conformance.services.target_for`` does that).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import httpx

from conformance.auth.forms import CredentialForms
from conformance.contract import Contract
from conformance.errors import CassetteMissing
from conformance.recording.examples import ExampleBook
from conformance.recording.recorder import cassette_context
from conformance.recording.replay import ReplayTransport
from conformance.settings import RunSettings, env_name
from conformance.simulators import Simulator
from conformance.targets.breaker import Breaker
from conformance.targets.budget import run_clock_start, spend_refusal, wait_within
from conformance.targets.credentials import remember_configured
from conformance.transport.scrub import REDACTED
from conformance.transport.session import Session

__all__ = ["Capabilities", "Target", "base_urls"]


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


def _no_cassette(path: Path, request: httpx.Request) -> httpx.Response:
    raise CassetteMissing(f"no cassette {path}: record it first with `conformance run --record` "
                          "(against the simulator or a live target)")


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
        # Circuit breakers (breaker.py): after limits.breaker_failures consecutive transport failures the
        # target is unavailable and the remaining rules are reported with that one cause.
        self.unavailable: str | None = None
        self._transport_breaker = Breaker()
        self.limiting: str | None = None
        self.spent = 0
        self.rule_spent = 0  # spending requests of the rule now running
        self._rate_breaker = Breaker()
        self._started = run_clock_start(settings.run_started)
        # The session of the case under way: real waits end with its rule's or the run's budget.
        self._session: Session | None = None
        # The examples the current case's property tests drew, as its cassette holds them (replay)
        # or as they are recorded into it; None when the case has no cassette (checks/drawn.py).
        self.examples: ExampleBook | None = None
        self._credential_forms: CredentialForms | None = None

    def transport_failed(self, why: str) -> None:
        failures = self._transport_breaker.failures
        if self._transport_breaker.fail(why, self.settings.limits.breaker_failures):
            self.unavailable = (f"{len(failures)} consecutive transport failures "
                                f"(CONFORMANCE_BREAKER_FAILURES); first: {failures[0]}")

    def transport_ok(self) -> None:
        self._transport_breaker.succeed()

    def rate_limited(self, why: str) -> None:
        """A rule gave up on 429s: after as many in a row as the breaker allows, the target is
        rate-limiting everything and the remaining rules are skipped as rate-limited at once."""
        if self._rate_breaker.fail(why, self.settings.limits.breaker_failures):
            self.limiting = f"{len(self._rate_breaker.failures)} rules in a row rate-limited; last: {why}"

    def not_rate_limited(self) -> None:
        self._rate_breaker.succeed()

    def spend(self, operation: str) -> str | None:
        """Count one request that costs credits; once a budget is used up, which one (else None).
        Each rule may spend ``spend_per_rule``; the run, ``spend_budget`` when one is set."""
        refusal = spend_refusal(self.settings.limits, self.spent, self.rule_spent)
        if refusal is None:
            self.spent += 1
            self.rule_spent += 1
        return refusal

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
        if self._session is None:
            wait_within(wanted, wanted)
        else:
            wait_within(wanted, self._session.time_left(), self._session.ending_budget())

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
        """One rule's session, built with the transport its requests go through."""
        self.rule_spent = 0  # one session per rule: its spend count starts afresh
        # Shared by reference: the session learns obtained tokens into it, the cassette scrubs them.
        secrets = self.secrets()
        self.examples = None
        with ExitStack() as stack:
            session = Session(self._rule_client(case_id, secrets, stack), base_url=self.base_url(),
                              sleep=self._sleep(), secrets=secrets, limits=self.settings.limits,
                              throttle=self._throttle(), run_deadline=self.run_deadline(),
                              issuers=self._forms().issuers, joins=self._forms().obtained,
                              retry_statuses=self.contract.retry_statuses())
            self._session = session
            try:
                yield session
            finally:
                self._session = None
                self.examples = None
                session.close()

    def _rule_client(self, case_id: str, secrets: list[str], stack: ExitStack) -> httpx.Client:
        """The rule's client: the rule's cassette on replay (a check that skips before sending
        still gives its own reason; the first request without a cassette makes the rule
        cassette-missing), else the target's own, wrapped by the recorder when recording."""
        cassette = Path(self.settings.cassette_dir) / self.service / f"{case_id}.yaml"
        if self.capabilities.replays:
            if not cassette.is_file():
                return httpx.Client(base_url=self.base_url(),
                                    transport=httpx.MockTransport(partial(_no_cassette, cassette)))
            book = ExampleBook()
            transport = ReplayTransport(cassette, secrets, contract_digest=self.contract.digest, rule_id=case_id,
                                        service=self.service, book=book)
            self.examples = book
            return httpx.Client(base_url=self.base_url(), transport=transport)
        client = self._client()
        if not self.settings.record:
            return client
        remember_configured(cassette.parent, self.configured(), self.recorded_settings())
        self.examples = ExampleBook()
        recorder = stack.enter_context(cassette_context(cassette, secrets=secrets, mode=self.settings.record_mode,
                                                        contract_digest=self.contract.digest,
                                                        limits=self.settings.limits, book=self.examples))
        return recorder.wrap(client)

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
