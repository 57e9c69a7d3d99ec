"""What a run may spend: requests that cost credits, and real seconds.

Kept apart from the targets so each budget's rule and its message are written once: a target
counts, this module says when a count or a wait has gone past what the settings allow.
"""

from __future__ import annotations

import time

from conformance.errors import OverBudget
from conformance.settings import Limits

__all__ = ["run_clock_start", "spend_refusal", "wait_within"]


def spend_refusal(limits: Limits, spent: int, rule_spent: int) -> str | None:
    """Which spend budget is used up (None while one more spending request fits).
    Each rule may spend ``spend_per_rule``; the run, ``spend_budget`` when one is set."""
    if rule_spent >= limits.spend_per_rule:
        return (f"this rule's spend budget of {limits.spend_per_rule} requests is used up "
                "(CONFORMANCE_SPEND_PER_RULE)")
    if limits.spend_budget is not None and spent >= limits.spend_budget:
        return f"the run's spend budget of {limits.spend_budget} requests is used up (CONFORMANCE_SPEND_BUDGET)"
    return None


def run_clock_start(run_started: float | None) -> float:
    """The run's start on ``time.monotonic()``, not the caller's: a service started late gets what
    is left of the run (``run_started`` is the wall-clock start, None for now)."""
    return time.monotonic() - (max(0.0, time.time() - run_started) if run_started is not None else 0.0)


def wait_within(wanted: float, left: float, variable: str = "") -> None:
    """Wait ``wanted`` real seconds, never past ``left``: a wait that would end after it waits until
    then and stops the rule (the budgets hold on the wall clock)."""
    if wanted <= left:
        time.sleep(wanted)
        return
    time.sleep(max(0.0, left))
    raise OverBudget(f"a wait of {wanted:g} s would pass the rule's or the run's real-time budget "
                     "(CONFORMANCE_RULE_SECONDS, CONFORMANCE_RUN_SECONDS); stopped when it ran out", variable)
