"""JUnit XML that CI systems can group: one testcase per rule, classed by service and operation.

pytest's junitxml names every testcase's class after the one test function all rules run
through (``test_rules``), so a JUnit consumer shows one flat list, and it writes every
``pytest.fail`` as a ``<failure>``, harness errors included. The properties (the rule's service,
operation, kind and source) go through pytest's own ``user_properties`` (plugin.py sets them at
collection); what pytest has no hook for is rewritten here, once, after junitxml wrote the file:
``classname="conformance.<service>.<operation>"`` and ``<error>`` for a harness error (the
target was not judged, which JUnit calls an error, not a failure).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.reporting.allure_meta import HARNESS_ERROR_MARK

__all__ = ["classname", "rewrite"]


def classname(service: str, operation: str | None) -> str:
    """``conformance.<service>.<operation>``; a dot inside the operation would add a level."""
    return f"conformance.{service}.{(operation or 'whole-service').replace('.', '_')}"


def _rule_of(name: str) -> str | None:
    return name[len("test_rule["):-1] if name.startswith("test_rule[") and name.endswith("]") else None


def rewrite(path: Path, classes: dict[str, str]) -> None:
    """``classes``: rule id -> classname. Testcases of other tests are left as pytest wrote them."""
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError):
        return  # no file (interrupted before junitxml wrote it): nothing to rewrite
    changed = False
    for case in tree.iter("testcase"):
        rule = _rule_of(case.get("name", ""))
        if rule is None or rule not in classes:
            continue
        case.set("classname", classes[rule])
        case.set("name", rule)
        for failure in case.findall("failure"):
            if failure.get("message", "").removeprefix("Failed: ").startswith(HARNESS_ERROR_MARK):
                failure.tag = "error"
        changed = True
    if not changed:
        return
    for suite in tree.iter("testsuite"):  # the counts follow the moved elements
        cases = list(suite.iter("testcase"))
        suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
        suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tree.write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, path)
