"""The fault type and the wrappers faults are built from."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["Fault", "FaultySimulator", "Variant", "derived_fault", "fault", "json_edit", "on_request", "on_response",
           "path_pattern", "variant"]


@dataclass(frozen=True)
class Fault:
    """A small, named deviation applied to a simulator, meant to break one rule.

    ``breaks`` is the id of that rule. A service's hand-written fault is created without it:
    rules.yaml binds the fault's name to its rule (``faults: [...]``) and the core fills it in
    (``conformance.services.faults_for``); only faults the core derives from a rule carry it."""

    name: str
    description: str
    apply: Callable[[Simulator], Simulator]
    breaks: str = ""


@dataclass(frozen=True)
class Variant:
    """An allowed variant: the simulator choosing differently where the document is silent or
    allows two readings. The mirror image of a fault: every rule must still pass under it."""

    name: str
    description: str
    apply: Callable[[Simulator], Simulator]


class FaultySimulator:
    """Wraps a simulator; ``before``/``after`` rewrite traffic. Everything else is delegated."""

    def __init__(self, inner: Simulator,
                 before: Callable[[Request], Request] | None = None,
                 after: Callable[[Request, Response], Response] | None = None) -> None:
        self._inner = inner
        self._before = before
        self._after = after

    def handle(self, request: Request) -> Response:
        if self._before is not None:
            request = self._before(request)
        response = self._inner.handle(request)
        if self._after is not None:
            response = self._after(request, response)
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def on_request(fn: Callable[[Request], Request]) -> Callable[[Simulator], Simulator]:
    return lambda sim: FaultySimulator(sim, before=fn)  # type: ignore[return-value]


def on_response(fn: Callable[[Request, Response], Response]) -> Callable[[Simulator], Simulator]:
    return lambda sim: FaultySimulator(sim, after=fn)  # type: ignore[return-value]


def json_edit(body: bytes, edit: Callable[[Any], Any]) -> bytes:
    """Apply ``edit`` to a JSON body; bodies that are not JSON pass unchanged."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    return json.dumps(edit(data)).encode()


def fault(name: str, description: str) -> Callable[[Callable[[Simulator], Simulator]], Fault]:
    """A service's hand-written fault; the rule it breaks is bound in rules.yaml by ``name``."""

    def make(apply: Callable[[Simulator], Simulator]) -> Fault:
        return Fault(name, description, apply)

    return make


def derived_fault(name: str, breaks: str, description: str) -> Callable[[Callable[[Simulator], Simulator]], Fault]:
    """A fault the core derives from the rule ``breaks`` (the rule is data the core reads)."""

    def make(apply: Callable[[Simulator], Simulator]) -> Fault:
        return Fault(name, description, apply, breaks)

    return make


def variant(name: str, description: str) -> Callable[[Callable[[Simulator], Simulator]], Variant]:
    def make(apply: Callable[[Simulator], Simulator]) -> Variant:
        return Variant(name, description, apply)

    return make


def path_pattern(path: str) -> re.Pattern[str]:
    """The operation's path template, matched at the end of the request path (server prefixes vary)."""
    parts = re.split(r"(\{[^}]+\})", path)
    return re.compile("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts) + "$")
