"""Hypothesis's UTF-8 table, written by the harness (conformance/checks/codec_table.py): the same
table Hypothesis builds, without the 204 MB it takes to build (issue 34: the first rule drawing text
in a fresh directory peaked at 313 MB). Each case runs in a fresh process and working directory, so
no table is there before it and the peak is the case's own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conformance.checks.codec_table import UTF8_TABLE

_CASE = """
import json, re, sys
def peak():
    return int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)) / 1024
from hypothesis.internal.charmap import charmap, intervals_from_codec
from conformance.checks.codec_table import write_utf8_table
charmap()  # the category table: built here too, and small
before = peak()
if sys.argv[1] == "seeded":
    write_utf8_table()
encodable, not_round_tripping = intervals_from_codec("utf-8")
print(json.dumps({"table": [encodable.intervals, not_round_tripping.intervals], "grew_mb": peak() - before}))
"""


def _table(cwd: Path, how: str) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-c", _CASE, how], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert list((cwd / ".hypothesis" / "unicode_data").glob("*/codec-v2-utf-8.json.gz"))  # where a run finds it
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def test_the_written_table_is_hypothesis_own_and_costs_nothing(tmp_path: Path) -> None:
    (tmp_path / "built").mkdir()
    (tmp_path / "seeded").mkdir()
    built = _table(tmp_path / "built", "built")
    seeded = _table(tmp_path / "seeded", "seeded")
    assert json.loads(json.dumps(UTF8_TABLE)) == built["table"] == seeded["table"]
    assert built["grew_mb"] > 100  # what the table costs when Hypothesis builds it (the case can fail)
    assert seeded["grew_mb"] < 10, seeded
