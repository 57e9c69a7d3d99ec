"""Builds the self-contained HTML report from allure-results with Allure 3 (npm package).

History: Allure 3 keeps one line per report in a JSONL file (``historyPath``) and reads it back
on the next build, which is what trends, "new failed", "fixed" and flaky marks are made of. The
file lives beside the runs (reports/history.jsonl by default), not in a run directory, so it
survives from one night to the next; CI keeps it as an artefact. Every run appends its own line
(reporting/history.py); the report is built from the lines before it, and appends nothing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import uuid
from pathlib import Path

from conformance.errors import HarnessError, UsageError
from conformance.reporting.allure_meta import allure3_config
from conformance.reporting.history import append_run, history_before, recorded_point

__all__ = ["ALLURE_PACKAGE", "build_html"]

# Pinned exactly: the configuration written below (categories rules, historyPath, the awesome
# plugin's singleFile) is Allure 3's and changed between 3.x minors; 3.18.0 is the one the
# browser test renders.
ALLURE_PACKAGE = "allure@3.18.0"
_TIMEOUT = 600


# Allure 3's report template loads Google Tag Manager and sends the report's id and Allure's
# version whenever the page is opened (plugin-awesome hard-codes analyticsEnable in 3.18; the
# ALLURE_NO_ANALYTICS variable only reaches the Allure 2 plugin). A conformance report opened from
# a CI artefact calls nobody: the two script elements are cut from the file.
_ANALYTICS = re.compile(
    r'<script async src="https://www\.googletagmanager\.com/gtag/js\?id=[^"]*"></script>\s*'
    r"<script>\s*window\.dataLayer = window\.dataLayer \|\| \[\];.*?</script>", re.DOTALL)


def _strip_analytics(index: Path) -> None:
    html = index.read_text(encoding="utf-8")
    stripped, count = _ANALYTICS.subn("", html, count=1)
    if count == 0 and "googletagmanager" in html:
        raise HarnessError(f"{index} loads analytics in a form this harness does not know how to remove; "
                           f"check {ALLURE_PACKAGE}'s template")
    index.write_text(stripped, encoding="utf-8")


# Allure 3.18 shows a markdown attachment (the triage page) in a sandboxed iframe 150 pixels high:
# the headline and one section, the rest hidden behind a scroll bar inside a scroll bar. The frame's
# document is another origin (file://), so it cannot be measured from the page: the frame is given
# the window's height instead, and can be dragged taller.
_FRAME_STYLE = ('<style id="conformance-frames">[data-testid="markdown-attachment-preview"] iframe '
                "{height: max(400px, calc(100vh - 160px)); resize: vertical;}</style>")


def _size_markdown_frames(index: Path) -> None:
    html = index.read_text(encoding="utf-8")
    if "</head>" not in html:
        raise HarnessError(f"{index} has no </head>; check {ALLURE_PACKAGE}'s template")
    index.write_text(html.replace("</head>", _FRAME_STYLE + "</head>", 1), encoding="utf-8")


def _add_page(results: Path, name: str, markdown: str) -> None:
    """A report-wide attachment (Allure's "globals"): the triage against the previous run."""
    source = f"{uuid.uuid4()}-attachment.md"
    (results / source).write_text(markdown, encoding="utf-8")
    globals_file = results / f"{uuid.uuid4()}-globals.json"
    globals_file.write_text(json.dumps({"attachments": [{"name": name, "source": source, "type": "text/markdown"}],
                                        "errors": []}), encoding="utf-8")


def build_html(report_dir: Path, *, history: Path | None = None, triage_markdown: str | None = None) -> Path:
    results = report_dir / "allure-results"
    if not results.is_dir() or not any(results.glob("*-result.json")):
        raise UsageError(f"no Allure results in {results}: run `conformance run` first")
    npx = shutil.which("npx")
    if npx is None:
        raise HarnessError("npx (Node.js) is needed to build the HTML report; "
                           "or open the results with any Allure 2/3 installation")
    if history is not None:
        try:
            history.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HarnessError(f"cannot create {history.parent} for the history file: {exc.strerror}") from None
        if history.exists() and not history.is_file():
            raise UsageError(f"--history {history} is not a file")
    for stale in results.glob("*-globals.json"):  # a rebuilt report shows this triage only
        stale.unlink()
    if triage_markdown:
        _add_page(results, "Triage: what changed since the previous run", triage_markdown)
    shown = None
    if history is not None:
        # Every run appends its own line when it ends; a run from before that (or with another
        # history file) is appended now. The report shows the runs before this one as history.
        own = recorded_point(report_dir, history) or append_run(report_dir, history)
        shown = report_dir / ".history-before-this-run.jsonl"
        history_before(history, own, shown)
    (report_dir / "allurerc.mjs").write_text(allure3_config(shown, append_history=False), encoding="utf-8")
    try:
        proc = subprocess.run([npx, "--yes", ALLURE_PACKAGE, "generate", "./allure-results"],
                              cwd=report_dir, capture_output=True, text=True, timeout=_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise HarnessError(f"allure generate took over {_TIMEOUT} s") from None
    finally:
        if shown is not None:
            shown.unlink(missing_ok=True)
    out = report_dir / "allure-report" / "index.html"
    if proc.returncode != 0 or not out.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise HarnessError("allure generate failed: " + " | ".join(tail))
    _strip_analytics(out)
    _size_markdown_frames(out)
    return out
