"""What a check gets: the rule, the contract, a session on the target, and helpers."""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any, NoReturn

from hypothesis import HealthCheck, Phase, settings

from conformance.contract import Contract, Rule
from conformance.errors import UsageError
from conformance.settings import env_name
from conformance.targets.base import Target
from conformance.transport.model import Exchange, Request
from conformance.transport.session import Session

__all__ = ["CheckContext", "CheckSkipped", "hypothesis_settings"]


def _freeze_local_constants() -> None:
    """Make generation independent of which local modules happen to be imported.

    Hypothesis mixes string and number literals found in "local" (non site-packages) modules
    into generated data. That pool depends on import order and on our own source, so the same
    derandomized gate generated different bodies in two processes, and cassettes recorded in one
    did not replay in the other. An empty pool makes generation a function of the seed alone.
    """
    from hypothesis.internal.conjecture import providers

    if hasattr(providers, "_get_local_constants") and hasattr(providers, "Constants"):
        providers._get_local_constants = providers.Constants


_freeze_local_constants()


class CheckSkipped(Exception):
    """The rule cannot be checked on this target; the reason says why."""


def hypothesis_settings(profile: str, *, scale: float = 1.0) -> settings:
    """gate: derandomized and bounded; nightly: deep and random. ``scale`` shrinks costly tests."""
    base: dict[str, Any] = dict(
        database=None,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                               HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    if profile == "nightly":
        return settings(max_examples=max(1, int(200 * scale)), derandomize=False, **base)
    # No shrinking in the gate: the first failing example is reported as generated, which keeps
    # a failing gate (and the kill matrix, which fails on purpose) as fast as a passing one.
    return settings(max_examples=max(1, int(20 * scale)), derandomize=True,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate], **base)


@dataclass
class CheckContext:
    contract: Contract
    rule: Rule
    target: Target
    session: Session
    profile: str = "gate"
    # Which alternative of a documented conflict the target showed (conflict id -> value).
    observations: dict[str, str] = field(default_factory=dict)

    # -- target facts --------------------------------------------------------------------
    def credential(self, name: str) -> str:
        value = self.target.credential(name)
        if not value:
            raise CheckSkipped(
                f"needs {env_name(self.contract.service, name)} on target '{self.target.name}'"
            )
        return value

    def sleep(self, seconds: float) -> None:
        self.session.sleep(seconds)

    def skip(self, reason: str) -> NoReturn:
        raise CheckSkipped(reason)

    def observe(self, conflict_id: str, value: str) -> None:
        self.observations[conflict_id] = value

    # -- building requests ---------------------------------------------------------------
    def path(self, template: str, operation: str | None = None, **values: str) -> str:
        path = template
        for name, value in values.items():
            path = path.replace("{" + name + "}", value)
        return self.contract.prefix_for(operation or f"GET {template}") + path

    def auth(self, request: Request) -> Request:
        """Apply the contract's default credentials (settings.auth) to a request."""
        specs = self.contract.settings.get("auth") or []
        for spec in specs if isinstance(specs, list) else [specs]:
            value = string.Formatter().vformat(spec["value"], (), _Creds(self))
            if spec["in"] == "header":
                request.headers[spec["name"].lower()] = value
            elif spec["in"] == "query":
                request.query = [(k, v) for k, v in request.query if k != spec["name"]]
                request.query.append((spec["name"], value))
            else:
                raise UsageError(f"settings.auth: unknown location {spec['in']}")
        return request

    def call(self, operation: str, *, auth: bool = True, path_values: dict[str, str] | None = None,
             backoff: bool = True, **kwargs: Any) -> Exchange:
        """Send one request for ``operation`` ('METHOD /path'); 429s are backed off by default."""
        method, template = operation.split(" ", 1)
        path = self.path(template, operation=operation, **(path_values or {}))
        if "json_body" in kwargs:
            body = kwargs.pop("json_body")
            request = self.contract.body_request(operation, method, path, body, **kwargs)
        else:
            request = Request.build(method, path, **kwargs)
        if auth:
            request = self.auth(request)
        if backoff:
            return self.session.send_with_backoff(request)
        return self.session.send(request)


class _Creds(dict[str, str]):
    """Formatter mapping that looks credentials up lazily (and skips when one is missing)."""

    def __init__(self, ctx: CheckContext) -> None:
        super().__init__()
        self._ctx = ctx

    def __missing__(self, key: str) -> str:
        return self._ctx.credential(key)
