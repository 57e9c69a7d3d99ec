"""The configuration file (conformance.toml, docs/configuration.md): named targets, precedence
environment > file > default, sources shown by `conformance env`, credentials only by reference,
and one line, exit 2, for every bad file."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.harness.inprocess import run_main

CLI = Callable[..., subprocess.CompletedProcess[str]]

# A target per kind of use: a sandbox over http with a credential by reference, and a local one
# on the simulators that configures one service.
GOOD = """
[targets.sandbox]
target = "http"
profile = "nightly"
allow = ["write"]
run_seconds = 6000
min_checked = "50%"

[targets.sandbox.scanning]
base_url = "${TEST_SCANNING_URL}"
api_key = "${TEST_SCANNING_KEY}"
free_api_key = "${TEST_SCANNING_FREE_KEY:-}"
sample_query = "port:22"

[targets.local]
target = "sim"
run_seconds = 900

[targets.local.presentations]
template_id = "from-the-file"
"""


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Iterator[CLI]:
    """``conformance ARGS`` in this process, from ``tmp_path``, with no CONFORMANCE_ or TEST_
    variable set; the environment is put back afterwards (a run puts the file's values in it)."""
    from conformance import interrupts

    saved = dict(os.environ)
    for name in [k for k in os.environ if k.startswith(("CONFORMANCE_", "TEST_", "SANDBOX_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setattr(interrupts, "_state", interrupts._State())
    monkeypatch.chdir(tmp_path)

    def call(*args: str) -> subprocess.CompletedProcess[str]:
        return run_main(args, capsys)

    yield call
    os.environ.clear()
    os.environ.update(saved)


def _file(folder: Path, text: str = GOOD) -> Path:
    path = folder / "conformance.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _line(output: str, variable: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(variable + " "))


def _one_line_exit_2(proc: subprocess.CompletedProcess[str], *fragments: str) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# --- precedence and sources -----------------------------------------------------------------


def test_env_shows_each_value_and_where_it_came_from(cli: CLI, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    config = _file(tmp_path)
    monkeypatch.setenv("TEST_SCANNING_URL", "https://sandbox.example")
    monkeypatch.setenv("TEST_SCANNING_KEY", "sk-not-printed-3141")
    monkeypatch.setenv("CONFORMANCE_RUN_SECONDS", "77")  # the environment beats the file's 6000
    proc = cli("env", "--config", str(config), "--target-name", "sandbox", "--service", "scanning")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"configuration file: {config}, target sandbox" in out
    assert "77 [environment]" in _line(out, "CONFORMANCE_RUN_SECONDS")
    assert "http [file: targets.sandbox.target]" in _line(out, "CONFORMANCE_TARGET")
    assert "write [file: targets.sandbox.allow]" in _line(out, "CONFORMANCE_ALLOW")
    assert "60 [default]" in _line(out, "CONFORMANCE_REQUEST_SECONDS")
    assert "https://sandbox.example [file: targets.sandbox.scanning.base_url]" in _line(out,
                                                                                        "CONFORMANCE_SCANNING_BASE_URL")
    assert "port:22 [file: targets.sandbox.scanning.sample_query]" in _line(out, "CONFORMANCE_SCANNING_SAMPLE_QUERY")
    # A credential: redacted wherever it came from; an optional one whose reference is unset: unset.
    assert "<redacted> [file: targets.sandbox.scanning.api_key]" in _line(out, "CONFORMANCE_SCANNING_API_KEY")
    assert "(unset)" in _line(out, "CONFORMANCE_SCANNING_FREE_API_KEY")
    monkeypatch.setenv("CONFORMANCE_SCANNING_FREE_API_KEY", "sk-env-2718")
    again = cli("env", "--config", str(config), "--target-name", "sandbox", "--service", "scanning")
    assert "<redacted> [environment]" in _line(again.stdout, "CONFORMANCE_SCANNING_FREE_API_KEY")
    assert "sk-not-printed-3141" not in out + again.stdout and "sk-env-2718" not in again.stdout


def test_precedence_environment_over_file_over_default(cli: CLI, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """What a run reads: the file fills what the environment leaves unset (or empty); the rest
    keeps its default."""
    from conformance.cli import configfile
    from conformance.settings import Limits, RunSettings

    config = _file(tmp_path)
    monkeypatch.setenv("TEST_SCANNING_URL", "https://sandbox.example")
    monkeypatch.setenv("TEST_SCANNING_KEY", "k")
    monkeypatch.setenv("CONFORMANCE_RUN_SECONDS", "77")
    monkeypatch.setenv("CONFORMANCE_PROFILE", "")  # empty counts as unset: the file's nightly
    loaded = configfile.load(str(config), "sandbox")
    assert loaded is not None
    configfile.apply(loaded)
    settings = RunSettings.from_env()
    assert settings.limits.run_seconds == 77  # environment over file (6000)
    assert settings.target == "http" and settings.profile == "nightly" and settings.allow == {"write"}  # file
    assert settings.limits.request_seconds == Limits().request_seconds and settings.record_mode == "none"  # default
    assert os.environ["CONFORMANCE_SCANNING_SAMPLE_QUERY"] == "port:22"


def test_a_run_takes_the_named_target(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run --target-name local`: the file's target kind, its settings, and its services as the
    selection; a real run on the simulator, green."""
    _file(tmp_path)
    proc = cli("run", "--target-name", "local", "-m", "presentations and enum", "--no-allure",
               "--report-dir", str(tmp_path / "run"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert list(summary["services"]) == ["presentations"]  # the one service the target configures
    ran = [r for r in summary["services"]["presentations"]["rules"] if r["status"] != "not run"]
    assert ran and {r["kind"] for r in ran} == {"enum"}


def test_the_chosen_target_reaches_the_http_target_and_the_environment_still_wins(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _file(tmp_path)
    monkeypatch.setenv("TEST_SCANNING_URL", "ftp://from-the-file")
    monkeypatch.setenv("TEST_SCANNING_KEY", "k")
    proc = cli("run", "--config", str(config), "--target-name", "sandbox", "--no-allure")
    _one_line_exit_2(proc, "CONFORMANCE_SCANNING_BASE_URL must be an http(s) URL", "ftp://from-the-file")
    monkeypatch.setenv("CONFORMANCE_SCANNING_BASE_URL", "ftp://from-the-environment")
    proc = cli("run", "--config", str(config), "--target-name", "sandbox", "--no-allure")
    _one_line_exit_2(proc, "ftp://from-the-environment")


def test_the_named_target_is_selected(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _file(tmp_path)
    local = cli("env", "--config", str(config), "--target-name", "local", "--service", "presentations")
    assert "900 [file: targets.local.run_seconds]" in _line(local.stdout, "CONFORMANCE_RUN_SECONDS")
    assert "sim [file: targets.local.target]" in _line(local.stdout, "CONFORMANCE_TARGET")
    # Without a name nothing is taken from the file; with default_target, that one.
    none = cli("env", "--config", str(config), "--service", "presentations")
    assert "no target chosen (targets: sandbox, local" in none.stdout
    assert "[file:" not in none.stdout
    _file(tmp_path, 'default_target = "local"\n' + GOOD)
    chosen = cli("env", "--service", "presentations")
    assert "900 [file: targets.local.run_seconds]" in _line(chosen.stdout, "CONFORMANCE_RUN_SECONDS")
    wrong = cli("env", "--target-name", "sandbx", "--service", "presentations")
    _one_line_exit_2(wrong, "no target 'sandbx'", "did you mean 'sandbox'")


def test_the_projects_file_is_found_from_a_subdirectory(cli: CLI, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    config = _file(tmp_path)
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    proc = cli("env", "--target-name", "local", "--service", "presentations")
    assert proc.returncode == 0, proc.stderr
    assert f"configuration file: {config}, target local" in proc.stdout
    monkeypatch.chdir(tmp_path.parent)  # above it: not found, and a name needs a file
    _one_line_exit_2(cli("env", "--target-name", "local"), "needs a configuration file")


def test_references_and_get_for_a_ci_job(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _file(tmp_path)
    proc = cli("env", "--config", str(config), "--target-name", "sandbox", "--references")
    rows = [line.split()[:2] for line in proc.stdout.splitlines()]
    assert rows == [["TEST_SCANNING_URL", "setting"], ["TEST_SCANNING_KEY", "credential"],
                    ["TEST_SCANNING_FREE_KEY", "credential"]]
    # A base URL whose reference is unset and may be empty: not configured, and --get says so.
    _file(tmp_path, GOOD.replace("${TEST_SCANNING_URL}", "${TEST_SCANNING_URL:-}"))
    empty = cli("env", "--target-name", "sandbox", "--service", "scanning", "--get", "CONFORMANCE_SCANNING_BASE_URL")
    assert empty.returncode == 0 and empty.stdout == "\n", empty.stderr
    monkeypatch.setenv("TEST_SCANNING_URL", "https://sandbox.example")
    monkeypatch.setenv("TEST_SCANNING_KEY", "sk-9")
    url = cli("env", "--target-name", "sandbox", "--service", "scanning", "--get", "CONFORMANCE_SCANNING_BASE_URL")
    assert url.stdout == "https://sandbox.example\n"
    for selected in ("scanning", "presentations"):  # another service selected does not open the way
        _one_line_exit_2(cli("env", "--target-name", "sandbox", "--service", selected, "--get",
                             "CONFORMANCE_SCANNING_API_KEY"), "is a credential")


# --- bad files: one line naming the file and the key, exit 2 ----------------------------------


@pytest.mark.parametrize(("edit", "fragments"), [
    # A credential written as its value, or with a default that would be one: refused by key.
    (('api_key = "${TEST_SCANNING_KEY}"', 'api_key = "sk-live-123456"'),
     ("targets.sandbox.scanning.api_key", "is a credential", "reference")),
    (('api_key = "${TEST_SCANNING_KEY}"', 'api_key = "${TEST_SCANNING_KEY:-sk-live-123456}"'),
     ("targets.sandbox.scanning.api_key", "is a credential")),
    (('api_key = "${TEST_SCANNING_KEY}"', 'api_key = "Bearer ${TEST_SCANNING_KEY}"'),
     ("targets.sandbox.scanning.api_key", "is a credential")),
    # Unknown keys: at the top, in a target, in a service's table, and an unknown service.
    (("[targets.sandbox]", "colour = 1\n[targets.sandbox]"), ("colour: unknown key",)),
    (("run_seconds = 6000", "run_secs = 6000"),
     ("targets.sandbox.run_secs: unknown key", "did you mean 'run_seconds'")),
    (('sample_query = "port:22"', 'sample_qeury = "port:22"'),
     ("targets.sandbox.scanning.sample_qeury: unknown key", "did you mean 'sample_query'")),
    (("[targets.sandbox.scanning]", "[targets.sandbox.scaning]"),
     ("targets.sandbox.scaning: unknown service", "did you mean 'scanning'")),
    # Wrong types and values.
    (("run_seconds = 6000", 'run_seconds = "soon"'), ("targets.sandbox.run_seconds", "a number above 0", "soon")),
    (("run_seconds = 6000", "breaker_failures = 2.5"), ("targets.sandbox.breaker_failures", "whole number above 0")),
    (('allow = ["write"]', 'allow = "write"'), ("targets.sandbox.allow", "must be a list")),
    (('profile = "nightly"', "profile = 3"), ("targets.sandbox.profile", "must be a string")),
    (('profile = "nightly"', 'profile = "nighty"'), ("targets.sandbox.profile", "did you mean 'nightly'")),
    (('min_checked = "50%"', 'min_checked = "most"'), ("targets.sandbox.min_checked", "percentage")),
    (('sample_query = "port:22"', "sample_query = [1]"),
     ("targets.sandbox.scanning.sample_query", "string or a number")),
    # A referenced variable that is not set.
    (('base_url = "${TEST_SCANNING_URL}"', 'base_url = "${TEST_NOT_SET_ANYWHERE}"'),
     ("targets.sandbox.scanning.base_url", "${TEST_NOT_SET_ANYWHERE}", "not set")),
    # Not TOML at all.
    (("[targets.sandbox]", "[targets.sandbox"), ("not valid TOML", "line")),
])
def test_a_bad_file_is_one_line_naming_the_file_and_key(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        edit: tuple[str, str], fragments: tuple[str, ...]) -> None:
    assert edit[0] in GOOD
    config = _file(tmp_path, GOOD.replace(edit[0], edit[1], 1))
    monkeypatch.setenv("TEST_SCANNING_URL", "https://sandbox.example")
    monkeypatch.setenv("TEST_SCANNING_KEY", "k")
    for args in (("env", "--target-name", "sandbox"), ("run", "--target-name", "sandbox", "--no-allure")):
        line = _one_line_exit_2(cli(*args), str(config), *fragments)
        assert "sk-live-123456" not in line  # a refused credential is never echoed


def test_a_literal_credential_is_refused_in_a_target_not_chosen(cli: CLI, tmp_path: Path) -> None:
    """A secret in the file is a secret on disk whichever target is used."""
    _file(tmp_path, GOOD + '\n[targets.staging.scanning]\napi_key = "sk-live-123456"\n')
    line = _one_line_exit_2(cli("env", "--target-name", "local", "--service", "presentations"),
                            "targets.staging.scanning.api_key", "is a credential")
    assert "sk-live-123456" not in line


def test_an_unknown_default_target_is_one_line(cli: CLI, tmp_path: Path) -> None:
    _file(tmp_path, 'default_target = "stagin"\n' + GOOD)
    _one_line_exit_2(cli("env"), "no target 'stagin' (default_target)")


def test_discover_reads_the_chosen_target(cli: CLI, tmp_path: Path) -> None:
    _file(tmp_path)  # sandbox's scanning refers to TEST_SCANNING_URL, unset here
    _one_line_exit_2(cli("discover", "--service", "scanning", "--target-name", "sandbox"),
                     "targets.sandbox.scanning.base_url", "${TEST_SCANNING_URL}")


def test_the_control_file_is_good(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file every bad-file case edits passes as it is: each refusal above is the edit's."""
    _file(tmp_path)
    monkeypatch.setenv("TEST_SCANNING_URL", "https://sandbox.example")
    monkeypatch.setenv("TEST_SCANNING_KEY", "k")
    proc = cli("env", "--target-name", "sandbox")
    assert proc.returncode == 0, proc.stderr


def test_a_file_too_large_or_missing_is_one_line(cli: CLI, tmp_path: Path) -> None:
    from conformance.cli.configfile import MAX_BYTES

    big = _file(tmp_path, GOOD + "#" * MAX_BYTES + "\n")
    _one_line_exit_2(cli("env", "--config", str(big)), str(big), "larger than")
    _one_line_exit_2(cli("env", "--config", str(tmp_path / "nope.toml")), "nope.toml")
    _one_line_exit_2(cli("env", "--config", str(tmp_path)), "is a directory")


def test_a_missing_variable_is_only_asked_of_the_services_selected(cli: CLI, tmp_path: Path) -> None:
    """The nightly job of one service does not need another service's secrets."""
    _file(tmp_path)
    assert cli("env", "--target-name", "sandbox", "--service", "presentations").returncode == 0
    _one_line_exit_2(cli("env", "--target-name", "sandbox", "--service", "scanning"), "${TEST_SCANNING_URL}")


def test_the_projects_file_refers_to_every_secret_and_holds_none(cli: CLI, monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    proc = cli("env", "--target-name", "sandbox")
    assert proc.returncode == 0, proc.stderr
    assert "not configured here (base_url empty)" in proc.stdout  # no SANDBOX_ variable set here
