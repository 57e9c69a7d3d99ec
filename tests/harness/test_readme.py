"""Every command the README shows runs, in a temporary copy of the project, bounded in time.

The README is the first thing a newcomer runs; a command that no longer works there is a broken
promise no other test notices. Each line of a ```sh block is run as written, with three
allowances that keep the test a test:

* the test command collects instead of running (``--collect-only``): it is this very suite;
* a line ending in ``&`` (``conformance serve ... &``) starts in the background on a free port,
  and its printed ``export`` lines are set for the lines after it, as the README says to paste them;
* ``# exit N`` at the end of a line is the exit status it promises (else 0).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST_COMMAND = (ROOT / ".ci/run").read_text(encoding="utf-8").strip().splitlines()[-1]
_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
_EXIT = re.compile(r"#\s*exit (\d+)\s*$")


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [line.strip() for block in _BLOCK.findall(text) for line in block.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def test_the_readme_is_a_short_read_with_its_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 100  # five minutes; the rest is docs/reference.md
    commands = readme_commands()
    assert "bash scripts/run" in commands and TEST_COMMAND in commands
    for link in re.findall(r"\]\(([^)#]+)\)", readme):
        assert (ROOT / link).exists(), f"README links to {link}, which does not exist"


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkout without its history, venv and reports; the venv is the real one (set up)."""
    copy = tmp_path_factory.mktemp("readme") / "project"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", ".venv", ".tox", "reports", "__pycache__",
                                                              "*.egg-info"))
    (copy / ".venv").symlink_to(ROOT / ".venv")
    return copy


def _serve(line: str, copy: Path, env: dict[str, str], background: list[subprocess.Popen[str]]) -> None:
    """``conformance serve ... &``: started on a free port; its exports join ``env``."""
    argv = re.sub(r"--port \d+", "--port 0", line.split("#")[0].strip().rstrip("&")).split()
    proc = subprocess.Popen(argv, cwd=copy, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    background.append(proc)
    assert proc.stdout is not None
    for printed in proc.stdout:
        if printed.startswith("export "):
            name, _, value = printed[len("export "):].strip().partition("=")
            env[name] = value.strip("'")
            if name == "CONFORMANCE_ALLOW":
                return
    raise AssertionError(f"{line!r} printed no export lines")


def test_every_readme_command_works(project_copy: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONFORMANCE_", "PYTEST_", "SANDBOX_"))}
    background: list[subprocess.Popen[str]] = []
    try:
        for line in readme_commands():
            if line.endswith("&") or re.search(r"&\s*#", line):
                _serve(line, project_copy, env, background)
                continue
            expected = int(_EXIT.search(line).group(1)) if _EXIT.search(line) else 0  # type: ignore[union-attr]
            command = line.split("  #")[0].strip()
            if command == TEST_COMMAND:
                command += " --collect-only -q"  # this suite itself: it must collect, not run again
            proc = subprocess.run(["bash", "-c", command], cwd=project_copy, env=env, capture_output=True, text=True,
                                  timeout=300, check=False)
            assert proc.returncode == expected, (line, proc.stdout[-3000:], proc.stderr[-3000:])
            assert "Traceback" not in proc.stdout + proc.stderr, line
    finally:
        for proc in background:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()
