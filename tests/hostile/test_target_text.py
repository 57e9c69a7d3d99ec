"""A target whose bodies and header values try to act on whoever reads the run (issue 34, items 3, 4).

The presentations simulator, served over HTTP, answers every request with a body that opens with
a clipboard write (OSC 52), a window title, an erasure of the line above, a fake green PASSED, a
C1 CSI, BEL, backspaces and a carriage return, then a Markdown fence, ``# All rules passed`` and
an HTML comment's start; and with a header holding control sequences too. The run quotes those
bodies in failure lines and attaches them to Allure. None of the control bytes may reach the
console, junit.xml, summary.json, triage.md or allure-results raw, only as visible escapes; and
triage.md, rendered, must show every failed rule.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.faults.base import on_response
from conformance.services import create_simulator
from conformance.simulators import Simulator
from conformance.simulators.base import WallClock
from conformance.transport.model import Request, Response
from tests.conftest import serve

SERVICE = "presentations"
RUN_SECONDS = 240  # a bound for the whole run (about 20 s on an idle machine)
# What a terminal acts on: OSC 52 (set the clipboard), OSC 0 (window title), cursor up and erase
# line, a colour with a fake verdict, the one-byte C1 CSI, BEL, backspaces over text, CR.
BODY = ("\x1b]52;c;cHduZWQ=\x07\x1b]0;all rules passed\x07\x1b[1A\x1b[2K\x1b[32mPASSED\x1b[0m"
        "\x9b2K\x07abc\x08\x08\x08\rPASSED \n```\n\n# All rules passed\n\n<!-- ")
# A header value cannot hold CR or LF on the wire; everything else above, and C1 as latin-1 bytes.
HEADER = "\x1b]0;owned\x07\x1b[32mPASSED\x1b[0m\x9b2K\x08"
# Raw control characters other than tab and newline, C1 included (as text; files are read as UTF-8).
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _hostile(sim: Simulator) -> Simulator:
    def after(request: Request, response: Response) -> Response:
        response.body = BODY.encode() + response.body
        response.headers["x-hostile"] = HEADER
        return response

    return on_response(after)(sim)


def _strings(data: object) -> list[str]:
    """Every key and string value of parsed JSON: a viewer shows ``"\\u001b"`` as the byte it is."""
    if isinstance(data, dict):
        return [s for k, v in data.items() for s in [str(k), *_strings(v)]]
    if isinstance(data, list):
        return [s for item in data for s in _strings(item)]
    return [data] if isinstance(data, str) else []


def _raw_in(name: str, text: str) -> list[str]:
    return [f"{name}: {match.group()!r} at {match.start()}: {text[max(0, match.start() - 40):match.end() + 40]!r}"
            for match in list(RAW.finditer(text))[:3]]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    report: Path


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One run of the presentations rules against the served hostile simulator (about 10 s)."""
    root = tmp_path_factory.mktemp("target-text")
    report = root / "r"
    sim = _hostile(create_simulator(SERVICE, WallClock()))
    with serve(sim) as url:
        env = {**os.environ, f"CONFORMANCE_{SERVICE.upper()}_BASE_URL": url,
               f"CONFORMANCE_{SERVICE.upper()}_API_KEY": sim.credentials["API_KEY"],
               "CONFORMANCE_RUN_SECONDS": "180", "CONFORMANCE_REQUEST_SECONDS": "5"}
        proc = subprocess.run([sys.executable, "-m", "conformance", "run", "--service", SERVICE, "--target", "http",
                               "--report-dir", str(report)], env=env, cwd=root, capture_output=True,
                              timeout=RUN_SECONDS)
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"),
               report)


@pytest.mark.slow
def test_no_control_character_from_the_target_reaches_a_terminal_or_a_report(hostile_run: Run) -> None:
    stdout, report = hostile_run.stdout, hostile_run.report
    assert hostile_run.code == 1, hostile_run.stderr[-2000:]
    texts = {"stdout": stdout, "stderr": hostile_run.stderr}
    for path in sorted(p for p in report.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", "replace")
        if path.suffix == ".json":  # as shown once parsed, where JSON's own escapes are undone
            text += "\n" + "\n".join(_strings(json.loads(text)))
        texts[str(path.relative_to(report))] = text
    assert {"junit.xml", "summary.json", "triage.md"} <= set(texts)
    allure = [name for name in texts if name.startswith("allure-results/")]
    assert allure, "no allure-results written"
    leaks = [leak for name, text in texts.items() for leak in _raw_in(name, text)]
    assert not leaks, "\n".join(leaks[:20])
    # The sequences were shown, escaped, where failures are: the test saw the hostile text at all.
    shown = r"\x1b]52;c;cHduZWQ=\x07"
    assert shown in stdout and shown in texts["summary.json"]
    assert any(shown in texts[name] for name in allure)
    assert any(r"x-hostile: \x1b]0;owned\x07" in texts[name] for name in allure)


@pytest.mark.slow
def test_triage_md_rendered_shows_every_failed_rule(hostile_run: Run) -> None:
    from markdown_it import MarkdownIt

    summary = json.loads((hostile_run.report / "summary.json").read_text(encoding="utf-8"))
    bad = [r["id"] for r in summary["services"][SERVICE]["rules"] if r["status"] in ("failed", "error")]
    text = (hostile_run.report / "triage.md").read_text(encoding="utf-8")
    assert "All rules passed" in text and len(bad) > 1  # the body reached triage.md: the test means something
    tokens = MarkdownIt("commonmark").parse(text)
    headings = [(tokens[i].tag, tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"]
    shown = [title.split(": ", 1)[1] for tag, title in headings
             if tag == "h2" and title.startswith(("FAILED", "ERROR"))]
    assert sorted(shown) == sorted(bad)
    assert [title for tag, title in headings if tag == "h1"] == ["Triage"]
    assert not [t.content[:80] for t in tokens if t.type.startswith("html")]  # nothing hides in a comment
    quoted = [t for t in tokens if t.type == "fence"]
    assert len(quoted) == len(bad) and all("# All rules passed" in t.content for t in quoted)


def test_visible_escapes_every_control_character_but_newline_and_tab() -> None:
    from conformance.reporting.text import visible

    assert visible("a\x1b[2K\x07\x08\r\x7f\x9b\x85b\n\tc") == r"a\x1b[2K\x07\x08\x0d\x7f\x9b\x85b" + "\n\tc"
    assert visible(visible("\x1b")) == r"\x1b"  # applied twice, the same: a backslash is no control
