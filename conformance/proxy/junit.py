"""A proxy session as JUnit XML, shaped as a run's (``reporting/junit.py``): one ``<testsuite>`` per
service, one ``test_rule[<id>]`` testcase per rule classed ``conformance.<service>.<operation>``,
``<failure>`` for a rule the vendor broke, ``<skipped>`` for one not judged; and one testcase per
documented schema broken where no rule holds it (named by its JSON pointer)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from conformance.reporting.junit import classname
from conformance.reporting.summary import write_atomic

__all__ = ["write_junit"]


def write_junit(data: dict[str, Any], path: Path) -> None:
    """``data``: what summary.json holds (scrubbed already)."""
    root = ET.Element("testsuites", name="conformance proxy")
    for service, entry in data["services"].items():
        suite = ET.SubElement(root, "testsuite", name=service)
        cases = 0
        for rule in entry["rules"]:
            case = ET.SubElement(suite, "testcase", name=f"test_rule[{rule['id']}]",
                                 classname=classname(service, rule.get("operation")))
            if rule["status"] == "failed":
                ET.SubElement(case, "failure", message=rule["message"][:500]).text = rule["message"]
            elif rule["status"] != "passed":
                ET.SubElement(case, "skipped", message=f"{rule.get('skip_kind')}: {rule['message']}"[:500])
            cases += 1
        for loose in entry.get("proxy", {}).get("vendor_unattributed", []):
            if loose["verdict"] != "failed":
                continue
            case = ET.SubElement(suite, "testcase", name=f"openapi.yaml{loose['pointer']}",
                                 classname=classname(service, loose["operation"]))
            text = "\n".join(loose["examples"])
            ET.SubElement(case, "failure", message=text[:500]).text = text
            cases += 1
        failures = sum(1 for _ in suite.iter("failure"))
        skipped = sum(1 for _ in suite.iter("skipped"))
        suite.set("tests", str(cases))
        suite.set("failures", str(failures))
        suite.set("skipped", str(skipped))
        suite.set("errors", "0")
    write_atomic(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
