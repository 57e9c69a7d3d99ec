"""The scanning simulator's plans, seeded keys and accounts (with their credit balances)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.simulators.base import SimError

__all__ = ["NO_CREDITS", "PLANS", "SIM_KEYS", "SIM_USERS", "Account", "Plan"]

NO_CREDITS = 402  # SIM-CHOICE: the status for too few credits is not documented


@dataclass(frozen=True)
class Plan:
    name: str
    paid: bool
    enterprise: bool
    query_credits: int
    scan_credits: int
    monitored_ips: int


# SIM-CHOICE: plan names and monthly allowances are not documented.
PLANS = {
    "free": Plan("oss", False, False, 100, 0, 0),
    "paid": Plan("dev", True, False, 10_000, 5_000, 16),
    "enterprise": Plan("enterprise", True, True, 100_000, 65_536, 65_536),
    "empty": Plan("dev", True, False, 0, 0, 16),
}
# Seeded keys, the same in process and served: key -> (plan, display name).
SIM_KEYS: dict[str, tuple[str, str | None]] = {
    "sim-paid-key": ("paid", "Paid Tester"),
    "sim-free-key": ("free", None),
    "sim-enterprise-key": ("enterprise", "Enterprise Admin"),
    "sim-broke-key": ("empty", "Broke Tester"),
}
# Accounts that may join an organization: username -> e-mail.
SIM_USERS: dict[str, str] = {
    "sim-admin": "admin@example.com", "carol": "carol@example.com",
    "dave": "dave@example.com", "erin": "erin@example.org",
}


@dataclass
class Account:
    plan: Plan
    display_name: str | None
    query_credits: int
    scan_credits: int
    org: dict[str, Any] | None = None

    def charge_query(self, cost: int) -> None:
        if cost > self.query_credits:
            raise SimError(NO_CREDITS, "Insufficient query credits, please upgrade your API plan")
        self.query_credits -= cost
