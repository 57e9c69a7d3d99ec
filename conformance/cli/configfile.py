"""The configuration file (``conformance.toml``): a team's named targets (``sandbox``, ``staging``),
each holding run-wide settings and, per service, its base URL, settings and credentials by
reference to the environment; docs/configuration.md is the reference.

The file only fills what the environment leaves unset: what the chosen target gives becomes this
process's ``CONFORMANCE_*`` variables (``apply``), which every layer already reads, so precedence is
one rule everywhere, pytest-xdist workers included: command line > environment > file > default.
Parsed with tomllib, bounded in size; every mistake is one UsageError line naming file and key.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.cli.configkeys import REFERENCE, RUN_KEYS, BadValue, ServiceKey, resolve, service_keys, sole_reference
from conformance.errors import UsageError, did_you_mean

__all__ = ["FILE_NAME", "MAX_BYTES", "Config", "Entry", "apply", "configure", "find", "load", "references"]

FILE_NAME = "conformance.toml"
# Eight services' blocks in three targets are about 20 KB; anything past this is not a
# configuration file, and is refused before it is parsed.
MAX_BYTES = 256 * 1024
_TOP_KEYS = ("default_target", "targets")


@dataclass(frozen=True)
class Entry:
    """One variable the chosen target gives: its value (references resolved) and where it is written."""

    variable: str
    value: str
    key: str  # dotted, as the file nests it: targets.sandbox.scanning.api_key
    secret: bool


@dataclass(frozen=True)
class Config:
    path: Path
    target: str | None  # the chosen target; None: the file was checked, nothing taken from it
    targets: tuple[str, ...]
    entries: dict[str, Entry] = field(default_factory=dict)  # by variable
    # Services the chosen target configures; those whose base_url came out empty are off (not
    # configured here, e.g. a sandbox whose URL the repository does not set): their keys are unread.
    services: tuple[str, ...] = ()
    off: tuple[str, ...] = ()


def find(start: Path | None = None) -> Path | None:
    """The project's file: ``conformance.toml`` in the working directory or the nearest parent,
    as pytest finds its rootdir's ini file."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / FILE_NAME
        if candidate.is_file():
            return candidate
    return None


def load(config: str | None, target_name: str | None, services: Sequence[str] | None = None,
         environ: Mapping[str, str] | None = None) -> Config | None:
    """The file given (``--config``) or found, checked whole; the chosen target's values resolved
    for ``services`` (default: every service it configures). None when there is no file."""
    opened = _open(config, target_name)
    if opened is None:
        return None
    where, targets, chosen = opened
    if chosen is None:
        return Config(where.path, None, tuple(targets))
    return _resolve(where, chosen, tuple(targets), targets[chosen], services,
                    os.environ if environ is None else environ)


def _open(config: str | None, target_name: str | None) -> tuple[_Where, dict[str, dict[str, Any]], str | None] | None:
    """The file read and checked, its targets, and the chosen one's name (None: none chosen);
    None when no file is given or found and no target is asked for."""
    path = Path(config) if config else find()
    if path is None:
        if target_name:
            raise UsageError(f"--target-name {target_name} needs a configuration file: no {FILE_NAME} in "
                             f"{Path.cwd()} or a parent; give one with --config FILE")
        return None
    data = _read(path)
    where = _Where(path)
    chosen = target_name or data.get("default_target")
    targets = _check(where, data, chosen)
    if chosen is not None and chosen not in targets:
        source = "--target-name" if target_name else "default_target"
        raise UsageError(f"{path}: no target '{chosen}' ({source}); targets: {', '.join(targets) or 'none'}"
                         f"{did_you_mean(chosen, targets)}")
    return where, targets, chosen


def configure(args: argparse.Namespace) -> Config | None:
    """For a command with ``--config``, ``--target-name`` and ``--service``: the chosen target's
    values put into this process's environment where it leaves them unset; without ``--service``,
    the services the target configures are the selection (when it names any)."""
    config = load(args.config, args.target_name, args.service)
    if config is None or config.target is None:
        return config
    apply(config)
    if not args.service and (config.services or config.off):
        if not config.services:
            raise UsageError(f"{config.path}: target {config.target} configures no service here: the base_url of "
                             f"{', '.join(config.off)} came out empty (its environment variable is unset)")
        args.service = list(config.services)
    return config


