"""The simulator's fixed data: a few tokens, domains and lockers (all invented)."""

from __future__ import annotations

from typing import Any

__all__ = ["DOMAINS", "LOCKERS", "TOKENS", "token_summary"]

# Addresses in the base58 alphabet so the simulator's own id check accepts them.
TOKENS: list[dict[str, Any]] = [
    {"mint": "TRsim1111111111111111111111111111111111111", "name": "Sim Token", "symbol": "SIM",
     "score": 120, "views": 900, "createdAt": 1_799_990_000},
    {"mint": "TRsim2222222222222222222222222222222222222", "name": "Second Token", "symbol": "TWO",
     "score": 4100, "views": 350, "createdAt": 1_799_995_000},
    {"mint": "TRsim3333333333333333333333333333333333333", "name": "Third Token", "symbol": "THR",
     "score": 800, "views": 1200, "createdAt": 1_799_980_000},
]

DOMAINS: list[dict[str, Any]] = [
    {"name": "sim.token", "owner": "Ownr1111111111111111111111111111111111111", "token": TOKENS[0]["mint"],
     "records": {"url": "https://sim.invalid"}},
    {"name": "two, ltd.token", "owner": "Ownr2222222222222222222222222222222222222", "token": TOKENS[1]["mint"],
     "records": {}},
]

LOCKERS: dict[str, list[dict[str, Any]]] = {
    TOKENS[0]["mint"]: [{"pool": "Pool111111111111111111111111111111111111", "lockedPct": 87.5,
                         "unlockAt": 1_830_000_000}],
}


def token_summary(token: dict[str, Any]) -> dict[str, Any]:
    return {"mint": token["mint"], "score": token["score"],
            "risks": [] if token["score"] < 500 else [{"name": "concentrated holders", "level": "warn"}]}
