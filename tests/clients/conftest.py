"""Vendor clients against served simulators: every HTTP call a client makes is counted.

``tally(service)`` wraps a simulator so each request it answers is recorded; at the end of the
session the terminal summary gives, per service, the calls made, those made by tests that passed
(the client worked: every answer was what the test asserts) and those made by strict xfails (a
difference the xfail's reason names: the client's doing, or the document's silence). This is
the issue 23 table: `pytest tests/clients -p no:cacheprovider -q`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

# test node id -> (service, calls) ; node id -> outcome
_CALLS: dict[str, list[tuple[str, str, str, int]]] = defaultdict(list)
_OUTCOMES: dict[str, str] = {}


class Tally:
    """A simulator that records (service, method, path, status) of every request it answers."""

    def __init__(self, inner: Simulator, service: str, into: list[tuple[str, str, str, int]]) -> None:
        self._inner, self._service, self._into = inner, service, into

    def handle(self, request: Request) -> Response:
        response = self._inner.handle(request)
        self._into.append((self._service, request.method, request.path, response.status))
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@pytest.fixture
def tally(request: pytest.FixtureRequest) -> Callable[[str], Callable[[Simulator], Simulator]]:
    """``served(service, decorate=tally(service))``: count that simulator's calls for this test."""
    into = _CALLS[request.node.nodeid]

    def wrap(service: str) -> Callable[[Simulator], Simulator]:
        return lambda sim: Tally(sim, service, into)  # type: ignore[return-value]

    return wrap


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        _OUTCOMES[item.nodeid] = "xfailed" if hasattr(report, "wasxfail") else report.outcome
    return report


def pytest_terminal_summary(terminalreporter: Any) -> None:
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for node, calls in _CALLS.items():
        outcome = _OUTCOMES.get(node, "unknown")
        for service, *_ in calls:
            rows[service]["calls"] += 1
            rows[service][outcome] += 1
    if not rows:
        return
    terminalreporter.section("client calls through the served simulators")
    terminalreporter.write_line(f"{'service':14} {'calls':>6} {'worked':>7} {'xfail':>6} {'failed':>7}")
    for service, row in sorted(rows.items()):
        terminalreporter.write_line(f"{service:14} {row['calls']:6} {row['passed']:7} {row['xfailed']:6} "
                                    f"{row['failed']:7}")
