"""Loaded contracts kept between runs, keyed by the digest of everything the load reads.

Loading all eight contracts costs about 0.7 s of every run (YAML, the OpenAPI schemas checked
against their metaschema, the catalogue validated, rules derived, references walked): more than
the replay of a whole service. What the load returns depends only on the bytes of the
contract's files, the source document they cite, and the loader's own code, so a run whose
inputs are unchanged reads the contract the last run built (issue 31: "contract loading and
derivation done once and cached by content digest").

The key hashes the contract's ``openapi.yaml`` and ``rules.yaml``, every document of
``docs_dir()`` (rules cite them by anchor), the Python version and the size and modification
time of every module of this package (a changed loader, derivation or check list builds
again). An edited contract is therefore loaded, and so validated, again; a contract with a
mistake is never cached (the load raises before anything is written).

The entry is a pickle, so it is read only from a file this user owns that nobody else may
write (as Python's own ``__pycache__`` trusts its directory); anything odd in the cache (a
truncated or foreign file, an unreadable directory) reads as not cached and costs only the
load. ``CONFORMANCE_CACHE_DIR`` moves it; the default is the user's cache directory, as for
``conformance env``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle  # noqa: S403 (entries this user wrote; see _trusted)
import stat
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.errors import ContractFileError
from conformance.files import CONTRACT, read_text

if TYPE_CHECKING:
    from conformance.contract.model import Contract

__all__ = ["key_for", "read", "write"]

_FORMAT = 1  # bump when the Contract model changes shape in a way the code fingerprint could miss
_PACKAGE = Path(__file__).resolve().parents[1]
_ENTRIES = 64  # about 4 MB: the project's eight contracts and the copies recent tests made


def cache_dir() -> Path:
    explicit = os.environ.get("CONFORMANCE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "conformance" / "contracts"


@lru_cache(maxsize=1)
def _code() -> bytes:
    """Size and modification time of every module of the package: any edit builds again."""
    digest = hashlib.sha256(f"{_FORMAT}\0{sys.version}\0{_PACKAGE}".encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        try:
            info = path.stat()
        except OSError:
            continue
        digest.update(f"{path.relative_to(_PACKAGE)}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return digest.digest()


@lru_cache(maxsize=4)
def _documents(docs: Path) -> bytes | None:
    """The digest of the source documents, read once per process (as the loader's anchors are)
    rather than once per contract; None when one cannot be read."""
    digest = hashlib.sha256()
    try:  # bounded as the loader reads them: a link to /dev/zero is not hashed until memory runs out
        for doc in sorted(docs.glob("*.md")):
            digest.update(f"{doc.name}\0".encode() + read_text(doc, CONTRACT, ContractFileError).encode() + b"\0")
    except (ContractFileError, OSError):
        return None
    return digest.digest()


def key_for(folder: Path, docs: Path) -> str | None:
    """The digest of what loading ``folder`` reads; None when a file cannot be read (the loader
    then says what is wrong with it)."""
    documents = _documents(docs)
    if documents is None:
        return None
    digest = hashlib.sha256(_code() + documents)
    digest.update(f"{folder.resolve()}\0".encode())
    try:
        for name in ("openapi.yaml", "rules.yaml"):
            digest.update(read_text(folder / name, CONTRACT, ContractFileError).encode() + b"\0")
    except (ContractFileError, OSError):
        return None
    return digest.hexdigest()


def _path(service: str, folder: Path, key: str) -> Path:
    # Named by service and folder, so an entry replaces only the same contract's older one (a test's
    # edited copy of a contract in a temporary folder never evicts the project's).
    where = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
    return cache_dir() / f"{service}-{where}-{key}.pickle"


def _trusted(path: Path) -> bool:
    """A regular file of this user's that nobody else may write, in a directory the same holds for."""
    try:
        for place in (path.parent, path):
            info = place.lstat()
            if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return False
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def read(service: str, folder: Path, key: str) -> Contract | None:
    from conformance.contract.model import Contract

    path = _path(service, folder, key)
    if not _trusted(path):
        return None
    try:
        with path.open("rb") as handle:
            value = pickle.load(handle)  # noqa: S301 (see _trusted)
    except Exception:  # noqa: BLE001 - a truncated or foreign entry is only a cache miss
        return None
    return value if isinstance(value, Contract) and value.service == service else None


def write(service: str, folder: Path, key: str, contract: Contract) -> None:
    path = _path(service, folder, key)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with tmp.open("wb") as handle:
            pickle.dump(contract, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)  # whole or not at all: a reader never sees half an entry
        _prune(keep=path)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        with contextlib.suppress(OSError):  # not there, or its directory is not one
            tmp.unlink()


def _prune(keep: Path) -> None:
    """One entry per contract folder (yesterday's digests are never asked for again), and at most
    ``_ENTRIES`` in all: tests load edited copies of contracts from folders that then go away."""
    service_and_folder = keep.name.rsplit("-", 1)[0]
    for old in keep.parent.glob(f"{service_and_folder}-*.pickle"):
        if old != keep:
            old.unlink(missing_ok=True)
    entries = sorted(keep.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in entries[_ENTRIES:]:
        old.unlink(missing_ok=True)
