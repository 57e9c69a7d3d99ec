"""The README's scripts and tox share one checkout: neither may break the other."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A stand-in for python3 and for .venv/bin/python: `-m venv DIR` makes DIR/bin/python (itself);
# anything else (pip) is logged and succeeds. The scripts' own logic runs for real, pip does not.
FAKE_PYTHON = """#!/usr/bin/env bash
echo "$*" >> "$FAKE_LOG"
if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && chmod +x "$3/bin/python"; fi
exit 0
"""


def _checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup", tree / "scripts" / "setup")
    shutil.copy(ROOT / "scripts" / "vendor-clients.txt", tree / "scripts" / "vendor-clients.txt")
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    chromium = bin_dir / "chromium"  # present, so set-up never reaches for apt
    chromium.write_text("#!/bin/sh\nexit 0\n")
    chromium.chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHON": str(fake), "FAKE_LOG": str(tmp_path / "log"),
           "HOME": str(tmp_path)}
    return tree, env


def _setup(tree: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "scripts/setup"], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=60, check=False)


def test_setup_replaces_a_venv_redirect_file_left_by_tox(tmp_path: Path) -> None:
    tree, env = _checkout(tmp_path)
    (tree / ".venv").write_text(str(tree / ".tox" / "gate") + "\n")  # what tox 4 writes (PEP 832)
    proc = _setup(tree, env)
    assert proc.returncode == 0, proc.stderr
    assert (tree / ".venv").is_dir() and (tree / ".venv" / "bin" / "python").is_file()
    assert "removing the .venv file" in proc.stderr


def test_tox_is_told_not_to_write_a_venv_redirect() -> None:
    tox = configparser.ConfigParser()
    tox.read(ROOT / "tox.ini")
    assert tox.getboolean("tox", "venv_redirect") is False


def test_setup_skips_pip_when_the_installed_project_is_current(tmp_path: Path) -> None:
    tree, env = _checkout(tmp_path)
    log = tmp_path / "log"

    def pip_calls() -> int:
        calls = sum(1 for line in log.read_text().splitlines() if line.startswith("-m pip"))
        log.write_text("")
        return calls

    # Three: pip, the project, the vendors' clients (scripts/vendor-clients.txt).
    assert _setup(tree, env).returncode == 0 and pip_calls() == 3
    assert _setup(tree, env).returncode == 0 and pip_calls() == 0  # nothing changed: no reinstall
    with (tree / "pyproject.toml").open("a") as f:
        f.write("\n# a dependency changed\n")
    assert _setup(tree, env).returncode == 0 and pip_calls() == 3
    with (tree / "scripts" / "vendor-clients.txt").open("a") as f:
        f.write("\n# a client pin changed\n")
    assert _setup(tree, env).returncode == 0 and pip_calls() == 3


def test_tox_gate_installs_the_vendor_clients_scripts_setup_installs() -> None:
    """Else tox -e gate reports OK with three client test files skipped: it would test less than CI."""
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    assert "-r scripts/vendor-clients.txt" in tox["testenv:gate"]["commands_pre"]
    assert "-r scripts/vendor-clients.txt" in (ROOT / "scripts" / "setup").read_text(encoding="utf-8")
    wanted = [line for line in (ROOT / "scripts" / "vendor-clients.txt").read_text(encoding="utf-8").splitlines()
              if line and not line.startswith("#")]
    assert wanted and all("==" in line for line in wanted)  # pinned
