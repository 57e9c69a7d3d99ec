"""JUnit XML that CI systems can group: one testcase per rule, classed by service and operation.

pytest's junitxml names every testcase's class after the one test function all rules run
through (``test_rules``), so a JUnit consumer shows one flat list, and it writes every
``pytest.fail`` as a ``<failure>``, harness errors included. The properties (the rule's service,
operation, kind and source) go through pytest's own ``user_properties`` (plugin.py sets them at
collection); what pytest has no hook for is rewritten here, once, after junitxml wrote the file:
``classname="conformance.<service>.<operation>"``, ``<error>`` for a harness error (the
target was not judged, which JUnit calls an error, not a failure), one ``<testsuite>`` per service,
and each testcase's properties as text (the JUnit XSD allows properties on suites only).
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


def _properties_as_text(case: ET.Element) -> None:
    """A testcase's ``<properties>`` (service, operation, kind, source) as the first lines of its
    ``<system-out>``: the JUnit XSD (junit-10.xsd, which pytest documents record_property as
    breaking) allows properties only on a testsuite, and readers show system-out beside the case."""
    props = case.find("properties")
    if props is None:
        return
    case.remove(props)
    lines = [f"{p.get('name')}: {p.get('value')}" for p in props.iter("property")]
    out = case.find("system-out")
    if out is None:
        out = ET.SubElement(case, "system-out")
        out.text = "\n".join(lines)
    else:
        out.text = "\n".join(lines) + "\n\n" + (out.text or "")


def _count(suite: ET.Element, cases: list[ET.Element]) -> None:
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    suite.set("time", f"{sum(float(c.get('time') or 0) for c in cases):.3f}")


def rewrite(path: Path, classes: dict[str, str]) -> None:
    """``classes``: rule id -> classname. Testcases of other tests are left as pytest wrote them.

    The rules' testcases are regrouped into one ``<testsuite name="conformance.<service>">`` per
    service (GitLab and similar readers show a suite per service, not one suite of every rule);
    the run's properties (the checked share) are on each, as the run's verdict."""
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError):
        return  # no file (interrupted before junitxml wrote it): nothing to rewrite
    root = tree.getroot()
    suites = [root] if root.tag == "testsuite" else list(root.findall("testsuite"))
    by_service: dict[str, list[ET.Element]] = {}
    run_properties: list[ET.Element] = []
    template: ET.Element | None = None
    for suite in suites:
        props = suite.find("properties")
        if props is not None:
            run_properties += list(props)
        for case in list(suite.findall("testcase")):
            rule = _rule_of(case.get("name", ""))
            if rule is None or rule not in classes:
                continue
            suite.remove(case)
            case.set("classname", classes[rule])
            case.set("name", rule)
            for failure in case.findall("failure"):
                if failure.get("message", "").removeprefix("Failed: ").startswith(HARNESS_ERROR_MARK):
                    failure.tag = "error"
            _properties_as_text(case)
            by_service.setdefault(classes[rule].split(".")[1], []).append(case)
            template = suite
    if template is None:
        return
    top = ET.Element("testsuites", {"name": "conformance"})
    for suite in suites:  # what is left: other tests' cases, kept in their suite
        if suite.findall("testcase"):
            _count(suite, suite.findall("testcase"))
            top.append(suite)
    for service, cases in by_service.items():
        suite = ET.SubElement(top, "testsuite", {"name": f"conformance.{service}"})
        for name in ("timestamp", "hostname"):
            if template.get(name):
                suite.set(name, template.get(name, ""))
        if run_properties:
            props = ET.SubElement(suite, "properties")
            props.extend(ET.Element("property", p.attrib) for p in run_properties)
        suite.extend(cases)
        _count(suite, cases)
    everything = [c for s in top for c in s.findall("testcase")]
    for name in ("tests", "failures", "errors"):
        top.set(name, str(sum(int(s.get(name) or 0) for s in top)))
    top.set("time", f"{sum(float(c.get('time') or 0) for c in everything):.3f}")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    ET.ElementTree(top).write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, path)
