"""Hypothesis's table of the characters UTF-8 encodes, written before Hypothesis builds its own.

Schemathesis draws text with ``codec="utf-8"``. Hypothesis keeps which code points a codec encodes
in its storage directory (``.hypothesis/unicode_data/``, under the working directory unless
configured); where the table is missing, the first draw builds it from a list of every code point
as a tuple, 204 MB at once. In a fresh directory (a CI checkout, each hostile test's root) the
first rule drawing text then peaked at 313 MB where it otherwise takes 110 MB (issue 34: "the 500
and 503 storms" were only the first runs to draw text). The answer for UTF-8 needs no listing:
every code point but the surrogates encodes, and every one encoded decodes back to itself.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
from functools import cache
from pathlib import Path

__all__ = ["UTF8_TABLE", "write_utf8_table"]

# [encodable intervals, encodable but not round-tripping], as Hypothesis's codec-v2 file holds them.
UTF8_TABLE = [[[0, 0xD7FF], [0xE000, sys.maxunicode]], []]


@cache
def write_utf8_table() -> None:
    """Write the table where Hypothesis reads it, unless it is there. Best effort, as Hypothesis's
    own write: if its internals move or the directory is read-only, the cost is memory, not a verdict."""
    try:
        from hypothesis.internal.charmap import charmap_file

        path = charmap_file("codec-v2-utf-8")
    except (ImportError, AttributeError, TypeError):
        return
    if path.exists():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".codec-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=1) as packed:
            packed.write(json.dumps(UTF8_TABLE).encode())
        os.replace(temporary, path)  # atomic: runs started together each see a whole file or none
    except OSError:
        Path(temporary).unlink(missing_ok=True)
