"""Which credentials were configured when cassettes were recorded: a small file beside them.

Replay has no real credentials, yet a rule that needs an optional one must be run or skipped as it
was when recorded. Recording writes the names (never the values) of the configured credentials and
the values of the non-secret settings; replay reads them back.
"""

from __future__ import annotations

import json
from pathlib import Path

from conformance.contract import Contract
from conformance.errors import HarnessError
from conformance.files import CASSETTE, load_json

__all__ = ["CONFIGURED_FILE", "read_configured", "remember_configured"]

# Beside each service's cassettes: the names (never values) of the credentials configured when
# they were recorded, so replay knows which optional credentials the recorded rules had.
CONFIGURED_FILE = "configured-credentials.json"


def remember_configured(folder: Path, names: list[str], settings: dict[str, str]) -> None:
    path = folder / CONFIGURED_FILE
    known_names, known_settings = _read_file(path)
    merged = {**known_settings, **settings}
    if path.is_file() and known_names >= set(names) and merged == known_settings:
        return
    data = {"credentials": sorted(known_names | set(names)), "settings": dict(sorted(merged.items()))}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise HarnessError(f"cannot write {path}: {exc.strerror}") from None


def _read_file(path: Path) -> tuple[set[str], dict[str, str]]:
    try:  # bounded as every file read (conformance/files.py); unreadable reads as none recorded
        data = load_json(path, CASSETTE, HarnessError)
    except HarnessError:
        return set(), {}
    if not isinstance(data, dict):
        return set(), {}
    names = data.get("credentials")
    settings = data.get("settings")
    return ({n for n in names if isinstance(n, str)} if isinstance(names, list) else set(),
            {k: v for k, v in settings.items() if isinstance(v, str)} if isinstance(settings, dict) else {})


def read_configured(folder: Path, contract: Contract) -> tuple[set[str], dict[str, str]]:
    path = folder / CONFIGURED_FILE
    if path.is_file():
        return _read_file(path)
    # No record of what was configured: the required credentials only (optional ones unknown).
    return {c["name"] for c in contract.settings.get("credentials", []) if not c.get("optional")}, {}
