"""Reading the params of a gap's ``allows`` entry, for the variant families (faults/families.py).

An entry is data written in rules.yaml, so every mistake in it (a missing or unknown param, a
value of the wrong type, a regular expression that does not compile) is a ContractFileError of
one line naming the gap and the family, never a traceback when the variant first runs.

The scope params every family takes, so that a family says *what* it changes and the entry says
*where*:

``paths``       a regular expression searched in the request path (default: every path);
``method``      a method or a list of methods (default: any);
``operations``  a list of ``"METHOD /template"`` of openapi.yaml (``{id}`` matches one segment);
``statuses``    the answer statuses changed (a status, a class ``"2xx"`` or a list; the family gives
                the default).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from conformance.errors import ContractFileError, did_you_mean
from conformance.faults.toolkit import Match, operations
from conformance.transport.model import Request

__all__ = ["Params"]

_UNSET = object()


class Params:
    """An allows entry's params, each read once; ``done()`` refuses those no family read."""

    def __init__(self, where: str, params: dict[str, Any]) -> None:
        self._where = where
        self._params = dict(params)
        self._read: set[str] = set()

    def error(self, message: str) -> ContractFileError:
        return ContractFileError(f"{self._where}: {message}")

    def _get(self, name: str, default: Any) -> Any:
        self._read.add(name)
        value = self._params.get(name, default)
        if value is _UNSET:
            given = [k for k in self._params if k != name]
            raise self.error(f"needs the param '{name}'{did_you_mean(name, given).replace('did you mean', 'given')}")
        return value

    def text(self, name: str, default: Any = _UNSET) -> Any:
        value = self._get(name, default)
        if value is not default and not isinstance(value, str):
            raise self.error(f"'{name}' must be a string, not {value!r}")
        return value

    def flag(self, name: str, default: bool = False) -> bool:
        value = self._get(name, default)
        if not isinstance(value, bool):
            raise self.error(f"'{name}' must be true or false, not {value!r}")
        return value

    def value(self, name: str, default: Any = _UNSET) -> Any:
        """Any JSON value (a body, a member's value)."""
        return self._get(name, default)

    def regex(self, name: str, default: str = "") -> re.Pattern[str]:
        source = self.text(name, default)
        try:
            return re.compile(source)
        except re.error as exc:
            raise self.error(f"'{name}' is not a regular expression ({exc}): {source!r}") from None

    def texts(self, name: str, default: Any = _UNSET) -> list[str]:
        """A list of strings (a single string is a list of one)."""
        value = self._get(name, default)
        listed = [value] if isinstance(value, str) else value
        if not isinstance(listed, list) or not listed or not all(isinstance(v, str) for v in listed):
            raise self.error(f"'{name}' must be a string or a non-empty list of strings, not {value!r}")
        return listed

    def statuses(self, name: str, default: Iterable[int] | None = None, *,
                 required: bool = False) -> frozenset[int] | None:
        """A status or a list of them; absent, ``default`` (None: every status)."""
        value = self._get(name, _UNSET if required else None)
        if value is None:
            return None if default is None else frozenset(default)
        listed = value if isinstance(value, list) else [value]
        out: set[int] = set()
        for one in listed:
            if isinstance(one, str) and re.fullmatch(r"[1-5]xx", one):  # a class: "2xx"
                out.update(range(int(one[0]) * 100, int(one[0]) * 100 + 100))
            elif isinstance(one, int) and not isinstance(one, bool) and 100 <= one <= 599:
                out.add(one)
            else:
                raise self.error(f"'{name}' must be an HTTP status, a class such as \"2xx\", or a list of them, "
                                 f"not {value!r}")
        if not out:
            raise self.error(f"'{name}' must not be empty")
        return frozenset(out)

    def status(self, name: str) -> int:
        value = self._get(name, _UNSET)
        if not isinstance(value, int) or isinstance(value, bool) or not 100 <= value <= 599:
            raise self.error(f"'{name}' must be an HTTP status, not {value!r}")
        return value

    def choice(self, name: str, choices: Iterable[str], default: Any = _UNSET) -> str:
        value = self.text(name, default)
        listed = list(choices)
        if value not in listed:
            raise self.error(f"'{name}' must be one of {', '.join(listed)}, not {value!r}")
        return str(value)

    def scope(self) -> Match:
        """The requests the entry's ``paths``, ``method`` and ``operations`` pick (all of them)."""
        paths = self.regex("paths")
        methods = {m.upper() for m in self.texts("method", ["*"])}
        listed = self._get("operations", None)
        picked: Match | None = None
        if listed is not None:
            names = self.texts("operations")
            bad = [n for n in names if not re.match(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /", n)]
            if bad:
                raise self.error(f"'operations' entries are 'METHOD /path', not {bad[0]!r}")
            picked = operations(names)

        def match(request: Request) -> bool:
            return (("*" in methods or request.method in methods) and bool(paths.search(request.path))
                    and (picked is None or picked(request)))

        return match

    def done(self) -> None:
        unknown = sorted(set(self._params) - self._read)
        if unknown:
            hint = did_you_mean(unknown[0], self._read) if len(unknown) == 1 else ""
            raise self.error(f"unknown param{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}{hint}")
