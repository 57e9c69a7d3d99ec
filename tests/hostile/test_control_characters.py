"""A target whose bodies and header values carry terminal control sequences (issue 34, item 3).

The presentations simulator, served over HTTP, answers every request with a body that opens with
a clipboard write (OSC 52), a window title, an erasure of the line above, a fake green PASSED, a
C1 CSI, BEL, backspaces and a carriage return, and with a header holding the same. The run quotes
those bodies in failure lines and attaches them to Allure; none of those bytes may reach the
console, junit.xml, summary.json, triage.md or allure-results raw, only as visible escapes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.faults.base import on_response
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

SERVICE = "presentations"
RUN_SECONDS = 240  # a bound for the whole run (about 20 s on an idle machine)
# What a terminal acts on: OSC 52 (set the clipboard), OSC 0 (window title), cursor up and erase
# line, a colour with a fake verdict, the one-byte C1 CSI, BEL, backspaces over text, CR.
BODY = ("\x1b]52;c;cHduZWQ=\x07\x1b]0;all rules passed\x07\x1b[1A\x1b[2K\x1b[32mPASSED\x1b[0m"
        "\x9b2K\x07abc\x08\x08\x08\rPASSED ")
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


@pytest.mark.slow
def test_no_control_character_from_the_target_reaches_a_terminal_or_a_report(
        served: Callable[..., object], tmp_path: Path) -> None:
    report = tmp_path / "r"
    with served(SERVICE, decorate=_hostile) as (url, sim):  # type: ignore[attr-defined]
        env = {**os.environ, f"CONFORMANCE_{SERVICE.upper()}_BASE_URL": url,
               f"CONFORMANCE_{SERVICE.upper()}_API_KEY": sim.credentials["API_KEY"],
               "CONFORMANCE_RUN_SECONDS": "180", "CONFORMANCE_REQUEST_SECONDS": "5"}
        proc = subprocess.run([sys.executable, "-m", "conformance", "run", "--service", SERVICE, "--target", "http",
                               "--report-dir", str(report)], env=env, cwd=tmp_path, capture_output=True,
                              timeout=RUN_SECONDS)
    stdout, stderr = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1, stderr[-2000:]
    texts = {"stdout": stdout, "stderr": stderr}
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


def test_visible_escapes_every_control_character_but_newline_and_tab() -> None:
    from conformance.reporting.text import visible

    assert visible("a\x1b[2K\x07\x08\r\x7f\x9b\x85b\n\tc") == r"a\x1b[2K\x07\x08\x0d\x7f\x9b\x85b" + "\n\tc"
    assert visible(visible("\x1b")) == r"\x1b"  # applied twice, the same: a backslash is no control
