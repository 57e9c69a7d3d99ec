"""Triage across runs (flaky rules, gap drift) and the report's categories, on synthetic summaries."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conformance.reporting.allure_meta import CATEGORIES, allure3_config
from conformance.reporting.triage import compare, run_before

RULE = "svc.auth.key-required"


def summary(status: str, *, digest: str = "d1", observed: list[str] | None = None) -> dict[str, Any]:
    return {"services": {"svc": {
        "contract_digest": digest,
        "rules": [{"id": RULE, "status": status, "source": "docs/spec/v.md#a", "message": f"[{RULE}] m"}],
        "gaps": [{"id": "gap.order", "observed": observed or []}],
        "conflicts": [],
    }}}


def test_a_rule_that_keeps_flipping_is_flaky_not_a_new_failure() -> None:
    earlier = [summary("failed"), summary("passed")]
    result = compare(summary("passed"), summary("failed"), earlier)
    assert [c.rule for c in result.flaky] == [RULE] and not result.new_failures


def test_a_first_failure_after_steady_passes_is_new() -> None:
    result = compare(summary("passed"), summary("failed"), [summary("passed"), summary("passed")])
    assert [c.rule for c in result.new_failures] == [RULE] and not result.flaky


def test_flips_across_a_contract_change_are_not_flaky() -> None:
    earlier = [summary("failed", digest="old"), summary("passed", digest="old")]
    result = compare(summary("passed"), summary("failed"), earlier)
    assert [c.rule for c in result.new_failures] == [RULE] and not result.flaky


def test_gap_drift_reports_what_the_target_showed_before_and_after() -> None:
    result = compare(summary("passed", observed=["newest first"]), summary("passed", observed=["oldest first"]))
    assert [(d.id, d.before, d.after) for d in result.gap_drift] == [("gap.order", ["newest first"], ["oldest first"])]
    assert "gap.order" in result.markdown() and "oldest first" in result.markdown()
    unchanged = compare(summary("passed", observed=["x"]), summary("passed", observed=["x"]))
    assert not unchanged.gap_drift


def test_run_before_finds_the_previous_finished_run(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for name in ("20260101T000000Z-1", "20260102T000000Z-2", "20260103T000000Z-3"):
        (runs / name).mkdir(parents=True)
    (runs / "20260101T000000Z-1" / "summary.json").write_text(json.dumps(summary("passed")))
    (runs / "20260103T000000Z-3" / "summary.json").write_text(json.dumps(summary("passed")))
    # The unfinished run in between (no summary) is not a base.
    assert run_before(runs / "20260103T000000Z-3") == runs / "20260101T000000Z-1"
    assert run_before(runs / "20260101T000000Z-1") is None
    assert run_before(tmp_path) is None


def test_the_report_baseline_is_a_comparable_run_not_whatever_ran_last(tmp_path: Path) -> None:
    """A one-service fault run between two full runs is not the second full run's baseline."""
    runs = tmp_path / "runs"
    full = {"target": "sim", "services": {"a": {"rules": [{"id": "a.x", "status": "passed", "selected": True}]},
                                          "b": {"rules": [{"id": "b.x", "status": "passed", "selected": True}]}}}
    narrow = {"target": "sim", "services": {"a": {"rules": [{"id": "a.x", "status": "failed", "selected": True}]},
                                            "b": {"rules": [{"id": "b.x", "status": "not run", "selected": False}]}}}
    for name, data in (("20260101T000000Z-1", full), ("20260102T000000Z-2", narrow), ("20260103T000000Z-3", full)):
        (runs / name).mkdir(parents=True)
        (runs / name / "summary.json").write_text(json.dumps(data))
    assert run_before(runs / "20260103T000000Z-3") == runs / "20260102T000000Z-2"
    assert run_before(runs / "20260103T000000Z-3", comparable=True) == runs / "20260101T000000Z-1"


def _category(status: str, message: str) -> str | None:
    """Allure 2's matching: the first category whose status fits and whose pattern matches whole."""
    for category in CATEGORIES:
        pattern = category.get("messageRegex")
        if status in category["matchedStatuses"] and (pattern is None or re.fullmatch(pattern, message)):
            return str(category["name"])
    return None


