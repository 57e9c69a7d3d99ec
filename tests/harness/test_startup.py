"""Start-up (issue 31): the light commands import nothing heavy; the heavy modules load inside the
command that needs them.

Which modules are imported, not how long it takes: times depend on the machine and belong in
benchmarks/startup.py. Each case runs in a fresh interpreter, since this one has them all loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# What made every command pay ~2.5 s before it did anything.
HEAVY = {"jsonschema", "httpx", "hypothesis", "schemathesis", "pytest", "starlette", "uvicorn", "yaml", "allure",
         "tenacity", "vcr"}

COMMANDS = ["run", "discover", "serve", "proxy", "selftest", "rules", "triage", "report", "merge", "env"]

_PROBE = """
import json, sys
from conformance.cli import main
try:
    code = main(json.loads(sys.argv[1]))
except SystemExit as exc:
    code = exc.code
loaded = {m.split(".")[0] for m in sys.modules}
print(json.dumps({"code": code, "heavy": sorted(loaded & set(json.loads(sys.argv[2])))}))
"""


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    return {**env, "XDG_CACHE_HOME": str(cache), **extra}


def _probe(args: list[str], env: dict[str, str]) -> tuple[object, list[str], str]:
    """(exit code, heavy modules imported, stdout before the probe's line) of ``main(args)``."""
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(args), json.dumps(sorted(HEAVY))],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    *output, last = proc.stdout.splitlines()
    result = json.loads(last)
    return result["code"], result["heavy"], "\n".join(output)


def _conformance(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance", *args], capture_output=True, text=True, timeout=120,
                          env=env, check=False)


@pytest.mark.parametrize("args", [["--version"], ["--help"], *[[c, "--help"] for c in COMMANDS]],
                         ids=lambda a: " ".join(a))
def test_version_and_help_import_nothing_heavy(args: list[str], tmp_path: Path) -> None:
    code, heavy, output = _probe(args, _env(tmp_path))
    assert code == 0 and output
    assert heavy == []


def test_a_mistyped_command_imports_nothing_heavy(tmp_path: Path) -> None:
    code, heavy, _ = _probe(["rnu"], _env(tmp_path))
    assert code == 2 and heavy == []


def test_env_imports_nothing_heavy_once_its_facts_are_cached(tmp_path: Path) -> None:
    cold = _conformance(["env"], _env(tmp_path))  # the first env loads every contract and caches what it shows
    assert cold.returncode == 0, cold.stderr
    code, heavy, output = _probe(["env"], _env(tmp_path))
    assert code == 0 and heavy == []
    assert output.strip() == cold.stdout.strip()


def test_env_from_the_cache_shows_this_environment_values(tmp_path: Path) -> None:
    _conformance(["env", "--service", "scanning"], _env(tmp_path))
    warm = _conformance(["env", "--service", "scanning"], _env(tmp_path, CONFORMANCE_SCANNING_PRODUCT="elsewhere"))
    line = next(x for x in warm.stdout.splitlines() if x.startswith("CONFORMANCE_SCANNING_PRODUCT "))
    assert "'elsewhere' [environment]" in line


def test_an_edited_contract_is_read_again(tmp_path: Path) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(Path(__file__).resolve().parents[2] / "schemas" / "tokenrisk", schemas / "tokenrisk")
    env = _env(tmp_path / "cache", CONFORMANCE_SCHEMAS_DIR=str(schemas))
    first = _conformance(["env", "--service", "tokenrisk"], env)
    assert first.returncode == 0, first.stderr
    rules = schemas / "tokenrisk" / "rules.yaml"
    lines = rules.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, x in enumerate(lines) if x.startswith("title:"))
    lines[at] = "title: An edited title\n"
    rules.write_text("".join(lines), encoding="utf-8")
    second = _conformance(["env", "--service", "tokenrisk"], env)
    assert "# tokenrisk: An edited title" in second.stdout, second.stdout + second.stderr


def test_an_unknown_service_is_still_one_line(tmp_path: Path) -> None:
    proc = _conformance(["env", "--service", "nope"], _env(tmp_path))
    assert proc.returncode == 2 and "unknown service 'nope'" in proc.stderr and "Traceback" not in proc.stderr


def test_light_service_list_matches_the_loader(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from conformance.cli import ids
    from conformance.contract import loader

    assert ids.available_services() == loader.available_services()
    (tmp_path / "social").mkdir()
    (tmp_path / "social" / "rules.yaml").write_text("{}", encoding="utf-8")
    monkeypatch.setenv("CONFORMANCE_SCHEMAS_DIR", str(tmp_path))
    assert ids.available_services() == loader.available_services() == ["social"]


def test_serve_imports_the_contract_only_for_options() -> None:
    # Its first answer is due within a second: the contract (jsonschema, yaml) is not loaded
    # unless --option gives path settings to sort out.
    probe = ("import sys\nfrom conformance.cli.serve import _path_settings\n"
             "assert _path_settings('scanning', {}) == {}\nprint('conformance.contract' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    assert proc.stdout.strip() == "False", proc.stderr
