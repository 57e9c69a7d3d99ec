"""Hostile files: every file the project reads, given as someone else might have written it
(issue 34, item 6). Each gets one line naming the problem and exit status 2 (1 means only "the
target broke a rule"), never a traceback and never a hang: every case runs in a process with a
time bound.

Contracts are read by ``conformance rules`` from a copy of one service's folder
(``CONFORMANCE_SCHEMAS_DIR``), cassettes by ``conformance run --target replay``, summaries by
``conformance triage`` and ``conformance merge``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.layout import schemas_dir

pytestmark = pytest.mark.slow

TIMEOUT = 60  # each command; the bounded reads answer in about a second
SERVICE = "tokenrisk"
RULE = "tokenrisk.domains.list"
CASSETTES = Path(__file__).resolve().parents[2] / "cassettes" / SERVICE
# A YAML alias bomb: 1.3 KB standing for 9**9 strings once expanded.
BOMB = "".join(f"{a}: &{a} [{', '.join([f'*{p}'] * 9) if p else ', '.join(['lol'] * 9)}]\n"
               for p, a in zip([""] + list("abcdefgh"), "abcdefghi", strict=True))


def conformance(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT, env={**base, "XDG_CACHE_HOME": str(cwd / "cache"), **env}, check=False)


def one_line_exit_2(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out[-3000:]
    assert proc.returncode == 2, f"exit {proc.returncode}: {out[-3000:]}"
    for word in words:
        assert word in out, out[-3000:]


def _deep_component(text: str, depth: int) -> str:
    return text.replace("\ncomponents:\n", "\ncomponents:\n  x-deep: " + "{a: " * depth + "1" + "}" * depth + "\n", 1)


def _self_ref(text: str) -> str:
    import yaml

    doc = yaml.safe_load(text)
    doc.setdefault("components", {}).setdefault("schemas", {})["Loop"] = {"$ref": "#/components/schemas/Loop"}
    return yaml.safe_dump(doc, sort_keys=False)


def _huge(text: str) -> str:
    return text + "x-padding:\n" + "- padding value of a forty megabyte catalogue\n" * 900_000


CONTRACTS: dict[str, tuple[str, Callable[[str], str], str]] = {
    "openapi nested 990 deep": ("openapi.yaml", lambda t: _deep_component(t, 990), "nested deeper"),
    "openapi nested 100k deep": ("openapi.yaml", lambda t: _deep_component(t, 100_000), "openapi.yaml"),
    "openapi $ref to itself": ("openapi.yaml", _self_ref, "$ref cycle"),
    "openapi alias bomb": ("openapi.yaml", lambda t: t + "x-bomb:\n" + "".join(f"  {line}\n" for line in
                                                                                 BOMB.splitlines()),
                           "alias"),
    "rules.yaml of 40 MB": ("rules.yaml", _huge, "larger than"),
}


@pytest.fixture
def schemas(tmp_path: Path) -> Path:
    root = tmp_path / "schemas"
    shutil.copytree(schemas_dir() / SERVICE, root / SERVICE)
    return root


@pytest.mark.parametrize("case", CONTRACTS)
def test_a_bad_contract_file_is_one_line(case: str, schemas: Path, tmp_path: Path) -> None:
    name, edit, word = CONTRACTS[case]
    path = schemas / SERVICE / name
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    proc = conformance(tmp_path, "rules", "--service", SERVICE, CONFORMANCE_SCHEMAS_DIR=str(schemas))
    one_line_exit_2(proc, word)


def test_a_contract_linked_to_dev_zero_is_refused(schemas: Path, tmp_path: Path) -> None:
    (schemas / SERVICE / "openapi.yaml").unlink()
    (schemas / SERVICE / "openapi.yaml").symlink_to("/dev/zero")
    for command in (("rules", "--service", SERVICE), ("env",), ("run", "--service", SERVICE, "--no-allure",
                                                                "--report-dir", str(tmp_path / "r"))):
        proc = conformance(tmp_path, *command, CONFORMANCE_SCHEMAS_DIR=str(schemas))
        if command == ("env",):  # env lists variables without loading contracts; it must not hang or crash
            assert "Traceback" not in proc.stderr and proc.returncode in (0, 2), proc.stderr[-2000:]
            continue
        one_line_exit_2(proc, "not a regular file")


def _cassette(edit: Callable[[dict[str, object]], object]) -> str:
    data = json.loads((CASSETTES / f"{RULE}.yaml").read_text(encoding="utf-8"))
    out = edit(data)
    return out if isinstance(out, str) else json.dumps(data)


def _set(path: str, value: object) -> Callable[[dict[str, object]], None]:
    def edit(data: dict[str, object]) -> None:
        node: object = data["interactions"][0]  # type: ignore[index]
        *parents, last = path.split(".")
        for key in parents:
            node = node[key]  # type: ignore[index]
        node[last] = value  # type: ignore[index]

    return edit


CASSETTE_CASES: dict[str, Callable[[dict[str, object]], object]] = {
    "nested 100k deep": lambda data: '{"interactions": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "header value a mapping": _set("response.headers.content-type", {"a": "b"}),
    "header value a list of lists": _set("request.headers.accept", [["*/*"]]),
    "status message 5": _set("response.status.message", 5),
    "request uri http://[bad": _set("request.uri", "http://[bad"),
    "status code true": _set("response.status.code", True),
    "status code 10**30": _set("response.status.code", 10**30),
    "a YAML alias bomb": lambda data: "interactions: []\n" + BOMB,
}


@pytest.mark.parametrize("case", CASSETTE_CASES)
def test_a_bad_cassette_is_a_harness_error_not_a_verdict(case: str, tmp_path: Path) -> None:
    folder = tmp_path / "cassettes" / SERVICE
    folder.mkdir(parents=True)
    shutil.copy(CASSETTES / "configured-credentials.json", folder)
    (folder / f"{RULE}.yaml").write_text(_cassette(CASSETTE_CASES[case]), encoding="utf-8")
    proc = conformance(tmp_path, "run", "--target", "replay", "--service", SERVICE, "-k", RULE, "--no-allure",
                       "--cassette-dir", str(tmp_path / "cassettes"), "--report-dir", str(tmp_path / "r"))
    one_line_exit_2(proc, "re-record")
    rules = json.loads((tmp_path / "r" / "summary.json").read_text())["services"][SERVICE]["rules"]
    assert [r["status"] for r in rules if r["id"] == RULE] == ["error"]


def test_a_report_dir_name_the_system_refuses_is_one_line(tmp_path: Path) -> None:
    proc = conformance(tmp_path, "run", "--service", SERVICE, "-k", RULE, "--no-allure", "--report-dir", "x" * 300)
    one_line_exit_2(proc, "too long")


def _summary(services: object) -> str:
    return json.dumps({"target": "sim", "profile": "gate", "services": services})


SUMMARIES: dict[str, str] = {
    "nested 100k deep": '{"services": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "a service that is a number": _summary({SERVICE: 5}),
    "a rule that is a number": _summary({SERVICE: {"rules": [5]}}),
    "a rule id that is a list": _summary({SERVICE: {"rules": [{"id": ["x"], "status": "failed"}]}}),
    "rules that are a mapping": _summary({SERVICE: {"rules": {"id": "x"}}}),
    "counts that are text": json.dumps({"services": {}, "counts": {"passed": "many"}}),
    "not JSON": "{",
    "a list": "[]",
}


@pytest.mark.parametrize("case", SUMMARIES)
@pytest.mark.parametrize("command", ["triage", "merge"])
def test_an_odd_summary_is_one_line_for_triage_and_merge(command: str, case: str, tmp_path: Path) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir()
    bad.mkdir()
    (good / "summary.json").write_text(_summary({}), encoding="utf-8")
    (bad / "summary.json").write_text(SUMMARIES[case], encoding="utf-8")
    args = ("triage", str(good), str(bad)) if command == "triage" else ("merge", str(bad), "--reports",
                                                                        str(tmp_path / "reports"))
    proc = conformance(tmp_path, *args)
    one_line_exit_2(proc, "summary.json")
    assert re.search(r"conformance: error: .*summary\.json", proc.stderr), proc.stderr


def _over_the_bound(path: Path) -> None:
    path.write_text(" " * (65 << 20) + '{"interactions": []}', encoding="ascii")  # 65 MiB: the bound is 64


BAD_OLD_CASSETTES: dict[str, tuple[Callable[[Path], None], str]] = {
    "a file over the bound": (_over_the_bound, "larger than"),
    "a FIFO": (os.mkfifo, "not a regular file"),
}


@pytest.mark.parametrize("mode", ["once", "new_episodes"])
@pytest.mark.parametrize("case", BAD_OLD_CASSETTES)
def test_the_old_cassette_a_record_mode_reads_is_bounded(case: str, mode: str, tmp_path: Path) -> None:
    """once and new_episodes read the old cassette through vcrpy, which read it whole (an 80 MiB
    file: 250 MB and a wrong reason) and took a FIFO for no cassette (exit 0, or a hang at saving into it)."""
    folder = tmp_path / "cassettes" / SERVICE
    folder.mkdir(parents=True)
    make, word = BAD_OLD_CASSETTES[case]
    make(folder / f"{RULE}.yaml")
    proc = conformance(tmp_path, "run", "--target", "sim", "--service", SERVICE, "-k", RULE, "--no-allure",
                       "--record-mode", mode, "--cassette-dir", str(tmp_path / "cassettes"),
                       "--report-dir", str(tmp_path / "r"))
    one_line_exit_2(proc, word, "re-record")
    rules = json.loads((tmp_path / "r" / "summary.json").read_text())["services"][SERVICE]["rules"]
    assert [r["status"] for r in rules if r["id"] == RULE] == ["error"]


def _sparse(path: Path) -> None:
    with path.open("wb") as out:
        out.truncate(129 << 20)  # 129 MiB of NULs that take no disk; the bound is 128 MiB


HISTORIES: dict[str, tuple[Callable[[Path], object], str]] = {
    "a line nested 100k deep": (lambda path: path.write_text("[" * 100_000 + "]" * 100_000 + "\n"),
                                "not a history entry"),
    "a file over the bound": (_sparse, "larger than"),
}


@pytest.mark.skipif(shutil.which("npx") is None, reason="conformance report needs npx before it reads the history")
@pytest.mark.parametrize("case", HISTORIES)
def test_a_report_reads_a_bounded_history(case: str, tmp_path: Path) -> None:
    """A report read history.jsonl whole (129 MiB: ~400 MB) and let a deep line's RecursionError out.
    The run has its line in the history (history.json), so the report only reads the file."""
    run = tmp_path / "run"
    assert conformance(tmp_path, "run", "--service", SERVICE, "-k", RULE, "--report-dir", str(run)).returncode == 0
    make, word = HISTORIES[case]
    make(run / "history.jsonl")
    proc = conformance(tmp_path, "report", "--report-dir", str(run))
    one_line_exit_2(proc, "history.jsonl", word)


RUN_HISTORIES: dict[str, tuple[Callable[[Path], object], str]] = {
    "a FIFO": (os.mkfifo, "history.jsonl is not a regular file"),
    "a file over the bound": (_sparse, "larger than"),
}


@pytest.mark.parametrize("case", RUN_HISTORIES)
def test_a_run_appends_only_to_a_bounded_history(case: str, tmp_path: Path) -> None:
    """A run read its whole history.jsonl to trim it (129 MiB: read whole and kept growing; a FIFO:
    "cannot append ...: None", the seek's error); the run's verdict stands, with one line saying why
    its history line is missing."""
    (tmp_path / "r").mkdir()
    make, word = RUN_HISTORIES[case]
    make(tmp_path / "r" / "history.jsonl")
    proc = conformance(tmp_path, "run", "--service", SERVICE, "-k", RULE, "--report-dir", str(tmp_path / "r"))
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out and proc.returncode == 0, out[-3000:]
    assert word in proc.stderr and "no history line appended" in proc.stderr, proc.stderr


_ENTITIES = "".join(f'<!ENTITY e{i} "{f"&e{i - 1};" * 10 if i else "lol"}">' for i in range(10))
JUNITS: dict[str, tuple[str, str]] = {
    "an entity bomb": (f'<?xml version="1.0"?>\n<!DOCTYPE s [{_ENTITIES}]>\n<testsuite name="a">&e9;</testsuite>',
                       "DTD"),
    "nested 100k deep": ('<testsuite name="a" tests="1">' + "<a>" * 100_000 + "</a>" * 100_000 + "</testsuite>",
                         "nested deeper"),
    "a count that is text": ('<testsuites><testsuite name="a" tests="many"/></testsuites>', "not a number"),
    "a time that is text": ('<testsuites><testsuite name="a" time="long"/></testsuites>', "not a number"),
}


@pytest.mark.parametrize("case", JUNITS)
def test_merge_reads_a_shard_junit_with_bounds(case: str, tmp_path: Path) -> None:
    """merge parsed a shard's junit.xml with ET.parse: 100k levels or a count that is text were an
    "internal error, a bug"; an entity bomb was refused only by expat's own amplification limit."""
    shard = tmp_path / "shard"
    shard.mkdir()
    (shard / "summary.json").write_text(_summary({}), encoding="utf-8")
    text, word = JUNITS[case]
    (shard / "junit.xml").write_text(text, encoding="utf-8")
    proc = conformance(tmp_path, "merge", str(shard), "--reports", str(tmp_path / "reports"))
    one_line_exit_2(proc, "junit.xml", word)
