"""A check against a small in-test server: the context a check runs in, its requests answered by a
handler of the harness's own ``Request`` through the transport the sim target uses
(``targets.sim.mock_transport``), so tests of core checks build none of it again."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import SimpleNamespace

import httpx

from conformance.checks.context import CheckContext
from conformance.checks.registry import check_params, spec_for
from conformance.contract import Contract, Rule
from conformance.targets.base import Capabilities
from conformance.targets.sim import mock_transport
from conformance.transport.model import Request, Response
from conformance.transport.session import Session

__all__ = ["context"]

BASE_URL = "http://demo.invalid"


def context(contract: Contract, rule: Rule, handle: Callable[[Request], Response],
            settings: Mapping[str, str] | None = None) -> CheckContext:
    """``rule`` of ``contract`` (its params checked against what its check declares) in a context
    whose requests ``handle`` answers; ``settings`` are the target's credentials and settings."""
    check_params(rule, spec_for(rule))
    known = dict(settings or {})
    target = SimpleNamespace(name="sim", capabilities=Capabilities(), credential=known.get,
                             settings=SimpleNamespace(allow=(), seed=None))
    client = httpx.Client(base_url=BASE_URL, transport=mock_transport(SimpleNamespace(handle=handle)))  # type: ignore[arg-type]
    # The statuses the contract tells clients to retry are retried as on any target (no waiting here).
    session = Session(client, base_url=BASE_URL, sleep=lambda s: None, retry_statuses=contract.retry_statuses())
    return CheckContext(contract, rule, target, session)  # type: ignore[arg-type]
