"""--record-mode in pytest-recording's vocabulary: none, once, new_episodes, all, rewrite."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.harness.inprocess import run_isolated

RULE = "presentations.auth.key-required"


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """In this process, in a fresh environment: what is tested is what each mode writes and answers."""
    return run_isolated(("run", "--service", "presentations", "--no-allure", "-k", "key-required",
                         "--cassette-dir", str(tmp_path / "c"), "--report-dir", str(tmp_path / "r"), *args))


def cassette(tmp_path: Path) -> Path:
    return tmp_path / "c" / "presentations" / f"{RULE}.yaml"


def test_none_records_nothing_and_once_records_only_what_is_missing(tmp_path: Path) -> None:
    assert run(tmp_path, "--record-mode", "none").returncode == 0
    assert not cassette(tmp_path).exists()
    assert run(tmp_path, "--record-mode", "once").returncode == 0
    first = cassette(tmp_path).read_text()
    # A cassette that exists is left as it is (here: a marker that a rewrite would drop).
    data = json.loads(first)
    data["interactions"][0]["response"]["headers"]["x-marker"] = ["kept"]
    cassette(tmp_path).write_text(json.dumps(data))
    assert run(tmp_path, "--record-mode", "once").returncode == 0
    assert "x-marker" in cassette(tmp_path).read_text()
    assert run(tmp_path, "--record-mode", "rewrite").returncode == 0
    assert "x-marker" not in cassette(tmp_path).read_text()
    assert json.loads(cassette(tmp_path).read_text())["interactions"]


def test_once_over_a_cassette_missing_a_request_says_how_to_record_it(tmp_path: Path) -> None:
    assert run(tmp_path, "--record-mode", "once").returncode == 0
    data = json.loads(cassette(tmp_path).read_text())
    data["interactions"] = data["interactions"][:1]
    for item in data["interactions"]:
        item["request"]["uri"] = item["request"]["uri"].split("?")[0] + "/elsewhere"
    cassette(tmp_path).write_text(json.dumps(data))
    proc = run(tmp_path, "--record-mode", "once")
    assert proc.returncode == 2, proc.stdout[-1500:]
    assert "--record-mode new_episodes" in proc.stdout and "Traceback" not in proc.stdout
    assert run(tmp_path, "--record-mode", "new_episodes").returncode == 0
    assert "/elsewhere" in cassette(tmp_path).read_text()  # kept; the new requests added beside it


@pytest.mark.parametrize("mode", ["sometimes", ""])
def test_an_unknown_record_mode_is_one_clear_line(tmp_path: Path, mode: str) -> None:
    proc = run(tmp_path, "--record-mode", mode)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr and "Traceback" not in proc.stderr


def test_record_mode_from_the_environment_is_checked_too(tmp_path: Path) -> None:
    proc = run_isolated(("run", "--service", "presentations", "--no-allure", "--report-dir", str(tmp_path / "r")),
                        env={"CONFORMANCE_RECORD_MODE": "sometimes"})
    assert proc.returncode == 2 and "unknown record mode 'sometimes'" in proc.stderr
