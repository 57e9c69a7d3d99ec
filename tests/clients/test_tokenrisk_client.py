"""A real client library against the served token-risk simulator.

``rugcheck`` (1.0.0, a small wrapper of the real service's API) fetches
GET /v1/tokens/{id}/report and GET /v1/tokens/{id}/votes from a fixed host; the test points
that host at the served simulator. Its ``summary`` reads report fields the document does not
show (tokenMeta, rugged, totalMarketLiquidity ...; gap tokenrisk.gap.response-payloads): the
simulator's full report carries them, a simulator choice no rule reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.services.tokenrisk.simulator import TokenRiskSimulator
from conformance.simulators.base import WallClock
from tests.conftest import serve

rugcheck = pytest.importorskip("rugcheck")
requests = pytest.importorskip("requests")

REAL_HOST = "https://api.rugcheck.xyz"
TOKEN = TokenRiskSimulator.credentials["TOKEN_ID"]


@pytest.fixture()
def served_client(monkeypatch: pytest.MonkeyPatch, tally: Callable[[str], Any]) -> Iterator[None]:
    with serve(tally("tokenrisk")(TokenRiskSimulator(WallClock()))) as base:
        real_get = requests.get

        def get(url: str, **kwargs: Any) -> Any:  # the library calls requests.get(url=...)
            assert url.startswith(REAL_HOST), f"the client left its API: {url}"
            return real_get(base + url[len(REAL_HOST):], **kwargs)

        monkeypatch.setattr(requests, "get", get)
        yield


def test_report_and_votes_through_the_library(served_client: None) -> None:
    client = rugcheck.rugcheck(TOKEN, get_votes=True)
    assert client.mint == TOKEN
    assert client.result in ("Good", "Warning", "Danger")  # from the report's score
    assert client.votes.get("up") is not None
    assert client.to_dict()["mint"] == TOKEN


def test_summary_of_the_library(served_client: None) -> None:
    client = rugcheck.rugcheck(TOKEN)
    summary = client.summary
    assert summary["mint"] == TOKEN and summary["rugged"] is False and summary["name"]
    assert "Risk Score" in str(client)