def test_categories_sort_results_by_kind_not_wording() -> None:
    assert _category("broken", "HARNESS ERROR (not a target failure): TargetUnreachable: connection refused\n"
                               "more") == "Target unavailable"
    assert _category("broken", "HARNESS ERROR (not a target failure): CassetteMismatch") == \
        "Harness errors (not the target's fault)"
    assert _category("failed", "[svc.auth.key-required] got 200\nline two") == "Contract violations"
    assert _category("skipped", "[credential-missing] needs X") == "Credential or setting missing on this target"
    assert _category("skipped", "[unchecked] no check") == "Unchecked rules"


def test_allure3_config_is_plain_data_javascript_can_read() -> None:
    text = allure3_config(Path("/tmp/h.jsonl"))
    assert text.startswith("export default ") and text.rstrip().endswith(";")
    config = json.loads(text.removeprefix("export default ").rstrip().rstrip(";"))
    assert config["historyPath"] == "/tmp/h.jsonl"
    assert config["plugins"]["awesome"]["options"]["groupBy"] == ["epic", "feature", "story"]
    # JavaScript has no inline flags: one "(?s)" and Allure 3 refuses to build the report.
    assert all("(?" not in str(rule.get("messageRegex", "")) for rule in config["categories"]["rules"])
    assert "historyPath" not in json.loads(allure3_config(None).removeprefix("export default ").rstrip().rstrip(";"))


def test_every_skip_kind_has_its_category() -> None:
    from conformance.errors import SkipKind

    for kind in SkipKind:
        assert _category("skipped", f"[{kind.value}] some reason") not in (None, "Contract violations"), kind


def _service(rules: dict[str, str], digest: str = "d1") -> dict[str, Any]:
    return {"contract_digest": digest, "gaps": [], "conflicts": [],
            "rules": [{"id": r, "status": s, "source": "", "message": ""} for r, s in rules.items()]}


def test_a_fault_run_on_one_service_after_a_full_run_names_only_the_new_failure() -> None:
    """The README's sequence: a clean run of everything, then a fault run of one service (other
    services not selected) and a -k selection (rules "not run"): out of scope, never "removed"."""
    full = {"services": {"a": _service({"a.one": "passed", "a.two": "passed", "a.three": "failed"}),
                         "b": _service({"b.one": "passed", "b.two": "passed"})}}
    fault = {"services": {"a": _service({"a.one": "failed", "a.two": "not run", "a.three": "failed"})}}
    result = compare(full, fault)
    assert [c.rule for c in result.new_failures] == ["a.one"]
    assert [c.rule for c in result.still_failing] == ["a.three"]
    assert result.removed == [] and result.added == [] and not result.other
    assert result.services_not_in_this_run == ["b"] and result.not_in_this_run == {"a": ["a.two"]}
    assert result.compared == 2
    text = result.markdown()
    assert "removed" not in text and "service `b` not selected" in text and "`a`: 1 rules not selected" in text
    # The headline comes before any list, and empty sections do not push the news down.
    assert text.index("1 new failures") < text.index("## New failures (1)") < text.index("## Still failing (1)")
    assert "## Fixed" not in text and "No rule fixed, newly skipped, flaky or otherwise changed." in text
    # The other way round, the services the base did not select are out of scope too.
    back = compare(fault, full)
    assert back.services_not_in_base_run == ["b"] and not back.added and [c.rule for c in back.fixed] == ["a.one"]


def test_rules_a_changed_contract_gained_or_lost_are_added_or_removed() -> None:
    base = {"services": {"a": _service({"a.one": "passed", "a.old": "passed"}, digest="d1")}}
    current = {"services": {"a": _service({"a.one": "passed", "a.new": "passed"}, digest="d2")}}
    result = compare(base, current)
    assert (result.added, result.removed) == (["a.new"], ["a.old"])
    assert "## Rules added (1) / removed (1) by a contract change" in result.markdown()


