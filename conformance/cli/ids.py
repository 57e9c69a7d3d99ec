"""Service ids without loading a contract: for help texts and ``conformance env``, which must not
pay for jsonschema, yaml and httpx (issue 31).

The same answer as ``conformance.contract.loader.available_services`` (a test holds the two
equal); that module cannot be imported cheaply, its package loads every contract dependency.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["SERVICES", "available_services"]

# Service ids in document order (DESIGN.md), as conformance.contract.loader.SERVICES.
SERVICES = (
    "tokenrisk", "presentations", "contracts", "social",
    "scanning", "outreach", "marketplace", "affiliate",
)

_ROOT = Path(__file__).resolve().parents[2]


def schemas_dir() -> Path:
    return Path(os.environ.get("CONFORMANCE_SCHEMAS_DIR", _ROOT / "schemas"))


def available_services() -> list[str]:
    """The ids whose contract directory exists (a service is runnable once it does)."""
    return [s for s in SERVICES if (schemas_dir() / s / "rules.yaml").is_file()]
