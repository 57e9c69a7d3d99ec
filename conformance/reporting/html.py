"""Builds the self-contained HTML report from allure-results with Allure 3 (npm package)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conformance.errors import HarnessError, UsageError

__all__ = ["build_html"]

# Pinned major: the config format below is Allure 3's. singleFile, because the multi-file
# report does not open from file://.
ALLURE_PACKAGE = "allure@3"
_CONFIG = """export default {
  name: "API conformance",
  output: "./allure-report",
  plugins: { awesome: { options: { singleFile: true, reportName: "API conformance" } } },
};
"""
_TIMEOUT = 600


def build_html(report_dir: Path) -> Path:
    results = report_dir / "allure-results"
    if not results.is_dir() or not any(results.glob("*-result.json")):
        raise UsageError(f"no Allure results in {results}: run `conformance run` first")
    npx = shutil.which("npx")
    if npx is None:
        raise HarnessError("npx (Node.js) is needed to build the HTML report; "
                           "or open the results with any Allure 2/3 installation")
    (report_dir / "allurerc.mjs").write_text(_CONFIG, encoding="utf-8")
    try:
        proc = subprocess.run([npx, "--yes", ALLURE_PACKAGE, "generate", "./allure-results"],
                              cwd=report_dir, capture_output=True, text=True, timeout=_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise HarnessError(f"allure generate took over {_TIMEOUT} s") from None
    out = report_dir / "allure-report" / "index.html"
    if proc.returncode != 0 or not out.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise HarnessError("allure generate failed: " + " | ".join(tail))
    return out