def references(config: str | None, target_name: str | None,
               services: Sequence[str]) -> list[tuple[str, str, bool, str]]:
    """(service or "run-wide", NAME, is a credential, key) for each ``${NAME}`` the chosen target
    refers to: the names a CI workflow must map into the run's environment. Nothing is resolved."""
    opened = _open(config, target_name)
    chosen = opened[2] if opened else None
    if opened is None or chosen is None:
        raise UsageError("--references needs a target of a configuration file: --target-name NAME "
                         "(or the file's default_target)")
    targets = opened[1]
    found: list[tuple[str, str, bool, str]] = []
    for key, value in targets[chosen].items():
        dotted = f"targets.{chosen}.{key}"
        if not isinstance(value, dict):
            found += [("run-wide", m.group(1), False, dotted) for m in REFERENCE.finditer(str(value))]
        elif key in services:
            keys = _service_keys(key)
            found += [(key, m.group(1), keys[item].secret, f"{dotted}.{item}")
                      for item, raw in value.items() for m in REFERENCE.finditer(str(raw))]
    return found


def apply(config: Config, environ: dict[str, str] | os._Environ[str] | None = None) -> list[str]:
    """Set each variable the file gives that the environment leaves unset or empty; the names set."""
    env = os.environ if environ is None else environ
    done = []
    for entry in config.entries.values():
        if not env.get(entry.variable):
            env[entry.variable] = entry.value
            done.append(entry.variable)
    return done


@dataclass(frozen=True)
class _Where:
    path: Path

    def bad(self, key: str, message: str) -> UsageError:
        return UsageError(f"{self.path}: {key}: {message}")


def _read(path: Path) -> dict[str, Any]:
    import tomllib  # only when there is a file: about 10 ms of `conformance env` otherwise

    from conformance.files import CONFIG, measure

    if path.exists() and not path.is_file() and not path.is_dir():  # a FIFO would block the open
        raise UsageError(f"{path}: not a regular file (a device or FIFO); not a configuration file")
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise UsageError(f"--config {path} is a directory, not a file") from None
    except OSError as exc:
        raise UsageError(f"cannot read configuration file {path}: {exc.strerror}") from None
    if len(raw) > MAX_BYTES:
        raise UsageError(f"{path}: larger than {MAX_BYTES // 1024} KiB; not a configuration file")
    try:
        # Depth bounded as every file read (conformance/files.py); tomllib recurses per level.
        return measure(tomllib.loads(raw.decode("utf-8")), CONFIG, str(path), UsageError)
    except RecursionError:
        raise UsageError(f"{path}: nested too deep to read; not a configuration file") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None


def _check(where: _Where, data: dict[str, Any], chosen: object) -> dict[str, dict[str, Any]]:
    """Every key and type of every target (not only the chosen one: a typo in staging is found
    by tonight's sandbox run, not next week's); the targets by name."""
    for key in data:
        if key not in _TOP_KEYS:
            raise where.bad(key, f"unknown key; a file holds {', '.join(_TOP_KEYS)}{did_you_mean(key, _TOP_KEYS)}")
    targets = data.get("targets", {})
    if not isinstance(targets, dict):
        raise where.bad("targets", "must be a table of named targets ([targets.NAME])")
    default = data.get("default_target")
    if default is not None and not isinstance(default, str):
        raise where.bad("default_target", "must be a string naming one of [targets]")
    from conformance.cli.ids import available_services

    services = available_services() if any(isinstance(v, dict) for b in targets.values() if isinstance(b, dict)
                                           for v in b.values()) else []
    for name, body in targets.items():
        if not isinstance(body, dict):
            raise where.bad(f"targets.{name}", "must be a table ([targets.NAME])")
        for key, value in body.items():
            _check_key(where, f"targets.{name}.{key}", key, value, services, chosen=name == chosen)
    return targets


