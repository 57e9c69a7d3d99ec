"""Cases and outcomes: one case per rule, run against a target without pytest.

The pytest plugin turns cases into test items; ``selftest`` runs them directly for speed. Both
go through ``collect_cases`` (where rules are bound to their checks and their params validated)
and ``run_case`` so a rule means the same thing everywhere.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from enum import StrEnum

from conformance.checks.context import CheckContext
from conformance.checks.registry import CheckSpec, check_params, spec_for
from conformance.checks.stale import stale_setting
from conformance.contract import Contract, Rule
from conformance.errors import (
    CassetteMissing,
    CassetteStale,
    ContractFailure,
    ContractFileError,
    HarnessError,
    OverBudget,
    RuleSkipped,
    SkipKind,
    TargetUnreachable,
)
from conformance.reporting.text import visible
from conformance.services import load_service
from conformance.settings import env_name
from conformance.targets.base import Target
from conformance.transport.model import Exchange
from conformance.transport.scrub import scrub_text

__all__ = ["Case", "Outcome", "Status", "collect_cases", "interrupted", "run_case"]


class Status(StrEnum):
    """A rule's outcome, decided by what the check raised (its type, never its message). The
    values are what summary.json, JUnit and Allure carry."""

    PASSED = "passed"
    FAILED = "failed"  # the target broke the rule
    SKIPPED = "skipped"  # not checked, with a kind saying why (errors.SkipKind)
    ERROR = "error"  # we could not test: a harness error, never the target's fault
    INTERRUPTED = "interrupted"  # stopped by Ctrl-C or SIGTERM: never passed, never "not run"


PASSED, FAILED, SKIPPED, ERROR, INTERRUPTED = (Status.PASSED, Status.FAILED, Status.SKIPPED, Status.ERROR,
                                               Status.INTERRUPTED)


@dataclass(frozen=True, repr=False)
class Case:
    service: str
    rule: Rule
    check: CheckSpec | None

    @property
    def id(self) -> str:
        return self.rule.id

    def __repr__(self) -> str:
        # The rule id alone: reports (Allure's history id) derive identity from this text, which
        # must not change between runs (a function's repr carries its memory address).
        return f"Case({self.rule.id})"


@dataclass
class Outcome:
    case_id: str
    status: Status
    message: str = ""
    skip_kind: SkipKind | None = None
    failure: ContractFailure | None = None
    seconds: float = 0.0
    observations: dict[str, str] = field(default_factory=dict)
    exchanges: list[Exchange] = field(default_factory=list)
    # Every credential value of the case, obtained tokens included: scrub reports with these.
    secrets: list[str] = field(default_factory=list)

    @property
    def failed_rule(self) -> str | None:
        return self.failure.rule_id if self.failure else None


def collect_cases(contract: Contract) -> list[Case]:
    """One case per rule, bound to its check. Loading the service package registers its checks;
    a rule's params must be what its check declares (a ``ContractFileError`` naming the rules.yaml
    file and the rule)."""
    load_service(contract.service)
    return [Case(contract.service, rule, _check_of(contract, i, rule)) for i, rule in enumerate(contract.rules)]


def _check_of(contract: Contract, index: int, rule: Rule) -> CheckSpec | None:
    try:
        spec = spec_for(rule)
        check_params(rule, spec)
        observes = rule.params.get("observes")
        if observes and observes not in {g.id for g in contract.gaps} | {c.id for c in contract.conflicts}:
            raise ContractFileError(f"params.observes {observes}, not a gap or conflict of the contract")
    except ContractFileError as exc:
        raise ContractFileError(f"{contract.rules_file or 'rules.yaml'}: rules[{index}] ({rule.id}): {exc}") from None
    return spec


def _missing_requirement(case: Case, target: Target) -> str | None:
    for name in case.rule.requires:
        if not target.credential(name):
            return f"needs {env_name(case.service, name)} on target '{target.name}'"
    return None


def _open_gap(case: Case, target: Target) -> str | None:
    """A rule resting on a gap runs only where a target setting resolves the gap."""
    for gap in target.contract.gaps:
        if gap.id not in case.rule.depends_on:
            continue
        if gap.setting is None:
            return f"rests on gap {gap.id}, which the documents leave open: {gap.statement}"
        if not target.credential(gap.setting):
            return (f"rests on gap {gap.id} ({gap.statement}); set {env_name(case.service, gap.setting)} "
                    f"to say what target '{target.name}' does")
    return None


def _with_defaults(message: str, ctx: CheckContext | None, target: Target) -> str:
    """A rule the target's data did not exercise, after the check took defaults (the simulator's
    values) for settings the target lacks: the variables to set come first, so a cut line keeps them."""
    if ctx is None or not ctx.defaulted or target.name in ("sim", "replay"):  # the defaults are theirs
        return message
    unset = ", ".join(f"{env_name(target.service, n)} (default {v!r} used)" for n, v in sorted(ctx.defaulted.items()))
    return f"set {unset} to the target's own value: {message}"


def run_case(case: Case, target: Target, profile: str = "gate") -> Outcome:
    started = time.perf_counter()
    if case.check is None:
        return Outcome(case.id, SKIPPED, "no check implements this rule yet (unchecked, not passed)",
                       SkipKind.UNCHECKED)
    reason = _missing_requirement(case, target)
    if reason:
        return Outcome(case.id, SKIPPED, reason, SkipKind.CREDENTIAL_MISSING)
    reason = _open_gap(case, target)
    if reason:
        return Outcome(case.id, SKIPPED, reason, SkipKind.DEPENDS_ON_GAP)
    if target.unavailable:
        # One clear cause for every remaining rule, not N timeouts: the circuit breaker is open.
        return Outcome(case.id, ERROR, f"target unavailable, rule not run: {target.unavailable}")
    if target.limiting:
        return Outcome(case.id, SKIPPED, f"target rate-limiting every request, rule not run: {target.limiting}",
                       SkipKind.RATE_LIMITED)
    if target.run_seconds_left() <= 0:
        # Not a harness error: the run is incomplete (exit 3), as the bound promises.
        return Outcome(case.id, SKIPPED, f"run deadline of {target.settings.limits.run_seconds:.0f} s reached "
                       "(CONFORMANCE_RUN_SECONDS), rule not run", SkipKind.RUN_DEADLINE)
    outcome = Outcome(case.id, PASSED)
    unreachable = False  # the transport failed: decided by the exception's type, not its message
    secrets = target.secrets()
    ctx: CheckContext | None = None
    try:
        with target.session(case.id) as session:
            secrets = session.secrets
            ctx = CheckContext(target.contract, case.rule, target, session, profile,
                               token_source=load_service(case.service).token_source)
            try:
                case.check.fn(ctx)
            finally:
                outcome.observations = ctx.observations
                outcome.exchanges = list(session.exchanges)
    except ContractFailure as failure:
        # Without its traceback: the check's frames hold whole bodies and parsed values, and
        # outcomes live until the run ends (a 1 MB JSON array kept ~10 MB per failed rule).
        outcome.status, outcome.failure, outcome.message = FAILED, failure.with_traceback(None), failure.render()
    except RuleSkipped as skipped:
        message = _with_defaults(str(skipped), ctx, target) if skipped.kind == SkipKind.NOT_EXERCISED else str(skipped)
        outcome.status, outcome.message, outcome.skip_kind = SKIPPED, message, skipped.kind
        if skipped.kind == SkipKind.RATE_LIMITED:
            target.rate_limited(str(skipped))
    except CassetteStale as exc:
        outcome.status, outcome.message, outcome.skip_kind = SKIPPED, str(exc), SkipKind.CASSETTE_STALE
    except CassetteMissing as exc:
        outcome.status, outcome.message, outcome.skip_kind = SKIPPED, str(exc), SkipKind.CASSETTE_MISSING
    except TargetUnreachable as exc:
        outcome.status, outcome.message = ERROR, f"{type(exc).__name__}: {exc}"
        unreachable = True
        target.transport_failed(str(exc))
    except OverBudget as exc:
        if exc.variable == "CONFORMANCE_RUN_SECONDS":
            # The run's deadline stopped the rule in flight: not checked, and the run is incomplete
            # (exit 3) like the rules after it, not a harness error.
            outcome.status, outcome.message, outcome.skip_kind = (
                SKIPPED, f"stopped in flight: {exc}", SkipKind.RUN_DEADLINE)
        else:
            outcome.status, outcome.message = ERROR, f"{type(exc).__name__}: {exc}"
    except HarnessError as exc:
        outcome.status, outcome.message = ERROR, f"{type(exc).__name__}: {exc}"
    except (Exception, BaseExceptionGroup):  # a bug in a check: reported as an error, never as a target failure
        outcome.status, outcome.message = ERROR, traceback.format_exc()
    _stale_setting(outcome, target)
    # Only an answer closes the breaker: a rule that sent nothing, or whose requests all went
    # unanswered, says nothing about whether the target answers. (A rule that checks without a
    # request used to reset the count, so a target that never answers held a run for one request
    # bound per rule between such rules, not three bounds in all.)
    if outcome.exchanges and not unreachable:
        target.transport_ok()
    if outcome.skip_kind != SkipKind.RATE_LIMITED:
        target.not_rate_limited()
    # Reports attach the last exchange of a failed or broken rule only: the others keep none, so
    # a long run does not hold every rule's traffic until it ends.
    outcome.exchanges = outcome.exchanges[-1:] if outcome.status in (FAILED, ERROR) else []
    if outcome.failure is not None and outcome.failure.exchange is not None:
        # A failure keeps its exchange for the report, cut to a bound (a run may fail many rules).
        outcome.failure.exchange = outcome.failure.exchange.bounded(target.settings.limits.kept_body_bytes, secrets)
    # Messages reach terminals, reports and CI logs: no credential value may ride along, and no
    # control character a target sent (bodies and headers quoted in failures, skips, errors, what
    # a gap shows) may act on a terminal: every report and the console take them from here.
    outcome.secrets = list(secrets)
    outcome.message = visible(scrub_text(outcome.message, outcome.secrets))
    outcome.observations = {gap: visible(shown) for gap, shown in outcome.observations.items()}
    outcome.seconds = time.perf_counter() - started
    return outcome


def _stale_setting(outcome: Outcome, target: Target) -> None:
    """A failed or unexercised rule on a live target whose request with a configured id got
    404/410 becomes a setup error naming the variable (``checks/stale.py``), never a failure."""
    if not target.capabilities.live:
        return
    if outcome.status == FAILED and outcome.failure is not None:
        exchange = outcome.failure.exchange or (outcome.exchanges[-1] if outcome.exchanges else None)
    elif outcome.status == SKIPPED and outcome.skip_kind == SkipKind.NOT_EXERCISED and outcome.exchanges:
        exchange = outcome.exchanges[-1]  # the control request, whose failure left nothing to show
    else:
        return
    why = stale_setting(target.contract, target, exchange)
    if why:
        outcome.status, outcome.failure, outcome.message = SKIPPED, None, why
        outcome.skip_kind = SkipKind.STALE_SETTING


def interrupted(case: Case, target: Target) -> Outcome:
    """The outcome of a rule stopped by Ctrl-C or SIGTERM while it ran."""
    return Outcome(case.id, INTERRUPTED, "interrupted while running (not passed, not checked)",
                   secrets=target.secrets())
