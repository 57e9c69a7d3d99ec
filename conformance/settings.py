"""Environment variables and run settings, read in one place.

``CONFORMANCE_<ID>_BASE_URL`` and ``CONFORMANCE_<ID>_<NAME>`` (credentials) per service;
``CONFORMANCE_TARGET``, ``CONFORMANCE_PROFILE`` and ``CONFORMANCE_TIME_SCALE`` for the run.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields

from conformance.errors import UsageError

__all__ = ["ALLOWANCES", "PROFILES", "Limits", "RunSettings", "env_name"]

TARGETS = ("sim", "http", "replay")
PROFILES = ("gate", "nightly")


def env_name(service: str, name: str) -> str:
    return f"CONFORMANCE_{service.upper()}_{name}"


@dataclass(frozen=True)
class Limits:
    """Bounds that keep a run safe against any target (each from an environment variable)."""

    # A response body over this many bytes is not read further (CONFORMANCE_MAX_RESPONSE_BYTES).
    max_response_bytes: int = 16 * 1024 * 1024
    # Seconds for one whole request, headers to last byte (CONFORMANCE_REQUEST_SECONDS).
    request_seconds: float = 60.0
    # Real seconds one rule may take; simulated waits do not count (CONFORMANCE_RULE_SECONDS).
    rule_seconds: float = 600.0
    # Real seconds for the whole run; rules not started by then are not run (CONFORMANCE_RUN_SECONDS).
    run_seconds: float = 4 * 3600.0
    # Consecutive transport failures after which the target counts as unavailable
    # (CONFORMANCE_BREAKER_FAILURES).
    breaker_failures: int = 3
    # Longest wait a Retry-After may ask for, and the longest a request backs off in all;
    # beyond it the rule is reported rate-limited (CONFORMANCE_RETRY_AFTER_CEILING).
    retry_after_ceiling: float = 120.0
    # Bytes of a response body kept for reports (failures and the last exchanges).
    kept_body_bytes: int = 64 * 1024
    # Requests to operations that cost credits a run may send to a live target once spending is
    # allowed; beyond it, spending rules are skipped (CONFORMANCE_SPEND_BUDGET).
    spend_budget: int = 20

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise UsageError(f"limit {f.name} must be a finite number above 0, got {value!r}")

    @classmethod
    def from_env(cls) -> Limits:
        values: dict[str, float | int] = {}
        for f in fields(cls):
            name = _LIMIT_ENV[f.name]
            raw = os.environ.get(name)
            if raw:
                try:
                    values[f.name] = int(raw) if f.type in ("int", int) else float(raw)
                except ValueError:
                    raise UsageError(f"{name} must be a number, got '{raw}'") from None
        return cls(**values)  # type: ignore[arg-type]


_LIMIT_ENV = {
    "max_response_bytes": "CONFORMANCE_MAX_RESPONSE_BYTES",
    "request_seconds": "CONFORMANCE_REQUEST_SECONDS",
    "rule_seconds": "CONFORMANCE_RULE_SECONDS",
    "run_seconds": "CONFORMANCE_RUN_SECONDS",
    "breaker_failures": "CONFORMANCE_BREAKER_FAILURES",
    "retry_after_ceiling": "CONFORMANCE_RETRY_AFTER_CEILING",
    "kept_body_bytes": "CONFORMANCE_KEPT_BODY_BYTES",
    "spend_budget": "CONFORMANCE_SPEND_BUDGET",
}

# pytest-recording's vocabulary for cassettes (vcrpy's modes plus "rewrite"): none records
# nothing; once records a rule whose cassette is missing and replays one that exists; new_episodes
# replays what is recorded and adds what is not; all records every request again, keeping
# recorded ones the run did not send; rewrite starts each rule's cassette afresh (`--record`).
RECORD_MODES = ("none", "once", "new_episodes", "all", "rewrite")

# What a run may do to a live target beyond reading: spend credits, write vendor data.
ALLOWANCES = ("spend", "write")


@dataclass
class RunSettings:
    target: str = "sim"
    profile: str = "gate"
    record: bool = False
    record_mode: str = "none"
    fault: str | None = None
    # Real seconds per simulated second on an HTTP target: a simulator served with
    # `--clock-rate R` needs the harness to wait 1/R as long.
    time_scale: float = 1.0
    cassette_dir: str = "cassettes"
    limits: Limits = field(default_factory=Limits)
    # Effects (x-effects of operations) a live target may suffer: "spend", "write".
    allow: frozenset[str] = frozenset()
    # Wall-clock time the run started (time.time()): CONFORMANCE_RUN_SECONDS counts from here for
    # every service and every xdist worker; None: from when each target is made.
    run_started: float | None = None

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise UsageError(f"unknown target '{self.target}'; choose one of {', '.join(TARGETS)}")
        if self.profile not in PROFILES:
            raise UsageError(f"unknown profile '{self.profile}'; choose one of {', '.join(PROFILES)}")
        if not math.isfinite(self.time_scale) or self.time_scale <= 0:
            raise UsageError(f"time scale must be a finite number above 0, got {self.time_scale}")
        if self.fault and self.target != "sim":
            raise UsageError("--fault applies to the simulator target only")
        unknown = set(self.allow) - set(ALLOWANCES)
        if unknown:
            raise UsageError(f"unknown allowance {', '.join(sorted(unknown))}; choose from {', '.join(ALLOWANCES)}")
        if self.record_mode not in RECORD_MODES:
            raise UsageError(f"unknown record mode '{self.record_mode}'; choose one of {', '.join(RECORD_MODES)}")
        if self.record and self.record_mode == "none":
            self.record_mode = "rewrite"  # --record: each rule's cassette recorded afresh
        self.record = self.record_mode != "none"
        if self.record and self.target == "replay":
            raise UsageError("--record needs a live target (sim or http), not replay")

    @classmethod
    def from_env(cls, **overrides: object) -> RunSettings:
        values: dict[str, object] = {
            "target": os.environ.get("CONFORMANCE_TARGET", "sim"),
            "profile": os.environ.get("CONFORMANCE_PROFILE", "gate"),
            "limits": Limits.from_env(),
            "allow": frozenset(a.strip() for a in os.environ.get("CONFORMANCE_ALLOW", "").split(",") if a.strip()),
            "record_mode": os.environ.get("CONFORMANCE_RECORD_MODE", "none"),
        }
        scale = os.environ.get("CONFORMANCE_TIME_SCALE")
        if scale:
            try:
                values["time_scale"] = float(scale)
            except ValueError:
                raise UsageError(f"CONFORMANCE_TIME_SCALE must be a number, got '{scale}'") from None
        env_allow, more = values["allow"], overrides.get("allow")
        if isinstance(env_allow, frozenset) and isinstance(more, frozenset):
            overrides["allow"] = env_allow | more
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
