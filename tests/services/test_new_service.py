"""Adding a service edits no shared file: a copy of one service under a new id, in a copy of the
project, is found and runs end to end (its rules, its faults, its variants) with nothing shared
changed. Services are discovered from ``schemas/<id>/`` (conformance/layout.py) and their
packages from ``conformance/services/<id>/``; no loader, CLI or test list must learn the new id.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE, NEW = "tokenrisk", "tokenrisktwo"  # the smallest service, copied under an id nothing lists
TIMEOUT = 180


def _renamed(text: str) -> str:
    # Ids, check names, module paths and the package's own id: every place a service names itself.
    return (text.replace(f"{SOURCE}.", f"{NEW}.").replace(f"{SOURCE}/", f"{NEW}/")
            .replace(f"services.{SOURCE} ", f"services.{NEW} ")
            .replace(f"service: {SOURCE}", f"service: {NEW}").replace(f'"{SOURCE}"', f'"{NEW}"'))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("conformance", "schemas", "docs/spec"):
        shutil.copytree(ROOT / part, root / part, ignore=ignore)
    shared = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    for source, target in ((root / "schemas" / SOURCE, root / "schemas" / NEW),
                           (root / "conformance" / "services" / SOURCE, root / "conformance" / "services" / NEW)):
        shutil.copytree(source, target, ignore=ignore)
        for path in target.rglob("*"):
            if path.suffix in (".py", ".yaml"):
                path.write_text(_renamed(path.read_text(encoding="utf-8")), encoding="utf-8")
    # Nothing that existed before the new service was added has changed.
    assert {p: b for p, b in shared.items() if (root / p).read_bytes() != b} == {}
    return root


def _conformance(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(project), "CONFORMANCE_SCHEMAS_DIR": str(project / "schemas"),
           "CONFORMANCE_DOCS_DIR": str(project / "docs" / "spec")}
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT, check=False)


def test_a_copied_service_runs_end_to_end_without_a_shared_edit(project: Path) -> None:
    proc = _conformance(project, "run", "--service", NEW, "--no-allure", "--report-dir", str(project / "run"))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    summary = json.loads((project / "run" / "summary.json").read_text())
    rules = summary["services"][NEW]["rules"]
    assert rules and all(r["id"].startswith(f"{NEW}.") for r in rules)
    assert sum(r["status"] == "passed" for r in rules) >= len(rules) // 2, [r["status"] for r in rules]


def test_the_copied_service_proves_its_checks_like_the_original(project: Path) -> None:
    proc = _conformance(project, "selftest", "--service", NEW, "--workers", "1")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    last = proc.stdout.strip().splitlines()[-1]
    caught, total = last.split("kill matrix: ", 1)[1].split(" faults caught", 1)[0].split("/")
    assert caught == total and int(total) > 0, last
    assert "clean simulators: 1/1 pass" in last and "allowed variants" in last, last
