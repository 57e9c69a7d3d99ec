"""Run directories merged into one: the CI shape with one job per service (a matrix) and a final
job that reports the night as one run.

Each shard is a run directory (``summary.json``, ``triage.md``, ``junit.xml``,
``allure-results/``) over its own services. The merge refuses shards that cannot make one run:
a service checked in two of them (which verdict would stand?), or different targets, profiles,
harness versions or commits (one verdict per rule needs one harness and one target kind).
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, cast

from conformance.errors import UsageError
from conformance.files import SUMMARY, FileBounds, read_text
from conformance.reporting.checked import checked_share
from conformance.reporting.summary import write_atomic
from conformance.reporting.triage import load_summary
from conformance.reporting.verdict import verdict
from conformance.settings import MinChecked

__all__ = ["merge_runs", "merge_summaries"]

# Must agree across shards: a merged run has one of each.
_SAME = ("target", "profile", "harness_version", "commit")
# Written again for the merged run (the shards' copies name only their own services).
_EXTRAS = ("categories.json", "environment.properties", "executor.json")
# A shard's junit.xml is pytest's, regrouped (reporting/junit.py): no DTD, five levels (testsuites,
# testsuite, testcase, failure or properties, property), ~1 MB a service. 64 MiB as a summary.
JUNIT = FileBounds("junit.xml", 64 * 1024 * 1024, max_depth=16)
_FEED = 1 << 16


def merge_summaries(summaries: list[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    """One summary.json from several shards' (each given with where it came from, for messages)."""
    if not summaries:
        raise UsageError("nothing to merge: name one or more run directories")
    first_path, first = summaries[0]
    for path, data in summaries[1:]:
        for key in _SAME:
            if data.get(key) != first.get(key):
                raise UsageError(f"cannot merge {first_path} and {path}: {key} differs "
                                 f"({first.get(key)!r} vs {data.get(key)!r})")
    merged: dict[str, Any] = {key: first.get(key) for key in _SAME}
    merged["generated_at"] = max(str(d.get("generated_at", "")) for _p, d in summaries)
    services: dict[str, Any] = {}
    owner: dict[str, Path] = {}
    for path, data in summaries:
        for service, body in data["services"].items():
            if service in services:
                raise UsageError(f"cannot merge: service {service} is in both {owner[service]} and {path}")
            services[service], owner[service] = body, path
    for name in ("counts", "skip_kinds"):
        total: dict[str, int] = {}
        for _p, data in summaries:
            for key, value in (data.get(name) or {}).items():
                total[key] = total.get(key, 0) + int(value)
        merged[name] = total
    # The checked share is a ratio over the selected rules: recomputed from the merged rules
    # (summing the shards' would double the floor's rounding and lose which rules were selected).
    merged["checked"] = _checked(summaries, services)
    merged["elapsed_seconds"] = max(float(d.get("elapsed_seconds") or 0.0) for _p, d in summaries)  # side by side
    merged["interrupted"] = next((d["interrupted"] for _p, d in summaries if d.get("interrupted")), None)
    merged["missing_required"] = {s: names for _p, d in summaries
                                  for s, names in (d.get("missing_required") or {}).items()}
    merged["services"] = services
    merged["merged_from"] = [str(p) for p, _d in summaries]
    merged["verdict"] = verdict(merged).as_json()  # decided as a run's is, from the merged rules
    return merged


def _checked(summaries: list[tuple[Path, dict[str, Any]]], services: dict[str, Any]) -> dict[str, Any]:
    """The merged run's checked share over every shard's selected rules, held against the shards'
    floor (one floor: they ran with one setting; different floors are refused)."""
    floors = {(d.get("checked") or {}).get("floor") for _p, d in summaries}
    if len(floors) > 1:
        raise UsageError(f"cannot merge: the shards ran with different --min-checked floors "
                         f"({', '.join(sorted(map(str, floors)))})")
    floor_text = floors.pop() if floors else None
    floor = MinChecked.parse(floor_text.removesuffix(" rules")) if floor_text else None  # str(): "30 rules"
    rules = [rule for body in services.values() for rule in body.get("rules", [])
             # Shards from before "selected": a rule that ran was selected.
             if rule.get("selected", rule.get("status") != "not run")]
    return checked_share(rules, floor).as_json()


def merge_runs(sources: list[Path], out: Path) -> dict[str, Any]:
    """Writes ``out`` as one run directory from the shards ``sources``; returns its summary."""
    if out.resolve() in {s.resolve() for s in sources}:
        raise UsageError(f"the merged run {out} cannot be one of the shards")
    merged = merge_summaries([(s, load_summary(s)) for s in sources])
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "summary.json", json.dumps(merged, indent=2))
    write_atomic(out / "triage.md", _triage(merged, [s for s in sources if s.is_dir()]))
    junit = _junit([s / "junit.xml" for s in sources if (s / "junit.xml").is_file()], merged["checked"])
    if junit is not None:
        write_atomic(out / "junit.xml", junit)
    results = [s / "allure-results" for s in sources if (s / "allure-results").is_dir()]
    if results:
        _allure(results, out / "allure-results", merged)
    return merged


