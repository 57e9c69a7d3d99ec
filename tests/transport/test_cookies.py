"""A target that sets a cookie on every answer gets none back (issue 34, item 8).

The harness sends only the credentials the contract names; a Set-Cookie the target sends must
not ride along on the rule's later requests (a probe without credentials above all), nor on the
next rule's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.contract import load_contract
from conformance.faults.base import on_response
from conformance.services import target_for
from conformance.settings import RunSettings
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

SERVICE = "presentations"
RUN_SECONDS = 240  # a bound for the whole run (about 10 s on an idle machine)


class CookieSetter:
    """Wraps a simulator: records the Cookie header of every request it receives, and answers
    each with a new session cookie (another name each time, as a jar that grew to 1 MB saw)."""

    def __init__(self) -> None:
        self.received: list[str | None] = []

    def __call__(self, sim: Simulator) -> Simulator:
        def after(request: Request, response: Response) -> Response:
            self.received.append(request.header("cookie"))
            response.headers["set-cookie"] = f"session{len(self.received)}=s3cr3t-{len(self.received)}; Path=/"
            return response

        return on_response(after)(sim)


def _three_requests(target: object) -> None:
    for rule in ("first-rule", "second-rule"):
        with target.session(rule) as session:  # type: ignore[attr-defined]
            for _ in range(3):
                session.send(Request.build("GET", "/v1.0/themes"))  # no credentials


def test_the_in_process_simulator_gets_no_cookie_back() -> None:
    cookies = CookieSetter()
    target = target_for(load_contract(SERVICE), RunSettings(target="sim"), decorate=cookies)
    _three_requests(target)
    assert cookies.received == [None] * 6


@pytest.mark.slow
def test_a_served_target_gets_no_cookie_back(served: Callable[..., object], monkeypatch: pytest.MonkeyPatch) -> None:
    cookies = CookieSetter()
    with served(SERVICE, decorate=cookies) as (url, _sim):  # type: ignore[attr-defined]
        monkeypatch.setenv(f"CONFORMANCE_{SERVICE.upper()}_BASE_URL", url)
        _three_requests(target_for(load_contract(SERVICE), RunSettings(target="http")))
    assert cookies.received == [None] * 6


@pytest.mark.slow
def test_no_request_of_a_whole_run_carries_a_cookie(served: Callable[..., object], tmp_path: Path) -> None:
    cookies = CookieSetter()
    with served(SERVICE, decorate=cookies) as (url, sim):  # type: ignore[attr-defined]
        env = {**os.environ, f"CONFORMANCE_{SERVICE.upper()}_BASE_URL": url,
               f"CONFORMANCE_{SERVICE.upper()}_API_KEY": sim.credentials["API_KEY"],
               "CONFORMANCE_RUN_SECONDS": "180", "CONFORMANCE_REQUEST_SECONDS": "5"}
        proc = subprocess.run([sys.executable, "-m", "conformance", "run", "--service", SERVICE, "--target", "http",
                               "--no-allure", "--report-dir", str(tmp_path / "r")], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=RUN_SECONDS)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-2000:]
    assert len(cookies.received) > 20, proc.stdout[-2000:]
    assert [c for c in cookies.received if c is not None] == []
