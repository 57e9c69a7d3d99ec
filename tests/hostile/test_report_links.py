"""Report writes stay in the report directory (issue 34, item 7).

A link planted in a report directory where a run writes (``junit.xml``, ``history.json``,
``allure-results``) must not carry the write to where it points: the run refuses in one line
(exit 2) and the file it points at is untouched. And ``--report-dir X`` keeps its history in X,
never in ``X/../history.jsonl``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

TIMEOUT = 120
SELECTION = ("--service", "tokenrisk", "-k", "tokenrisk.domains.list")
VICTIM_TEXT = "the victim's own content\n"


def conformance(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT, env={**env, "XDG_CACHE_HOME": str(cwd / "cache")}, check=False)


@pytest.mark.parametrize("name", ["junit.xml", "history.json", "allure-results"])
def test_a_planted_link_does_not_redirect_a_write(name: str, tmp_path: Path) -> None:
    victim_dir = tmp_path / "elsewhere"
    victim_dir.mkdir()
    victim = victim_dir / "victim.txt"
    victim.write_text(VICTIM_TEXT, encoding="utf-8")
    report = tmp_path / "out" / "run"
    report.mkdir(parents=True)
    # A folder where a folder is written (allure-pytest empties it first), else the file itself.
    (report / name).symlink_to(victim_dir if name == "allure-results" else victim)
    proc = conformance(tmp_path, "run", *SELECTION, "--report-dir", str(report))
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 2 and "symbolic link" in proc.stderr, (proc.returncode, proc.stderr[-2000:])
    assert [p.name for p in victim_dir.iterdir()] == ["victim.txt"]
    assert victim.read_text(encoding="utf-8") == VICTIM_TEXT


def test_history_lives_in_the_report_dir_the_user_named(tmp_path: Path) -> None:
    proc = conformance(tmp_path, "run", *SELECTION, "--report-dir", "out/x")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not (tmp_path / "out" / "history.jsonl").exists(), "history appended beside the named directory"
    assert (tmp_path / "out" / "x" / "history.jsonl").is_file(), "no history kept in the named directory"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["x"]
