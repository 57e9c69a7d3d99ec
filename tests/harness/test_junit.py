"""junit.xml against the shape of the common JUnit XSD (junit-10.xsd, the Surefire-derived schema
pytest's documentation refers to when it says testcase properties break validation).

The schema's content model is written here as data (which element may hold which, and the
attributes it requires), so the test needs no XSD engine and no network: a testcase-level
``<properties>`` or a suite without its counts fails it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.reporting.junit import rewrite

# element -> (children it may hold, attributes it must carry). <error> is what Jenkins' and
# GitLab's readers take for a harness error; junit-10.xsd spells that element `errors`.
_MODEL: dict[str, tuple[set[str], set[str]]] = {
    "testsuites": ({"testsuite"}, set()),
    "testsuite": ({"testsuite", "properties", "testcase", "system-out", "system-err"},
                  {"name", "tests", "failures", "errors"}),
    "properties": ({"property"}, set()),
    "property": (set(), {"name", "value"}),
    "testcase": ({"skipped", "error", "failure", "system-out", "system-err"}, {"name"}),
    "failure": (set(), set()), "error": (set(), set()), "skipped": (set(), set()),
    "system-out": (set(), set()), "system-err": (set(), set()),
}
_TIME = r"^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?$"


def violations(element: ET.Element, where: str = "") -> list[str]:
    import re

    here = f"{where}/{element.tag}"
    if element.tag not in _MODEL:
        return [f"{here}: element not in the schema"]
    allowed, required = _MODEL[element.tag]
    out = [f"{here}: missing attribute {name}" for name in sorted(required - set(element.attrib))]
    time = element.get("time")
    if element.tag in ("testsuites", "testsuite") and time and not re.match(_TIME, time):
        out.append(f"{here}: time {element.get('time')!r} is not a SUREFIRE_TIME")
    for child in element:
        if child.tag not in allowed:
            out.append(f"{here}: <{child.tag}> not allowed inside <{element.tag}>")
        else:
            out += violations(child, here)
    return out


_PYTEST_WROTE = """<?xml version="1.0" encoding="utf-8"?>
<testsuites name="pytest tests"><testsuite name="conformance" errors="0" failures="1" skipped="1" tests="3"
 time="0.5" timestamp="t" hostname="h"><properties><property name="conformance.checked" value="2" /></properties>
<testcase classname="conformance.suites.test_rules" name="test_rule[a.one]" time="0.1"><properties>
<property name="service" value="a" /><property name="kind" value="auth" /></properties>
<failure message="Failed: [a.one] broke">[a.one] broke</failure></testcase>
<testcase classname="conformance.suites.test_rules" name="test_rule[b.two]" time="0.2"><properties>
<property name="service" value="b" /></properties><skipped message="[gap-observed] x" /></testcase>
<testcase classname="conformance.suites.test_rules" name="test_rule[a.three]" time="0.2"><properties>
<property name="service" value="a" /></properties><system-out>printed</system-out></testcase>
</testsuite></testsuites>"""


def test_pytest_output_breaks_the_schema_and_the_rewrite_mends_it(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(_PYTEST_WROTE, encoding="utf-8")
    assert any("<properties> not allowed inside <testcase>" in v for v in violations(ET.parse(path).getroot()))
    rewrite(path, {"a.one": "conformance.a.GET /x", "b.two": "conformance.b.GET /y",
                   "a.three": "conformance.a.whole-service"})
    root = ET.parse(path).getroot()
    assert violations(root) == []
    suites = {s.get("name"): s for s in root}
    assert list(suites) == ["conformance.a", "conformance.b"]  # one suite per service
    a = suites["conformance.a"]
    assert (a.get("tests"), a.get("failures"), a.get("skipped"), a.get("errors")) == ("2", "1", "0", "0")
    assert {p.get("name") for p in a.iter("property")} == {"conformance.checked"}  # the run's verdict
    three = a.find("testcase[@name='a.three']")
    assert three is not None and three.findtext("system-out") == "service: a\n\nprinted"
    assert (root.get("tests"), root.get("failures")) == ("3", "1")
