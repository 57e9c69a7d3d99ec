"""Where the project's contracts are, and which services they describe: found, never listed.

A service is a folder ``schemas/<id>/`` holding a ``rules.yaml``; adding one edits no shared
file. They are ordered as the documents are (document, then part: the order DESIGN.md gives),
read from the two header lines of each catalogue, so this module imports nothing heavy: the
command line lists services for its help and ``env`` without loading a contract (issue 31).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

__all__ = ["available_services", "docs_dir", "schemas_dir"]

_ROOT = Path(__file__).resolve().parents[1]
# The catalogue's header keys (rules.yaml: `document: volume-1.md`, `part: B`), top-level only.
_HEADER = re.compile(r"^(document|part):\s*['\"]?([^'\"#\s]+)", re.M)


def schemas_dir() -> Path:
    return Path(os.environ.get("CONFORMANCE_SCHEMAS_DIR", _ROOT / "schemas"))


def cassettes_dir() -> Path:
    """The project's cassettes, wherever the command runs from (as its contracts are found): a
    replay started in another directory reads the committed cassettes, not an empty ./cassettes."""
    return _ROOT / "cassettes"


def docs_dir() -> Path:
    return Path(os.environ.get("CONFORMANCE_DOCS_DIR", _ROOT / "docs" / "spec"))


def _place(catalogue: Path) -> tuple[str, str, str]:
    try:  # the head only, and of a regular file: rules.yaml may be a link to /dev/zero or a FIFO
        fd = os.open(catalogue, os.O_RDONLY | os.O_NONBLOCK)
        try:
            head = os.read(fd, 4096).decode("utf-8", "replace") if stat.S_ISREG(os.fstat(fd).st_mode) else ""
        finally:
            os.close(fd)
    except OSError:
        head = ""
    found = dict(_HEADER.findall(head))
    # A catalogue without a readable header sorts last; the loader reports what is wrong with it.
    return found.get("document", "~"), found.get("part", "~"), catalogue.parent.name


def available_services() -> list[str]:
    """The ids of the folders of ``schemas_dir()`` holding a rules.yaml, in document order."""
    try:
        folders = [p for p in schemas_dir().iterdir() if (p / "rules.yaml").is_file()]
    except OSError:
        return []
    return [place[2] for place in sorted(_place(p / "rules.yaml") for p in folders)]
