"""The Allure results a run writes: one result per rule, and no container the report cannot show
(reporting/allure_files.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.harness.inprocess import run_main


def test_every_rule_has_its_result_and_no_container_is_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    for name in [k for k in os.environ if k.startswith("CONFORMANCE_")]:
        monkeypatch.delenv(name)
    proc = run_main(["run", "--service", "tokenrisk", "-k", "auth", "--report-dir", str(tmp_path)], capsys)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = tmp_path / "allure-results"
    rules = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert rules and len(rules) == sum(summary["counts"].values())
    containers = [json.loads(p.read_text()) for p in results.glob("*-container.json")]
    # The session's fixtures hold every rule; the rule's own parameter held none and is gone.
    assert containers and all(c.get("children") for c in containers)


def test_a_result_file_that_cannot_be_written_is_one_line_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Result files are written by a background thread (reporting/allure_files.py): a failure there
    # reaches the run as one line when the files are flushed, and the run goes on.
    from allure_commons.model2 import TestResult

    from conformance.reporting.allure_files import _ResultFiles, flush_result_files

    logger = _ResultFiles(tmp_path / "results")
    (tmp_path / "results").rmdir()  # the directory is gone when the file is written

    logger.report_result(TestResult(name="rule", uuid="1"))
    flush_result_files()
    err = capsys.readouterr().err
    assert "1 Allure result file(s) not written: [Errno 2]" in err and "Traceback" not in err


def test_every_result_handed_to_the_writer_is_on_disk_after_the_flush(tmp_path: Path) -> None:
    from allure_commons.model2 import TestResult

    from conformance.reporting.allure_files import _ResultFiles, flush_result_files

    logger = _ResultFiles(tmp_path)
    for n in range(50):
        logger.report_result(TestResult(name=f"rule {n}", uuid=str(n)))
    flush_result_files()
    names = sorted(json.loads(p.read_text())["name"] for p in tmp_path.glob("*-result.json"))
    assert names == sorted(f"rule {n}" for n in range(50))
    assert not list(tmp_path.glob("*.tmp"))


def test_the_flush_ends_the_writer_thread(tmp_path: Path) -> None:
    # A run called in process (the harness's own tests) leaves no thread behind.
    import threading

    from allure_commons.model2 import TestResult

    from conformance.reporting.allure_files import _ResultFiles, flush_result_files

    logger = _ResultFiles(tmp_path)
    logger.report_result(TestResult(name="rule", uuid="1"))
    flush_result_files()
    assert not [t for t in threading.enumerate() if t.name.startswith("allure-files")]
    logger.report_result(TestResult(name="rule again", uuid="2"))  # a later file starts another
    flush_result_files()
    assert len(list(tmp_path.glob("*-result.json"))) == 2
