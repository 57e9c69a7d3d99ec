"""What Allure shows beside the results: categories, environment and the Allure 3 configuration.

One list of categories serves both Allure generations: Allure 2 reads ``categories.json`` in the
results folder; Allure 3 takes ``categories`` from its configuration file (it reads the same
``matchedStatuses``/``messageRegex`` keys there) and groups contract violations by rule kind
(the ``subSuite`` label the plugin sets). Skip messages lead with ``[skip-kind]`` (plugin.py),
harness errors with ``HARNESS ERROR`` and are broken, not failed. Patterns use ``[\\s\\S]*``,
not ``(?s)``: Allure 2 matches them whole in Java, Allure 3 searches in JavaScript, which has no
inline flags (``(?s)`` stopped Allure 3 from building the report at all).
"""

from __future__ import annotations

import json
import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from conformance.errors import SkipKind

__all__ = ["CATEGORIES", "allure3_config", "environment", "write_results_extras"]

HARNESS_ERROR_MARK = "HARNESS ERROR"

# One category per reason a rule was not checked, keyed by the kind the skip message leads with.
_SKIPPED: dict[SkipKind, str] = {
    SkipKind.CREDENTIAL_MISSING: "Credential or setting missing on this target",
    SkipKind.NOT_ON_TARGET: "Not checkable on this target",
    SkipKind.CASSETTE_MISSING: "Cassette missing (record it)",
    SkipKind.CASSETTE_STALE: "Cassette recorded under another contract (record it again)",
    SkipKind.NOT_EXERCISED: "Not exercised by the target's data",
    SkipKind.UNCHECKED: "Unchecked rules",
    SkipKind.RATE_LIMITED: "Rate-limited (not checked)",
    SkipKind.TARGET_TRANSIENT: "Kept answering a status the document says to retry (not checked)",
    SkipKind.NEEDS_ALLOWANCE: "Needs an allowance (--allow spend/write)",
    SkipKind.STALE_SETTING: "Setup error: a configured id the target does not hold",
    SkipKind.DEPENDS_ON_GAP: "Resting on an open gap (set the target setting that resolves it)",
    SkipKind.GAP_OBSERVED: "Gaps observed (not judged)",
    SkipKind.RUN_DEADLINE: "Run deadline reached (CONFORMANCE_RUN_SECONDS): not run",
}

CATEGORIES: list[dict[str, Any]] = [
    {"name": "Target unavailable", "matchedStatuses": ["broken"],
     "messageRegex": rf"[\s\S]*{HARNESS_ERROR_MARK}[\s\S]*(unreachable|refused|timed out|timeout|connect)[\s\S]*"},
    {"name": "Harness errors (not the target's fault)", "matchedStatuses": ["failed", "broken"],
     "messageRegex": rf"[\s\S]*{HARNESS_ERROR_MARK}[\s\S]*"},
    {"name": "Interrupted (not checked)", "matchedStatuses": ["broken"], "messageRegex": r"interrupted[\s\S]*"},
    {"name": "Contract violations", "matchedStatuses": ["failed"]},
    *({"name": name, "matchedStatuses": ["skipped"], "messageRegex": rf"[\s\S]*\[{kind.value}\][\s\S]*"}
      for kind, name in _SKIPPED.items()),
]


def _allure3_rules() -> list[dict[str, Any]]:
    rules = []
    for category in CATEGORIES:
        rule = dict(category)
        if category["name"] == "Contract violations":
            rule["groupBy"] = [{"label": "subSuite"}]  # the rule kind: auth, enum, limit, paging ...
        rules.append(rule)
    return rules


def allure3_config(history_path: Path | None, name: str = "API conformance", *, append_history: bool = True) -> str:
    """allurerc.mjs: one self-contained file (the multi-file report does not open from file://),
    categories, and the history file that makes trends, "new failed" and "fixed" work."""
    config: dict[str, Any] = {
        "name": name,
        "output": "./allure-report",
        "categories": {"rules": _allure3_rules()},
        # The tree: service / operation / rule (the labels the plugin sets), not the one pytest
        # file every rule runs through.
        "plugins": {"awesome": {"options": {"singleFile": True, "reportName": name,
                                            "groupBy": ["epic", "feature", "story"]}}},
    }
    if history_path is not None:
        config["historyPath"] = str(history_path.resolve())
        # False when the run already appended its own line (reporting/history.py).
        config["appendHistory"] = append_history
    return f"export default {json.dumps(config, indent=2)};\n"


def _tool_versions() -> dict[str, str]:
    tools = {}
    for package in ("pytest", "hypothesis", "schemathesis", "httpx", "vcrpy", "jsonschema", "allure-pytest"):
        try:
            tools[package] = version(package)
        except PackageNotFoundError:
            continue
    return tools


def environment(summary_json: dict[str, Any], base_urls: dict[str, str]) -> dict[str, str]:
    """The run's identity for the report's Environment panel: harness, commit, contracts, target."""
    env = {
        "harness": str(summary_json.get("harness_version")),
        "commit": str(summary_json.get("commit") or "not a git checkout"),
        "target": str(summary_json.get("target")),
        "profile": str(summary_json.get("profile")),
        # The gate seeds each property test from its rule id; nightly draws at random.
        "seed": "per rule, from the rule id" if summary_json.get("profile") == "gate" else "random",
        "python": platform.python_version(),
    }
    checked = summary_json.get("checked") or {}
    if checked:
        # The checked share is part of the verdict: shown beside the target it was reached on.
        env["checked"] = f"{checked.get('checked')} of {checked.get('of')} rules"
        env["checked.floor"] = f"{checked.get('floor')}: {'met' if checked.get('met') else 'NOT met'}"
        env.update({f"not_checked.{k}": str(n) for k, n in (checked.get("not_checked") or {}).items()})
    if summary_json.get("interrupted"):
        env["interrupted"] = str(summary_json["interrupted"])
    for service, data in sorted(summary_json.get("services", {}).items()):
        env[f"contract.{service}"] = str(data.get("contract_digest", ""))[:12]
        if service in base_urls:
            env[f"base_url.{service}"] = base_urls[service]
        if data.get("discovered"):  # which settings `run --discover` read from the target
            env[f"discovered.{service}"] = ", ".join(sorted(data["discovered"]))
    env.update({f"tool.{k}": v for k, v in _tool_versions().items()})
    return env


def write_results_extras(alluredir: Path, summary_json: dict[str, Any], base_urls: dict[str, str]) -> None:
    alluredir.mkdir(parents=True, exist_ok=True)
    (alluredir / "categories.json").write_text(json.dumps(CATEGORIES, indent=2), encoding="utf-8")
    env = environment(summary_json, base_urls)
    # Properties format: keys may not hold '=' or ':' unescaped; ours are dotted names.
    (alluredir / "environment.properties").write_text(
        "".join(f"{k}={v}\n" for k, v in env.items()), encoding="utf-8")