def test_every_run_appends_its_history_line_the_way_allure_builds_it(tmp_path: Path) -> None:
    """Two runs without `conformance report`: both are in the history beside the runs, each line
    keyed the way Allure 3 keys history (md5(fullName).md5(parameters)), and a report of the
    second run is built from the first one's line only. Both runs are in this process (what they
    write is tested, not how a process starts), each in a fresh environment."""
    import hashlib

    from conformance.reporting.history import history_before, recorded_point
    from tests.harness.inprocess import run_isolated

    runs = []
    for extra in ([], ["--fault", "accepts-bearer"]):
        proc = run_isolated(("run", "--service", "presentations", "-k", "auth", *extra), cwd=tmp_path)
        assert proc.returncode in (0, 1), proc.stderr[-1000:]
        runs.append((tmp_path / "reports" / "latest").resolve())
    history = tmp_path / "reports" / "history.jsonl"
    lines = [json.loads(line) for line in history.read_text().splitlines()]
    assert len(lines) == 2
    # The key Allure 3.18 itself wrote for this rule (read from a history file it built).
    assert "74bd13a071cf5f3dbd97005068d178cc.8308819403d67cb37f9e4a15c9ffdef9" in lines[0]["testResults"]

    def md5(text: str) -> str:
        return hashlib.md5(text.encode()).hexdigest()

    case = md5(md5("conformance.presentations#presentations.auth.bearer-rejected"))  # md5 of the testCaseId
    key = f"{case}.{md5('conformance_case:Case(presentations.auth.bearer-rejected)')}"
    assert [line["testResults"][key]["status"] for line in lines] == ["passed", "failed"]
    assert case in lines[0]["knownTestCaseIds"]
    assert [recorded_point(run, history) for run in runs] == [line["uuid"] for line in lines]
    shown = tmp_path / "shown.jsonl"
    history_before(history, recorded_point(runs[1], history), shown)
    assert [json.loads(line)["uuid"] for line in shown.read_text().splitlines()] == [lines[0]["uuid"]]


def test_a_message_quoting_the_target_cannot_break_out_of_the_markdown() -> None:
    """A body with a fence, a heading, an HTML comment and emphasis stays quoted (issue 34, item 4):
    rendered, the comparison still shows the new failure, its message as code, and the gap drift."""
    from markdown_it import MarkdownIt

    hostile = "[svc] got 200 ``` `x`` <!-- *hidden* # All rules passed ](javascript:x) <b>"
    current = summary("failed", observed=["<!-- x", "```"])
    current["services"]["svc"]["rules"][0]["message"] = hostile
    tokens = MarkdownIt("commonmark").parse(compare(summary("passed"), current).markdown())
    inline = [c for t in tokens if t.type == "inline" for c in t.children or []]
    assert not [t.content for t in tokens + inline if t.type.startswith("html")]  # no comment, no tag
    assert hostile + "\n" in [t.content for t in tokens if t.type == "fence"]
    assert "<!-- x; ```" in [c.content for c in inline if c.type == "code_inline"]
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert any(h.startswith("New failures (1)") for h in headings) and "All rules passed" not in headings


def test_the_whole_message_is_shown_and_the_gap_names_its_service_once() -> None:
    current = summary("failed", observed=["x"])
    current["services"]["svc"]["rules"][0]["message"] = "[r] refused\n  expected: 401\n  sent:     GET /a\n  got: 200"
    page = compare(summary("passed"), current).markdown()
    assert "  expected: 401" in page and "  got: 200" in page  # not cut to the first line
    assert "`gap.order`" in page and "svc.gap.order" not in page


def test_gap_drift_is_scoped_to_runs_where_an_observing_rule_ran() -> None:
    """'nothing -> 200' because the base run never ran the rule that observes the gap is not drift."""
    rule, gap = "tokenrisk.observe.limit-headers", "tokenrisk.gap.limits"

    def run(status: str, observed: list[str]) -> dict[str, Any]:
        return {"services": {"tokenrisk": {"contract_digest": "d", "conflicts": [],
                                           "rules": [{"id": rule, "status": status, "skip_kind": "gap-observed"}],
                                           "gaps": [{"id": gap, "observed": observed}]}}}

    assert not compare(run("not run", []), run("skipped", ["x-ratelimit: 5"])).gap_drift
    [drift] = compare(run("skipped", []), run("skipped", ["x-ratelimit: 5"])).gap_drift
    assert (drift.id, drift.before, drift.after) == (gap, [], ["x-ratelimit: 5"])


def test_the_history_keeps_the_last_runs_it_is_told_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each full run adds ~600 KB; unbounded, a nightly history grows without end."""
    from conformance.errors import HarnessError
    from conformance.reporting.history import _append_line

    history = tmp_path / "history.jsonl"
    monkeypatch.setenv("CONFORMANCE_HISTORY_RUNS", "3")
    for i in range(5):
        _append_line(history, json.dumps({"uuid": str(i)}))
    assert [json.loads(line)["uuid"] for line in history.read_text().splitlines()] == ["2", "3", "4"]
    monkeypatch.setenv("CONFORMANCE_HISTORY_RUNS", "none")
    with pytest.raises(HarnessError, match="CONFORMANCE_HISTORY_RUNS"):
        _append_line(history, "{}")