def _triage(merged: dict[str, Any], sources: list[Path]) -> str:
    """The shards' failure sections under one heading (each shard wrote them from its outcomes)."""
    sections: list[str] = []
    for source in sources:
        try:  # bounded as every file read (a link to /dev/zero is refused, not read until memory runs out)
            text = read_text(source / "triage.md", SUMMARY, UsageError)
        except UsageError:
            continue
        start = text.find("\n## ")
        if start >= 0:
            sections.append(text[start + 1:].rstrip("\n"))
    lines = ["# Triage", "", f"Target `{merged['target']}`, profile `{merged['profile']}`.", ""]
    lines += sections if sections else ["No rule failed."]
    return "\n".join(lines) + "\n"


def _junit(paths: list[Path], checked: dict[str, Any]) -> str | None:
    """Every shard's suites (one per service, reporting/junit.py), a suite two shards share made
    one with summed counts; each suite's conformance properties the merged run's checked share
    (each shard's named only its own rules)."""
    if not paths:
        return None
    suites: dict[str, ET.Element] = {}
    others: dict[str, str] = {}
    for path in paths:
        root = _junit_root(path)
        for shard in ([root] if root.tag == "testsuite" else root.findall("testsuite")):
            suite = suites.get(shard.get("name", ""))
            if suite is None:
                suite = suites[shard.get("name", "")] = ET.Element("testsuite", dict(shard.attrib))
                for key in ("tests", "errors", "failures", "skipped"):
                    suite.set(key, "0")
                suite.set("time", "0")
            for key in ("tests", "errors", "failures", "skipped"):
                suite.set(key, str(int(suite.get(key, "0")) + _number(shard, key, path, int)))
            suite.set("time", f"{float(suite.get('time', '0')) + _number(shard, 'time', path, float):.3f}")
            for child in shard:
                if child.tag != "properties":
                    suite.append(child)
                    continue
                for prop in child:  # other global properties kept once; conformance.* recomputed below
                    if not prop.get("name", "").startswith("conformance."):
                        others.setdefault(prop.get("name", ""), prop.get("value", ""))
    if not suites:
        return None
    props: dict[str, Any] = {**others, "conformance.checked": checked["checked"], "conformance.rules": checked["of"],
                             "conformance.checked_line": checked["line"],
                             "conformance.floor": checked["floor"] or "none", "conformance.floor_met": checked["met"]}
    props.update({f"conformance.not_checked.{k}": n for k, n in checked["not_checked"].items()})
    root = ET.Element("testsuites", {"name": "conformance"})
    for suite in suites.values():
        properties = ET.Element("properties")
        for name, value in props.items():
            ET.SubElement(properties, "property", {"name": name, "value": str(value)})
        suite.insert(0, properties)
        root.append(suite)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def _junit_root(path: Path) -> ET.Element:
    """The root of a shard's junit.xml, read with bounds as every file (conformance/files.py): its
    size; no DTD (an entity bomb is bounded only by the amplification limit of expat 2.4 and later);
    and its depth, measured as it is parsed (ElementTree writes a tree recursively: a shard nested
    100k deep was a RecursionError, "internal error, a bug")."""
    text = read_text(path, JUNIT, UsageError)
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise UsageError(f"{path}: holds a DTD (<!DOCTYPE or <!ENTITY), which no junit.xml a run writes holds; "
                         "not read")
    parser: Any = ET.XMLPullParser(events=("start", "end"))  # typeshed's generic varies by version
    root: ET.Element | None = None
    depth = 0
    try:
        for offset in range(0, len(text), _FEED):
            parser.feed(text[offset:offset + _FEED])
            for event, element in parser.read_events():
                root = cast(ET.Element, element) if root is None else root
                depth += 1 if event == "start" else -1
                if depth > JUNIT.max_depth:
                    raise UsageError(f"{path}: nested deeper than {JUNIT.max_depth} levels, the bound of a "
                                     f"{JUNIT.what}; not read")
        parser.close()
    except ET.ParseError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    if root is None:
        raise UsageError(f"cannot read {path}: no element")
    return root


def _number(suite: ET.Element, key: str, path: Path, kind: type[int] | type[float]) -> int | float:
    """A testsuite's count or time, as a number (pytest writes them; another tool may not)."""
    try:
        return kind(suite.get(key, "0"))
    except ValueError:
        raise UsageError(f"{path}: a testsuite's {key} is {suite.get(key, '')[:40]!a}, not a number") from None


def _allure(results: list[Path], out: Path, merged: dict[str, Any]) -> None:
    """Every shard's result, container and attachment file (uuid-named: they never clash), and the
    categories and environment written again for the merged run."""
    from conformance.reporting.allure_meta import write_results_extras

    out.mkdir(parents=True, exist_ok=True)
    base_urls: dict[str, str] = {}
    for source in results:
        for path in source.iterdir():
            if path.name == "environment.properties":
                for line in read_text(path, SUMMARY, UsageError).splitlines():
                    key, _sep, value = line.partition("=")
                    if key.startswith("base_url."):
                        base_urls[key.removeprefix("base_url.")] = value
            if path.name in _EXTRAS or not path.is_file():
                continue
            if (out / path.name).exists():
                raise UsageError(f"cannot merge: {path.name} is in two shards' allure-results")
            shutil.copy2(path, out / path.name)
    write_results_extras(out, merged, base_urls)

