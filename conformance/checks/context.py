"""What a check gets: the rule, the contract, a session on the target, and helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NoReturn

from hypothesis import seed

from conformance.auth.variants import DEFAULT, NONE, AuthAs, apply_auth, render
from conformance.checks.drawn import PLAIN, Codec, Strategy, hypothesis_settings, run_drawn, seed_for
from conformance.contract import Contract, Rule
from conformance.errors import ContractFileError, RuleSkipped, SkipKind
from conformance.settings import env_name
from conformance.targets.base import Capabilities, Target
from conformance.transport.model import Exchange, Request
from conformance.transport.session import Session

__all__ = ["CheckContext", "TokenSource", "hypothesis_settings"]

# (ctx, obtained name, configured source credential) -> the obtained value (e.g. an access token).
TokenSource = Callable[["CheckContext", str, str], str]


def _freeze_local_constants() -> None:
    """Make generation independent of which local modules happen to be imported.

    Hypothesis mixes string and number literals found in "local" (non site-packages) modules
    into generated data. That pool depends on import order and on our own source, so the same
    derandomized gate generated different bodies in two processes, and cassettes recorded in one
    did not replay in the other. An empty pool makes generation a function of the seed alone.
    """
    from hypothesis.internal.conjecture import providers

    if hasattr(providers, "_get_local_constants") and hasattr(providers, "Constants"):
        providers._get_local_constants = providers.Constants


_freeze_local_constants()


@dataclass
class CheckContext:
    contract: Contract
    rule: Rule
    target: Target
    session: Session
    profile: str = "gate"
    # Which alternative of a documented conflict the target showed (conflict id -> value).
    observations: dict[str, str] = field(default_factory=dict)
    # Target settings the check took a default for (name -> value): a rule the target's data did
    # not exercise names them first, since an unset setting is the likeliest reason off the simulator.
    defaulted: dict[str, str] = field(default_factory=dict)
    # Credentials obtained during the case (x-tokens), by (name, source credential).
    tokens: dict[tuple[str, str], str] = field(default_factory=dict)
    # What obtains them: the service package's token_source, handed in by the runner.
    token_source: TokenSource | None = None
    # Depth of ``judging_refusal`` blocks: inside one, a transient answer is handed to the check.
    _judging_refusal: int = field(default=0, repr=False)

    # -- generation ----------------------------------------------------------------------
    def property_test(self, *parts: str, scale: float = 1.0) -> Callable[[Callable[..., None]], Callable[..., None]]:
        """Settings (and, in the gate, a seed) for a Hypothesis test inside this check
        (``checks/drawn.py``: the seed comes from the rule id and ``parts``, e.g. the operation)."""
        configured = hypothesis_settings(self.profile, scale=scale)
        run_seed = seed_for(self.rule.id, parts, self.profile, self.target.settings.seed)

        def decorate(test: Callable[..., None]) -> Callable[..., None]:
            test = configured(test)
            return test if run_seed is None else seed(run_seed)(test)

        return decorate

    def given(self, *parts: str, strategy: Strategy, scale: float = 1.0, drawn_from: str | None = None,
              codec: Codec = PLAIN) -> Callable[[Callable[..., None]], Callable[[], None]]:
        """A property test of this check over what ``strategy`` draws, with ``property_test``'s
        settings and seed; calling what it returns runs it. On replay, the examples the cassette
        recorded stand in for drawing when they were drawn as today's would be (``checks/drawn.py``).
        ``drawn_from``: a text for the strategy where its repr says little or the strategy is
        given by what builds it; ``codec``: for arguments that are not plain values."""
        configured = hypothesis_settings(self.profile, scale=scale)
        run_seed = seed_for(self.rule.id, parts, self.profile, self.target.settings.seed)
        # Targets made by hand (the checks' own tests) keep no cassettes, so no examples either.
        book = getattr(self.target, "examples", None)
        if book is not None and self.target.settings.draw_on_replay:
            book = None

        def decorate(test: Callable[..., None]) -> Callable[[], None]:
            return lambda: run_drawn(test, strategy, parts=parts, book=book, replays=self.can.replays,
                                     configured=configured, run_seed=run_seed, drawn_from=drawn_from, codec=codec)

        return decorate

    # -- target facts --------------------------------------------------------------------
    @property
    def can(self) -> Capabilities:
        return self.target.capabilities

    def credential(self, name: str) -> str:
        """A configured credential or setting; the rule is skipped when the target lacks it."""
        value = self.target.credential(name)
        if not value:
            raise RuleSkipped(f"needs {env_name(self.contract.service, name)} on target '{self.target.name}'",
                              SkipKind.CREDENTIAL_MISSING)
        return value

    def optional(self, name: str) -> str | None:
        """An optional credential or setting: its value, or None when the target lacks it."""
        return self.target.credential(name)

    def require(self, capable: bool, what: str) -> None:
        """Skip (not checkable on this target) unless the target can do ``what``."""
        if not capable:
            raise RuleSkipped(f"target '{self.target.name}' cannot {what}", SkipKind.NOT_ON_TARGET)

    def sleep(self, seconds: float) -> None:
        self.session.sleep(seconds)

    def skip(self, reason: str, kind: SkipKind = SkipKind.NOT_EXERCISED) -> NoReturn:
        raise RuleSkipped(reason, kind)

    def observe(self, conflict_id: str, *shown: int | str) -> None:
        """Which alternative(s) of a documented conflict the target showed: by index into the
        conflict's alternatives, or by their text; anything else is reported as neither. For a
        gap id: what the target shows there, as text."""
        if any(g.id == conflict_id for g in self.contract.gaps):
            # A gap: what the target shows where the document is silent (reported, never judged).
            self.observations[conflict_id] = " and ".join(str(item) for item in shown)
            return
        conflict = next((c for c in self.contract.conflicts if c.id == conflict_id), None)
        if conflict is None:
            raise ContractFileError(f"{self.rule.id}: observes '{conflict_id}', not a conflict or gap of the "
                                    "contract")
        texts = []
        for item in shown:
            if isinstance(item, int):
                texts.append(conflict.alternatives[item])
            else:
                texts.append(item if item in conflict.alternatives else f"neither alternative: {item}")
        self.observations[conflict_id] = " and ".join(texts)

    def observed(self, *shown: int | str) -> None:
        """``observe`` for the gap or conflict the rule declares in ``params.observes``."""
        declared = self.rule.params.get("observes")
        if not declared:
            raise ContractFileError(f"{self.rule.id}: its check reports a gap or conflict; name it in the "
                                    "rule's params.observes")
        self.observe(str(declared), *shown)

    def secret(self, value: str) -> str:
        """Register a value the case obtained (token, code, verifier) for scrubbing everywhere,
        with every combined value it travels in (the session's ``learn``)."""
        return self.session.learn(value)

    def token(self, name: str, source: str) -> str:
        """The obtained credential ``name`` (e.g. ACCESS_TOKEN) from configured ``source``;
        the service's token source does the exchange, once per case."""
        key = (name, source)
        if key not in self.tokens:
            obtain = self.token_source
            if obtain is None:
                raise ContractFileError(f"{self.contract.service}: x-tokens names {name}, but the service "
                                        "package has no token_source")
            self.tokens[key] = self.secret(obtain(self, name, source))
        return self.tokens[key]

    # -- building requests ---------------------------------------------------------------
    def settings_in(self, templates: dict[str, Any] | None) -> dict[str, str]:
        """Values that may name target settings (``{shop_id: "{SHOP_ID}"}``), rendered; the rule
        is skipped when a named setting is not configured."""
        return {k: render(str(v), self.credential) for k, v in (templates or {}).items()}

    def query_in(self, templates: dict[str, Any] | None) -> dict[str, Any]:
        """Query values of a rule (``base_query``) with target settings rendered in the strings
        (``{q: "{SAMPLE_QUERY}"}``); numbers and booleans pass as they are."""
        return {k: render(v, self.credential) if isinstance(v, str) else v for k, v in (templates or {}).items()}


    def path(self, template: str, operation: str | None = None, **values: str) -> str:
        path = template
        for name, value in values.items():
            path = path.replace("{" + name + "}", value)
        return self.contract.prefix_for(operation or f"GET {template}") + path

    def guard(self, operation: str | None) -> None:
        """On a live target, an operation that spends credits or writes vendor data is sent only
        when the run allows it (``--allow spend``/``--allow write``) and within the spend budget."""
        if operation:
            self.guard_effects(operation, self.contract.effects(operation))

    def guard_effects(self, label: str, effects: list[str]) -> None:
        """The live-target guard for a request whose effects are known otherwise (an operation
        whose path only a target setting gives)."""
        if not effects or not self.can.live:
            return
        missing = [e for e in effects if e not in self.target.settings.allow]
        if missing:
            raise RuleSkipped(f"{label} would {' and '.join(missing)} on a live target; run with "
                              + " ".join(f"--allow {m}" for m in missing), SkipKind.NEEDS_ALLOWANCE)
        if "spend" in effects:
            spent = self.target.spend(label)
            if spent:
                raise RuleSkipped(f"{label}: {spent}", SkipKind.NEEDS_ALLOWANCE)

    def auth(self, request: Request, operation: str | None = None, how: AuthAs = DEFAULT) -> Request:
        """Credentials as ``how`` says, where the operation's security schemes put them (after
        the live-target guard: every request a check sends passes here)."""
        self.guard(operation or self.rule.operation)
        return apply_auth(self.contract, operation or self.rule.operation, request, how,
                          self.credential, self.token)

    def send(self, request: Request, *, backoff: bool = True) -> Exchange:
        """Send ``request``: 429s backed off unless ``backoff`` is False (then nothing waits), and a
        status the document tells clients to retry retried either way (``Session.send_settled``).
        An answer still of such a status shows nothing about any rule that wanted an answer: the
        rule is unchecked (``target-transient``), never failed, unless a refusal is being judged
        (``judging_refusal``), where a control request already showed the target up."""
        exchange = self.session.send_with_backoff(request) if backoff else self.session.send_settled(request)
        if exchange.transient and not self._judging_refusal:
            self.skip(f"{request.method} {request.path} kept answering {exchange.transient}, which the document "
                      "tells clients to retry: nothing was shown about the rule", SkipKind.TARGET_TRANSIENT)
        return exchange

    @contextmanager
    def judging_refusal(self) -> Iterator[None]:
        """Within it, an answer still transient after the retries comes back to be judged: a refusal
        check whose control request was accepted knows the target is up, so a 5xx (or a 202) that
        stays the answer to the request under test is that request's answer (a 5xx is never a
        refusal), not a storm."""
        self._judging_refusal += 1
        try:
            yield
        finally:
            self._judging_refusal -= 1

    def call(self, operation: str, *, auth: AuthAs | bool = DEFAULT, path_values: dict[str, str] | None = None,
             backoff: bool = True, **kwargs: Any) -> Exchange:
        """Send one request for ``operation`` ('METHOD /path'); 429s are backed off by default."""
        method, template = operation.split(" ", 1)
        path = self.path(template, operation=operation, **(path_values or {}))
        if "json_body" in kwargs:
            body = kwargs.pop("json_body")
            request = self.contract.body_request(operation, method, path, body, **kwargs)
        else:
            request = Request.build(method, path, **kwargs)
        how = DEFAULT if auth is True else NONE if auth is False else auth
        return self.send(self.auth(request, operation, how), backoff=backoff)
