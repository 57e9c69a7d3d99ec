"""The run's verdict: one function decides it from a summary, and the summary carries it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.reporting.verdict import verdict


def summary(**counts: int) -> dict[str, Any]:
    return {"counts": counts, "skip_kinds": {}, "checked": {}, "missing_required": {}, "services": {}}


@pytest.mark.parametrize(("data", "code", "status"), [
    (summary(passed=3), 0, 0),
    (summary(passed=2, failed=1, error=1), 0, 1),  # a broken rule outweighs a harness error
    (summary(passed=2, error=1), 0, 2),
    (summary(passed=2), 3, 2),  # pytest itself broke outside the rules
    (summary(passed=2, failed=1), 2, 130),  # interrupted first: no verdict on the target
    (summary(skipped=3), 0, 3),  # nothing checked
    ({**summary(passed=1, skipped=1), "skip_kinds": {"cassette-missing": 1}}, 0, 3),
    ({**summary(passed=1, skipped=1), "skip_kinds": {"run-deadline": 1}}, 0, 3),
    ({**summary(passed=1), "checked": {"below_floor": "checked 1 of 10"}}, 0, 3),
])
def test_verdicts(data: dict[str, Any], code: int, status: int) -> None:
    decided = verdict(data, pytest_code=code)
    assert decided.status == status
    assert bool(decided.reason) == (status not in (0, 1))


def test_allow_skips_accepts_an_incomplete_run_but_not_a_failure() -> None:
    assert verdict(summary(skipped=3), allow_skips=True).status == 0
    assert verdict(summary(failed=1), allow_skips=True).status == 1


def test_the_summary_and_a_merge_carry_the_verdict_the_exit_status_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance import interrupts
    from conformance.reporting.merge import merge_summaries
    from tests.harness.inprocess import run_main

    monkeypatch.setattr(interrupts, "_state", interrupts._State())  # the run installs its own, as in test_cli
    code = run_main(["run", "--service", "presentations", "--fault", "accepts-bearer", "-k", "auth", "--no-allure",
                     "--report-dir", str(tmp_path / "r")], capsys).returncode
    data = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    assert code == 1 and data["verdict"] == {"exit_status": 1, "reason": ""}
    assert merge_summaries([(tmp_path / "r", data)])["verdict"]["exit_status"] == 1
