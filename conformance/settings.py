"""Environment variables and run settings, read in one place.

``CONFORMANCE_<ID>_BASE_URL`` and ``CONFORMANCE_<ID>_<NAME>`` (credentials) per service;
``CONFORMANCE_TARGET``, ``CONFORMANCE_PROFILE`` and ``CONFORMANCE_TIME_SCALE`` for the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from conformance.errors import UsageError

__all__ = ["PROFILES", "RunSettings", "env_name"]

TARGETS = ("sim", "http", "replay")
PROFILES = ("gate", "nightly")


def env_name(service: str, name: str) -> str:
    return f"CONFORMANCE_{service.upper()}_{name}"


@dataclass
class RunSettings:
    target: str = "sim"
    profile: str = "gate"
    record: bool = False
    fault: str | None = None
    # Real seconds per simulated second on an HTTP target: a simulator served with
    # `--clock-rate R` needs the harness to wait 1/R as long.
    time_scale: float = 1.0
    cassette_dir: str = "cassettes"

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise UsageError(f"unknown target '{self.target}'; choose one of {', '.join(TARGETS)}")
        if self.profile not in PROFILES:
            raise UsageError(f"unknown profile '{self.profile}'; choose one of {', '.join(PROFILES)}")
        if self.time_scale <= 0:
            raise UsageError("time scale must be positive")
        if self.fault and self.target != "sim":
            raise UsageError("--fault applies to the simulator target only")
        if self.record and self.target == "replay":
            raise UsageError("--record needs a live target (sim or http), not replay")

    @classmethod
    def from_env(cls, **overrides: object) -> RunSettings:
        values: dict[str, object] = {
            "target": os.environ.get("CONFORMANCE_TARGET", "sim"),
            "profile": os.environ.get("CONFORMANCE_PROFILE", "gate"),
        }
        scale = os.environ.get("CONFORMANCE_TIME_SCALE")
        if scale:
            try:
                values["time_scale"] = float(scale)
            except ValueError:
                raise UsageError(f"CONFORMANCE_TIME_SCALE must be a number, got '{scale}'") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
