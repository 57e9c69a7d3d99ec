"""Environment variables and run settings, read in one place.

``CONFORMANCE_<ID>_BASE_URL`` and ``CONFORMANCE_<ID>_<NAME>`` (credentials) per service; the
run-wide ones (``CONFORMANCE_TARGET``, ``..._PROFILE``, the bounds ...) are in ``RUN_VARIABLES``,
the one table ``conformance env`` prints with the value in force.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields

from conformance.errors import UsageError
from conformance.layout import cassettes_dir

__all__ = ["ALLOWANCES", "LIMIT_HELP", "LIMIT_VARIABLES", "MIN_CHECKED_DEFAULTS", "PROFILES", "RUN_VARIABLES", "Limits",
           "MinChecked", "RunSettings", "RunVariable", "env_name", "limit_in_force", "run_variables"]

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
    # Requests to operations that cost credits one rule may send to a live target once spending
    # is allowed (CONFORMANCE_SPEND_PER_RULE): enough for every spending rule to be checked once
    # (the most one rule sends to a served simulator is 102, gate profile: presentations'
    # request-fields probes of POST /generations at every depth, issue 35), so `--allow spend`
    # checks them all; nightly (200 examples per property) sets more.
    spend_per_rule: int = 120
    # Spending requests for the whole run (CONFORMANCE_SPEND_BUDGET); None ("auto", the default):
    # no cap beyond the per-rule one, i.e. what the selected spending rules need. Set a number to
    # cap a run on a sandbox whose credits are counted; beyond it, spending rules are skipped.
    spend_budget: int | None = None
    # JSON a target sends nested deeper than this is not parsed: the rule reading it fails as it
    # would on text that is not JSON (CONFORMANCE_MAX_JSON_DEPTH). The deepest response schema of
    # the eight contracts nests 8 levels; Python's parser and validators recurse per level and share
    # its recursion limit (1000), so the bound is far above the one and far below the other.
    max_json_depth: int = 128
    # Content encodings one response may stack (``gzip, gzip``); more are not decoded and the
    # response is not read (CONFORMANCE_MAX_ENCODINGS). Each layer multiplies what a few bytes
    # expand to; no server needs more than one.
    max_encodings: int = 2

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in _OPTIONAL_LIMITS:
                continue
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise UsageError(f"limit {f.name} must be a finite number above 0, got {value!r}")

    @classmethod
    def from_env(cls) -> Limits:
        values: dict[str, float | int | None] = {}
        for f in fields(cls):
            name = _LIMIT_ENV[f.name]
            raw = (os.environ.get(name) or "").strip()
            if not raw or (f.name in _OPTIONAL_LIMITS and raw.lower() == "auto"):
                continue
            try:
                values[f.name] = float(raw) if "float" in str(f.type) else int(raw)
            except ValueError:
                raise UsageError(f"{name} must be a {'number' if 'float' in str(f.type) else 'whole number'}"
                                 f"{' or auto' if f.name in _OPTIONAL_LIMITS else ''}, got '{raw}'") from None
        return cls(**values)  # type: ignore[arg-type]


_OPTIONAL_LIMITS = {"spend_budget"}


_LIMIT_ENV = {
    "max_response_bytes": "CONFORMANCE_MAX_RESPONSE_BYTES",
    "request_seconds": "CONFORMANCE_REQUEST_SECONDS",
    "rule_seconds": "CONFORMANCE_RULE_SECONDS",
    "run_seconds": "CONFORMANCE_RUN_SECONDS",
    "breaker_failures": "CONFORMANCE_BREAKER_FAILURES",
    "retry_after_ceiling": "CONFORMANCE_RETRY_AFTER_CEILING",
    "kept_body_bytes": "CONFORMANCE_KEPT_BODY_BYTES",
    "spend_per_rule": "CONFORMANCE_SPEND_PER_RULE",
    "spend_budget": "CONFORMANCE_SPEND_BUDGET",
    "max_json_depth": "CONFORMANCE_MAX_JSON_DEPTH",
    "max_encodings": "CONFORMANCE_MAX_ENCODINGS",
}
LIMIT_VARIABLES = dict(_LIMIT_ENV)

# What each bound is for, as `conformance env` prints it.
LIMIT_HELP = {
    "max_response_bytes": "bytes of a response body read at most (beyond: a harness error naming the cap)",
    "request_seconds": "wall-clock seconds for one request, connect to last byte",
    "rule_seconds": "real seconds per rule (simulated waits do not count); a request in flight stops too",
    "run_seconds": "real seconds per run; a request in flight stops, rules not started are not run (exit 3)",
    "breaker_failures": "consecutive transport failures (or rate-limited rules) before the target is unavailable",
    "retry_after_ceiling": "seconds of back-off on 429 before a rule is skipped rate-limited",
    "kept_body_bytes": "bytes of each response body kept for reports",
    "spend_per_rule": "credit-spending requests one rule may send once --allow spend is given",
    "spend_budget": "credit-spending requests per run (auto: what the selected rules need, per rule as above)",
    "max_json_depth": "nesting levels of a JSON body parsed at most; deeper is a body that does not parse",
    "max_encodings": "content encodings of one response decoded at most (gzip, gzip is 2); more: a harness error",
}


# Each bound's default, read once: limit_in_force is asked on every JSON body parsed, and building a
# Limits to read one default validated every field each time (5% of a replay's request handling).
_DEFAULT_LIMITS = Limits()


def limit_in_force(name: str) -> float | int:
    """One bound's value in force (its variable, else the default), for code handed no ``Limits``.
    A malformed value gives the default here: the run refused it already (``Limits.from_env``)."""
    default: float | int = getattr(_DEFAULT_LIMITS, name)
    raw = os.environ.get(_LIMIT_ENV[name])
    if not raw:
        return default
    try:
        value = int(raw) if isinstance(default, int) else float(raw)
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default


@dataclass(frozen=True)
class MinChecked:
    """The least share of selected rules a run must check (pass or fail) to be complete: a
    percentage (``80%``) or a count (``30``). Below it the run is incomplete (exit 3)."""

    percent: float | None = None
    count: int | None = None

    @classmethod
    def parse(cls, text: str, where: str = "--min-checked") -> MinChecked:
        raw = text.strip()
        try:
            if raw.endswith("%"):
                percent = float(raw[:-1])
                if math.isfinite(percent) and 0 <= percent <= 100:
                    return cls(percent=percent)
            elif raw.isdigit():
                return cls(count=int(raw))
        except ValueError:
            pass
        raise UsageError(f"{where} takes a percentage from 0% to 100% or a count of rules, got '{text}'")

    def needed(self, total: int) -> int:
        """Rules that must be checked out of ``total`` selected."""
        if self.count is not None:
            return min(self.count, total)
        return math.ceil(total * (self.percent or 0.0) / 100 - 1e-9)

    def __str__(self) -> str:
        return f"{self.count} rules" if self.count is not None else f"{self.percent:g}%"


# The floor when neither --min-checked nor CONFORMANCE_MIN_CHECKED says: the gate (simulators,
# where every rule but the few a simulator cannot show is checked: 95% today) must check most;
# nightly runs against a sandbox with write and spend allowed, where vendor data and missing
# optional credentials (scoped keys, ids) leave more out: half, so a sandbox answering a tenth is red.
MIN_CHECKED_DEFAULTS = {"gate": "80%", "nightly": "50%"}


@dataclass(frozen=True)
class RunVariable:
    """A run-wide environment variable (not per service): its name, default and purpose."""

    name: str
    default: str
    description: str

    def value(self) -> str:
        return os.environ.get(self.name) or self.default


RUN_VARIABLES: tuple[RunVariable, ...] = (
    RunVariable("CONFORMANCE_TARGET", "sim", "sim, http or replay (--target)"),
    RunVariable("CONFORMANCE_PROFILE", "gate", "gate or nightly (--profile)"),
    RunVariable("CONFORMANCE_ALLOW", "", "what a live target may suffer: spend, write (comma-separated; --allow)"),
    RunVariable("CONFORMANCE_MIN_CHECKED", "by profile: " + ", ".join(f"{p} {v}" for p, v in
                                                                       MIN_CHECKED_DEFAULTS.items()),
                "least share of selected rules checked, a percentage or a count (--min-checked); below: exit 3"),
    RunVariable("CONFORMANCE_RECORD_MODE", "none", "cassette mode: none, once, new_episodes, all, rewrite"),
    RunVariable("CONFORMANCE_TIME_SCALE", "1", "divide real waits (a simulator served with --clock-rate)"),
    RunVariable("CONFORMANCE_SEED", "random (nightly; printed)", "seed of the nightly profile's generation (--seed)"),
    RunVariable("CONFORMANCE_DOCS_URL", "", "base URL for source links in reports (default: the local file)"),
    RunVariable("CONFORMANCE_HISTORY_RUNS", "30", "runs the Allure history file keeps (each full run adds ~600 KB)"),
    *(RunVariable(_LIMIT_ENV[f.name], "auto" if f.default is None else f"{f.default:g}"
                  if isinstance(f.default, float) else str(f.default), LIMIT_HELP[f.name])
      for f in fields(Limits)),
    RunVariable("CONFORMANCE_SCHEMAS_DIR", "schemas/ of the checkout", "where the contracts are read from"),
    RunVariable("CONFORMANCE_DOCS_DIR", "docs/spec/ of the checkout", "where the source documents are read from"),
    RunVariable("CONFORMANCE_CACHE_DIR", "$XDG_CACHE_HOME/conformance/contracts",
                "where loaded contracts are kept between runs, keyed by the digest of their files"),
    RunVariable("CONFORMANCE_DISCOVERED", "", "set by `run --discover` for its report: the settings discovery filled"),
    RunVariable("CONFORMANCE_TEST_PAUSE_AT", "", "harness tests only: pause the run at a named point"),
    RunVariable("CONFORMANCE_TEST_PAUSE_FILE", "", "harness tests only: where the paused run says so"),
)


def run_variables() -> list[tuple[str, str, str]]:
    """(name, value in force, what it is for) of every run-wide variable."""
    return [(v.name, v.value(), v.description) for v in RUN_VARIABLES]


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
    cassette_dir: str = field(default_factory=lambda: str(cassettes_dir()))
    # The nightly profile's generation is random; a seed makes a run's examples reproducible.
    # (The gate is always seeded, from each rule's id: its examples never change.)
    seed: int | None = None
    limits: Limits = field(default_factory=Limits)
    # Effects (x-effects of operations) a live target may suffer: "spend", "write".
    allow: frozenset[str] = frozenset()
    # Wall-clock time the run started (time.time()): CONFORMANCE_RUN_SECONDS counts from here for
    # every service and every xdist worker; None: from when each target is made.
    run_started: float | None = None
    # Replay draws every property test's examples again instead of taking those the cassette
    # recorded (checks/drawn.py): slower, and holds the cassettes to today's draws exactly.
    draw_on_replay: bool = False

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
            # Empty is unset, as for every variable (a CI expression that yields nothing).
            "target": os.environ.get("CONFORMANCE_TARGET") or "sim",
            "profile": os.environ.get("CONFORMANCE_PROFILE") or "gate",
            "limits": Limits.from_env(),
            "allow": frozenset(a.strip() for a in os.environ.get("CONFORMANCE_ALLOW", "").split(",") if a.strip()),
            "record_mode": os.environ.get("CONFORMANCE_RECORD_MODE") or "none",
        }
        seed = os.environ.get("CONFORMANCE_SEED", "").strip()
        if seed:
            try:
                values["seed"] = int(seed)
            except ValueError:
                raise UsageError(f"CONFORMANCE_SEED must be a whole number, got '{seed}'") from None
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
