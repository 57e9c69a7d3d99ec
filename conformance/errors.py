"""The two error families, never mixed.

* ``ContractFailure``: the target broke a documented rule. It names the rule, says what was
  expected and carries the exchange that shows it.
* ``HarnessError``: we could not test at all (bad usage, bad contract file, unreachable target,
  a cassette that does not match). It is never counted against the target.

Besides those, ``RuleSkipped`` says a rule was not checked, with a ``SkipKind`` so reports, Allure
categories and exit codes decide on the kind, never by parsing the message.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.transport.model import Exchange

__all__ = [
    "CassetteMismatch",
    "CassetteMissing",
    "CassetteStale",
    "OverBudget",
    "ResponseTooLarge",
    "ResponseUndecodable",
    "RuleSkipped",
    "SkipKind",
    "ContractFailure",
    "ContractFileError",
    "HarnessError",
    "TargetUnreachable",
    "UsageError",
    "did_you_mean",
]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice to a mistyped ``word``, else ``""``."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class ContractFailure(AssertionError):
    """The target broke ``rule_id``. Subclasses AssertionError so pytest shows it as a failure."""

    def __init__(
        self,
        rule_id: str,
        message: str,
        *,
        expected: str = "",
        exchange: Exchange | None = None,
    ) -> None:
        self.rule_id = rule_id
        self.message = message
        self.expected = expected
        self.exchange = exchange
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"[{self.rule_id}] {self.message}"]
        if self.expected:
            lines.append(f"  expected: {self.expected}")
        if self.exchange is not None:
            lines.append(f"  sent:     {self.exchange.request.summary()}")
            lines.append(f"  got:      {self.exchange.response.summary()}")
        return "\n".join(lines)


class HarnessError(Exception):
    """We could not test: the target is not to blame."""


class UsageError(HarnessError):
    """Bad options, unknown service, missing environment variable."""


class ContractFileError(HarnessError):
    """A contract or rule catalogue file is missing or invalid."""


class TargetUnreachable(HarnessError):
    """The transport failed before any HTTP response came back."""


class CassetteMismatch(HarnessError):
    """Replay met a request the cassette does not hold."""


class CassetteMissing(CassetteMismatch):
    """Replay has no cassette for this rule: the rule is skipped (kind ``cassette-missing``)."""


class CassetteStale(CassetteMissing):
    """The rule's cassette was recorded under another contract (its digest differs): the rule is
    skipped (kind ``cassette-stale``) with the command that records it again, never judged on
    responses today's contract may no longer describe."""


class ResponseTooLarge(HarnessError):
    """A response body exceeded the configured cap; it was not read further."""


class ResponseUndecodable(HarnessError):
    """A response body the harness does not decode: more content encodings than it allows, one it
    does not know, or data that does not decode. Not read; no document says what to make of it."""


class OverBudget(HarnessError):
    """A rule or the run used up its real-time budget; ``variable`` names which one
    (``CONFORMANCE_RULE_SECONDS``, ``CONFORMANCE_RUN_SECONDS``), so the runner decides the outcome
    from the bound, never from the message's words."""

    def __init__(self, message: str, variable: str = "") -> None:
        super().__init__(message)
        self.variable = variable


class SkipKind(str, Enum):
    """Why a rule was not checked. Never reported as passed."""

    CREDENTIAL_MISSING = "credential-missing"  # the target lacks a credential or setting the rule needs
    NOT_ON_TARGET = "not-checkable-on-target"  # the target cannot do what the check needs (wait, steer)
    CASSETTE_MISSING = "cassette-missing"  # replay without a recording of this rule
    CASSETTE_STALE = "cassette-stale"  # replay of a recording made under another contract
    NOT_EXERCISED = "not-exercised"  # the target's data did not let the check show anything
    RATE_LIMITED = "rate-limited"  # the target kept answering 429 beyond the back-off ceiling
    # The target kept answering a status its document tells clients to retry (a 503 "overloaded;
    # retry"), after the bounded retries: nothing was shown about the rule either way.
    TARGET_TRANSIENT = "target-transient"
    NEEDS_ALLOWANCE = "needs-allowance"  # would spend credits or write vendor data on a live target
    GAP_OBSERVED = "gap-observed"  # a documented gap probed: what the target shows, never judged
    DEPENDS_ON_GAP = "depends-on-gap"  # the rule rests on a gap no target setting resolves here
    UNCHECKED = "unchecked"  # no check implements the rule
    RUN_DEADLINE = "run-deadline"  # the run's CONFORMANCE_RUN_SECONDS ran out before the rule started
    # A configured or discovered id the target does not hold (404/410): a setup error naming the
    # variable, never a contract failure; the run is incomplete (exit 3).
    STALE_SETTING = "stale-setting"


class RuleSkipped(Exception):
    """The rule cannot be checked here; ``kind`` says why in a way reports can count."""

    def __init__(self, reason: str, kind: SkipKind = SkipKind.NOT_EXERCISED) -> None:
        super().__init__(reason)
        self.kind = kind
