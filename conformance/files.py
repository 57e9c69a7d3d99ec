"""Every file the project reads, read with bounds: one funnel per file kind (issue 34).

A file is data someone else may have written: a cassette from a colleague, a contract from a
pull request, a summary.json from a CI artefact. So each read is bounded before anything walks
the value:

* **what it is**: a regular file, opened without blocking (a FIFO or ``/dev/zero`` behind the
  name is refused, not read until memory runs out);
* **size**: at most ``max_bytes`` are read (one more shows the file is over);
* **depth**: no value nests deeper than ``max_depth`` (Python's parsers, ``copy.deepcopy``,
  ``json.dumps`` and the validators recurse per level and share one recursion limit);
* **YAML aliases**: a value is measured as expanded, so a kilobyte of anchors standing for a
  billion nodes (an alias bomb) is refused after ``max_nodes`` visits instead of walked whole.

Every problem is raised as the caller's own error type (``error``) with one line naming the file:
a ``ContractFileError``, a ``CassetteMismatch``, a ``UsageError``. Never a traceback.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.errors import HarnessError

__all__ = ["CASSETTE", "CONFIG", "CONTRACT", "SUMMARY", "FileBounds", "load_json", "load_yaml", "measure", "read_text",
           "yaml_loader"]


@dataclass(frozen=True)
class FileBounds:
    """The bounds of one kind of file; ``what`` names the kind in messages."""

    what: str
    max_bytes: int
    max_depth: int = 64
    max_nodes: int = 1_000_000


# The largest contract file is 53 KB (social's rules.yaml) and nests 14 levels (scanning's
# openapi.yaml); jsonschema recurses several frames per level, so 64 levels stay far inside the
# recursion limit. 4 MiB is 80 times the largest.
CONTRACT = FileBounds("contract file", 4 * 1024 * 1024)
# Cassettes hold response bodies, each at most CONFORMANCE_MAX_RESPONSE_BYTES (16 MiB) when
# recorded; the largest committed one is 1.8 MB and nests 6 levels (bodies are strings).
CASSETTE = FileBounds("cassette", 64 * 1024 * 1024)
# conformance.toml: a few targets of a few keys (its size bound is cli/configfile.MAX_BYTES).
CONFIG = FileBounds("configuration file", 1024 * 1024, max_depth=16, max_nodes=100_000)
# summary.json of every service's run is ~1 MB; merged shards are several of those.
SUMMARY = FileBounds("summary", 64 * 1024 * 1024)


def read_text(path: Path, bounds: FileBounds, error: type[HarnessError]) -> str:
    """The UTF-8 text of the regular file ``path``, at most ``bounds.max_bytes`` long."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the open
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise error(f"{path}: not a regular file (a device, FIFO or directory); a {bounds.what} is a file")
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(bounds.max_bytes + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > bounds.max_bytes:
        raise error(f"{path}: larger than {bounds.max_bytes:,} bytes, the bound of a {bounds.what}; not read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 (byte {exc.start}): {exc.reason}") from None


def measure(value: Any, bounds: FileBounds, where: str, error: type[HarnessError]) -> Any:
    """``value`` when it nests no deeper than the bound and has no more nodes, expanded, than
    the bound (a shared node counts each time it is reached, as every walker reaches it).
    Iterative, so measuring cannot overflow the stack."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    nodes = 0
    while stack:
        node, level = stack.pop()
        nodes += 1
        if nodes > bounds.max_nodes:
            raise error(f"{where}: more than {bounds.max_nodes:,} values once YAML aliases are expanded "
                        f"(an alias bomb?), the bound of a {bounds.what}; not read")
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if level > bounds.max_depth:
            raise error(f"{where}: nested deeper than {bounds.max_depth} levels, the bound of a {bounds.what}; "
                        "not read")
        stack.extend((child, level + 1) for child in children)
    return value


def yaml_loader() -> Any:
    import yaml

    # libyaml's safe loader where PyYAML was built with it (8x faster on the contracts); it also
    # refuses more than 1000 levels while parsing, before any Python recursion.
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str, where: str, bounds: FileBounds, error: type[HarnessError]) -> Any:
    import yaml

    try:
        value = yaml.load(text, Loader=yaml_loader())  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        raise error(f"{where}: not valid YAML: {' '.join(str(exc).split())}") from None
    except (RecursionError, MemoryError):
        raise error(f"{where}: too deep or too large to parse as YAML") from None
    return measure(value, bounds, where, error)


def parse_json(text: str, where: str, bounds: FileBounds, error: type[HarnessError]) -> Any:
    try:
        value = json.loads(text)
    except RecursionError:
        raise error(f"{where}: nested deeper than {bounds.max_depth} levels, the bound of a {bounds.what}; "
                    "not read") from None
    except ValueError as exc:
        raise error(f"{where}: not JSON: {exc}") from None
    return measure(value, bounds, where, error)


def load_yaml(path: Path, bounds: FileBounds, error: type[HarnessError]) -> Any:
    return parse_yaml(read_text(path, bounds, error), str(path), bounds, error)


def load_json(path: Path, bounds: FileBounds, error: type[HarnessError]) -> Any:
    return parse_json(read_text(path, bounds, error), str(path), bounds, error)
