"""What a configuration file may hold, and how each value becomes a ``CONFORMANCE_*`` variable.

A named target holds run-wide keys (the variables of ``settings.RUN_VARIABLES`` a team would set,
named without the ``CONFORMANCE_`` prefix, lower case) and one table per service, whose keys are
the service's own variables (``CONFORMANCE_<ID>_<NAME>``) in lower case: ``base_url``, the
catalogue's credentials and settings, its path settings, ``rate_scale`` where a client rate is
documented. Which of them is a credential comes from the catalogue (``secret``, true unless it
says false), so a literal credential is refused by key, never guessed from how a value looks.

Values may refer to the environment: ``${NAME}`` (set and non-empty, else the file is refused) or
``${NAME:-default}`` (the default when unset or empty). A credential's value is one reference and
nothing else (``${NAME}``, or ``${NAME:-}`` for an optional one): a default there would be a secret
written in the file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from conformance.errors import UsageError, did_you_mean
from conformance.settings import (
    ALLOWANCES,
    LIMIT_VARIABLES,
    PROFILES,
    RECORD_MODES,
    TARGETS,
    Limits,
    MinChecked,
    env_name,
)

if TYPE_CHECKING:
    from conformance.cli.envfacts import ServiceFacts

__all__ = ["REFERENCE", "RUN_KEYS", "BadValue", "ServiceKey", "resolve", "service_keys", "sole_reference"]

# ${NAME} or ${NAME:-default}; the name as a shell variable's.
REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class BadValue(ValueError):
    """A value of the wrong type or out of range: the message says what the key takes."""


def resolve(text: str, environ: Mapping[str, str]) -> tuple[str, list[str]]:
    """``text`` with its references replaced, and the names referred to that are missing
    (unset or empty, without a default)."""
    missing: list[str] = []

    def one(match: re.Match[str]) -> str:
        value = environ.get(match.group(1)) or ""
        if value:
            return value
        if match.group(2) is None:
            missing.append(match.group(1))
        return match.group(2) or ""

    return REFERENCE.sub(one, text), missing


def sole_reference(value: object) -> bool:
    """Is ``value`` one reference and nothing else, with no default but the empty one? The only
    form a credential may take."""
    if not isinstance(value, str):
        return False
    match = REFERENCE.fullmatch(value)
    return match is not None and not match.group(2)


# --- run-wide keys -------------------------------------------------------------------------


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise BadValue(f"must be a string, got {_kind(value)}")
    return value


def _choice(options: tuple[str, ...]) -> Callable[[object], str]:
    def convert(value: object) -> str:
        text = _text(value)
        if text not in options:
            raise BadValue(f"must be one of {', '.join(options)}, got {text!r}{did_you_mean(text, options)}")
        return text
    return convert


def _allow(value: object) -> str:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadValue(f"must be a list of strings from {', '.join(ALLOWANCES)}, got {_kind(value)}")
    unknown = [v for v in value if v not in ALLOWANCES]
    if unknown:
        raise BadValue(f"takes {', '.join(ALLOWANCES)}, got {unknown[0]!r}")
    return ",".join(value)


def _number(whole: bool, auto: bool = False) -> Callable[[object], str]:
    """A number above 0 (a whole one for counts); "auto" too where the setting has it."""
    def convert(value: object) -> str:
        if auto and value == "auto":
            return "auto"
        if isinstance(value, str):  # from a reference, as an environment variable would give it
            value = _parsed(value)
        number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        if number is None or (whole and not isinstance(number, int)) or not math.isfinite(number) or number <= 0:
            what = ("a whole number" if whole else "a number") + " above 0" + (' or "auto"' if auto else "")
            raise BadValue(f"must be {what}, got {value!r}")
        return f"{number:g}" if isinstance(number, float) else str(number)
    return convert


def _parsed(text: str) -> object:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _min_checked(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise BadValue(f"must be a percentage (\"80%\") or a count of rules, got {_kind(value)}")
    try:
        MinChecked.parse(str(value), "it")
    except UsageError as exc:  # "it takes a percentage from 0% to 100% or a count of rules, got '...'"
        raise BadValue(str(exc).removeprefix("it ")) from None
    return str(value)


def _limits() -> dict[str, tuple[str, Callable[[object], str]]]:
    out: dict[str, tuple[str, Callable[[object], str]]] = {}
    for f in fields(Limits):
        variable = LIMIT_VARIABLES[f.name]
        out[variable.removeprefix("CONFORMANCE_").lower()] = (
            variable, _number(whole="int" in str(f.type) and "float" not in str(f.type), auto=f.default is None))
    return out


# Run-wide key -> (variable, conversion to the variable's text). Only what a team sets per
# target: where the contracts live and the harness's own test hooks are not a target's business.
RUN_KEYS: dict[str, tuple[str, Callable[[object], str]]] = {
    "target": ("CONFORMANCE_TARGET", _choice(TARGETS)),
    "profile": ("CONFORMANCE_PROFILE", _choice(PROFILES)),
    "allow": ("CONFORMANCE_ALLOW", _allow),
    "min_checked": ("CONFORMANCE_MIN_CHECKED", _min_checked),
    "record_mode": ("CONFORMANCE_RECORD_MODE", _choice(RECORD_MODES)),
    "time_scale": ("CONFORMANCE_TIME_SCALE", _number(whole=False)),
    "docs_url": ("CONFORMANCE_DOCS_URL", _text),
    **_limits(),
}


# --- per-service keys ----------------------------------------------------------------------


@dataclass(frozen=True)
class ServiceKey:
    variable: str
    secret: bool
    convert: Callable[[object], str]


def _setting(value: object) -> str:
    """A service setting: a string, or a number written as TOML writes it (a page size, a flag 1)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise BadValue(f"must be a string or a number, got {_kind(value)}")
    return value if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)


def service_keys(service: str, facts: ServiceFacts) -> dict[str, ServiceKey]:
    """The keys of a service's table: the variables `conformance env` lists for it."""
    keys = {"base_url": ServiceKey(env_name(service, "BASE_URL"), False, _text)}
    for name in facts.paths:
        keys[name.lower()] = ServiceKey(env_name(service, name.upper()), False, _setting)
    for cred in facts.credentials:
        secret = bool(cred.get("secret", True))
        keys[cred["name"].lower()] = ServiceKey(env_name(service, cred["name"]), secret, _text if secret else _setting)
    if facts.rates:
        keys["rate_scale"] = ServiceKey(env_name(service, "RATE_SCALE"), False, _number(whole=False))
    return keys


def _kind(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
             dict: "a table"}
    return next((text for kind, text in names.items() if isinstance(value, kind)), type(value).__name__)