def _check_key(where: _Where, dotted: str, key: str, value: object, services: list[str], *, chosen: bool) -> None:
    if isinstance(value, dict):
        if key not in services:
            if not chosen:
                # Another target's service the contracts here do not have (CONFORMANCE_SCHEMAS_DIR
                # pointing at a few): refused only when that target is chosen.
                return
            raise where.bad(dotted, f"unknown service{did_you_mean(key, services)}; services: {', '.join(services)}")
        keys = _service_keys(key)
        for name, item in value.items():
            _check_value(where, f"{dotted}.{name}", name, item, keys)
        return
    if key not in RUN_KEYS:
        raise where.bad(dotted, f"unknown key{did_you_mean(key, RUN_KEYS)}; a target holds {', '.join(RUN_KEYS)} "
                                "and one table per service")
    if not _has_reference(value):
        _convert(where, dotted, RUN_KEYS[key][1], value)


def _check_value(where: _Where, dotted: str, name: str, value: object, keys: dict[str, ServiceKey]) -> None:
    spec = keys.get(name)
    if spec is None:
        raise where.bad(dotted, f"unknown key{did_you_mean(name, keys)}; `conformance env --service "
                                f"{dotted.split('.')[2]}` lists this service's variables")
    if spec.secret and not sole_reference(value):
        # Never echo the value: it may be the secret itself.
        raise where.bad(dotted, "is a credential: write a reference to the environment (\"${NAME}\"), "
                                "never its value in the file")
    if not _has_reference(value):
        _convert(where, dotted, spec.convert, value)


def _resolve(where: _Where, name: str, targets: Sequence[str], body: dict[str, Any],
             services: Sequence[str] | None, environ: Mapping[str, str]) -> Config:
    entries: dict[str, Entry] = {}
    configured: list[str] = []
    off: list[str] = []
    for key, value in body.items():
        dotted = f"targets.{name}.{key}"
        if not isinstance(value, dict):
            variable, convert = RUN_KEYS[key]
            _add(entries, where, dotted, variable, False, convert, value, environ)
            continue
        if services is not None and key not in services:
            continue  # a service this run does not select: its references are not needed
        if "base_url" in value and not _value(where, f"{dotted}.base_url", str(value["base_url"]), environ):
            off.append(key)  # its base URL came out empty: not configured in this environment
            continue
        configured.append(key)
        keys = _service_keys(key)
        for item, raw in value.items():
            spec = keys[item]
            _add(entries, where, f"{dotted}.{item}", spec.variable, spec.secret, spec.convert, raw, environ)
    return Config(where.path, name, tuple(targets), entries, tuple(configured), tuple(off))


def _add(entries: dict[str, Entry], where: _Where, dotted: str, variable: str, secret: bool,
         convert: Callable[[object], str], raw: object, environ: Mapping[str, str]) -> None:
    """The key's value, resolved and converted; a reference that came out empty (``${NAME:-}``
    with NAME unset) leaves the key out, as if it were not written."""
    value = _value(where, dotted, raw, environ) if isinstance(raw, str) else raw
    if value == "":
        return
    entries[variable] = Entry(variable, _convert(where, dotted, convert, value), dotted, secret)


def _value(where: _Where, dotted: str, raw: str, environ: Mapping[str, str]) -> str:
    """A string value with its references resolved; a missing one is refused, naming the key."""
    text, missing = resolve(raw, environ)
    if missing:
        raise where.bad(dotted, f"refers to ${{{missing[0]}}}, which is not set in the environment")
    return text


def _convert(where: _Where, dotted: str, convert: Callable[[object], str], value: object) -> str:
    try:
        return str(convert(value))
    except BadValue as exc:
        raise where.bad(dotted, str(exc)) from None


def _has_reference(value: object) -> bool:
    return isinstance(value, str) and REFERENCE.search(value) is not None


def _service_keys(service: str) -> dict[str, ServiceKey]:
    from conformance.cli.envfacts import facts_for

    return service_keys(service, facts_for(service))
