"""What ``conformance env`` shows of each contract, kept between runs.

Loading a contract costs jsonschema, yaml, httpx and about 0.15 s per service (1.3 s for all
eight); env needs four small facts of each. They are cached as JSON under the user's cache
directory, keyed by the sha256 of the contract's two files (the key ``Contract.digest`` uses),
so an edited contract is loaded, and so validated, again. A cache that cannot be read or
written only costs the load.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from conformance.cli.ids import schemas_dir

__all__ = ["ServiceFacts", "facts_for"]

_FORMAT = 2  # bump when ServiceFacts changes: old entries are then never read


@dataclass(frozen=True)
class ServiceFacts:
    title: str
    # rules.yaml credentials: name, statement, optional, secret (true unless the catalogue says
    # false), default (settings.defaults, when the catalogue gives one)
    credentials: list[dict[str, Any]]
    # Server variable name -> (value the documents set: rules.yaml settings over the OpenAPI
    # default, description). The environment's override is applied when shown, never cached.
    paths: dict[str, tuple[str, str]]
    rates: list[dict[str, Any]]  # x-client-rate-limits


def facts_for(service: str) -> ServiceFacts:
    digest = _digest(service)
    path = _cache_dir() / f"env-{service}-{digest}.json" if digest else None
    cached = _read(path) if path else None
    if cached is not None:
        return cached
    facts = _load(service)  # an unknown service or a broken contract: its one-line error, here
    if path:
        _write(path, facts)
    return facts


def _digest(service: str) -> str | None:
    folder = schemas_dir() / service
    from conformance.errors import ContractFileError
    from conformance.files import CONTRACT, read_text

    try:  # bounded as the loader reads them (a link to /dev/zero is not hashed until memory runs out)
        data = (read_text(folder / "openapi.yaml", CONTRACT, ContractFileError) + "\0"
                + read_text(folder / "rules.yaml", CONTRACT, ContractFileError)).encode()
    except ContractFileError:
        return None  # the loader names what is wrong
    return hashlib.sha256(f"{_FORMAT}\0{folder.resolve()}\0".encode() + data).hexdigest()


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "conformance"


def _read(path: Path) -> ServiceFacts | None:
    from conformance.errors import HarnessError
    from conformance.files import CONFIG, load_json

    try:  # a cache: anything odd in it (a link to /dev/zero, a deep value) reads as not cached
        data = load_json(path, CONFIG, HarnessError)
        paths = {name: (str(value), str(text)) for name, (value, text) in data["paths"].items()}
        return ServiceFacts(title=data["title"], credentials=data["credentials"], paths=paths, rates=data["rates"])
    except (HarnessError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write(path: Path, facts: ServiceFacts) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(asdict(facts)), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def _load(service: str) -> ServiceFacts:
    from conformance.contract import load_contract

    contract = load_contract(service)
    defaults = contract.settings.get("defaults") or {}
    credentials = [{**{k: c[k] for k in ("name", "statement", "optional") if k in c},
                    "secret": bool(c.get("secret", True)),
                    **({"default": str(defaults[c["name"]])} if c["name"] in defaults else {})}
                   for c in contract.settings.get("credentials", [])]
    return ServiceFacts(title=contract.title, credentials=credentials, paths=_documented(service, contract),
                        rates=list(contract.openapi.get("x-client-rate-limits") or []))


def _documented(service: str, contract: Any) -> dict[str, tuple[str, str]]:
    """``server_variables()`` without this process's overrides (``CONFORMANCE_<ID>_<NAME>``),
    which are read when shown: the cache must hold the same for every environment."""
    prefix = f"CONFORMANCE_{service.upper()}_"
    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith(prefix)}
    try:
        return dict(contract.server_variables())
    finally:
        os.environ.update(saved)
