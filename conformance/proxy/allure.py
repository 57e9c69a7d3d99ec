"""A proxy session's Allure results, shaped as a run's (allure-pytest's result files, labelled as
``plugin.py`` labels a rule): one result per rule, so `conformance report` builds the same report
for a session as for a run. The exchanges are in the rule's message (from summary.json, scrubbed)."""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from pathlib import Path
from typing import Any

from conformance.reporting.summary import write_atomic

__all__ = ["write_allure"]

_STATUS = {"passed": "passed", "failed": "failed", "skipped": "skipped", "error": "broken", "not run": "skipped"}


def write_allure(data: dict[str, Any], folder: Path, root: Path) -> None:
    """``data``: what summary.json holds; ``root``: the project (the rules' sources are its files)."""
    folder.mkdir(parents=True, exist_ok=True)
    now = int(time.time() * 1000)
    for service, entry in data["services"].items():
        for rule in entry["rules"]:
            full = f"conformance.{service}#{rule['id']}"
            digest = hashlib.md5(full.encode(), usedforsecurity=False).hexdigest()
            operation = rule.get("operation") or "whole service"
            result: dict[str, Any] = {
                "uuid": str(uuid.uuid4()), "historyId": digest, "testCaseId": digest, "fullName": full,
                "name": f"{rule['id']}: {rule['statement']}", "status": _STATUS.get(rule["status"], "unknown"),
                "description": f"{rule['statement']}\n\nTarget: proxy (a session's own traffic)",
                "start": now, "stop": now,
                "labels": [{"name": "epic", "value": service}, {"name": "feature", "value": operation},
                           {"name": "story", "value": rule["id"]}, {"name": "parentSuite", "value": service},
                           {"name": "suite", "value": operation}, {"name": "subSuite", "value": rule["kind"]},
                           {"name": "tag", "value": rule["kind"]}, {"name": "tag", "value": "proxy"}],
                "links": [{"type": "link", "url": _source_url(root, rule["source"]),
                           "name": f"source: {rule['source']}"}],
            }
            if rule["status"] != "passed":
                result["statusDetails"] = {"message": rule["message"]}
            write_atomic(folder / f"{result['uuid']}-result.json", json.dumps(result))


def _source_url(root: Path, source: str) -> str:
    """``docs/spec/volume-1.md#anchor`` as a file URL (the anchor kept as a fragment, not a name)."""
    path, _, anchor = source.partition("#")
    return (root / path).as_uri() + (f"#{anchor}" if anchor else "")
