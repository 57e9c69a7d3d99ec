"""Cases and outcomes: one case per rule, run against a target without pytest.

The pytest plugin turns cases into test items; ``selftest`` runs them directly for speed. Both
go through ``run_case`` so a rule means the same thing everywhere.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field

from conformance.checks.context import CheckContext
from conformance.checks.registry import CheckSpec, spec_for
from conformance.contract import Contract, Rule
from conformance.errors import CassetteMissing, ContractFailure, HarnessError, RuleSkipped, SkipKind
from conformance.recording.scrub import scrub_text
from conformance.settings import env_name
from conformance.targets.base import Target
from conformance.transport.model import Exchange

__all__ = ["Case", "Outcome", "collect_cases", "run_case"]

PASSED, FAILED, SKIPPED, ERROR = "passed", "failed", "skipped", "error"


@dataclass(frozen=True)
class Case:
    service: str
    rule: Rule
    check: CheckSpec | None

    @property
    def id(self) -> str:
        return self.rule.id


@dataclass
class Outcome:
    case_id: str
    status: str
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
    return [Case(contract.service, rule, spec_for(rule, contract.service)) for rule in contract.rules]


def _missing_requirement(case: Case, target: Target) -> str | None:
    for name in case.rule.requires:
        if not target.credential(name):
            return f"needs {env_name(case.service, name)} on target '{target.name}'"
    return None


def run_case(case: Case, target: Target, profile: str = "gate") -> Outcome:
    started = time.perf_counter()
    if case.check is None:
        return Outcome(case.id, SKIPPED, "no check implements this rule yet (unchecked, not passed)",
                       SkipKind.UNCHECKED)
    reason = _missing_requirement(case, target)
    if reason:
        return Outcome(case.id, SKIPPED, reason, SkipKind.CREDENTIAL_MISSING)
    outcome = Outcome(case.id, PASSED)
    secrets = target.secrets()
    try:
        with target.session(case.id) as session:
            secrets = session.secrets
            ctx = CheckContext(target.contract, case.rule, target, session, profile)
            try:
                case.check.fn(ctx)
            finally:
                outcome.observations = ctx.observations
                outcome.exchanges = list(session.exchanges)
    except ContractFailure as failure:
        outcome.status, outcome.failure, outcome.message = FAILED, failure, failure.render()
    except RuleSkipped as skipped:
        outcome.status, outcome.message, outcome.skip_kind = SKIPPED, str(skipped), skipped.kind
    except CassetteMissing as exc:
        outcome.status, outcome.message, outcome.skip_kind = SKIPPED, str(exc), SkipKind.CASSETTE_MISSING
    except HarnessError as exc:
        outcome.status, outcome.message = ERROR, f"{type(exc).__name__}: {exc}"
    except (Exception, BaseExceptionGroup):  # a bug in a check: reported as an error, never as a target failure
        outcome.status, outcome.message = ERROR, traceback.format_exc()
    # Messages reach terminals, reports and CI logs: no credential value may ride along.
    outcome.secrets = list(secrets)
    outcome.message = scrub_text(outcome.message, outcome.secrets)
    outcome.seconds = time.perf_counter() - started
    return outcome
