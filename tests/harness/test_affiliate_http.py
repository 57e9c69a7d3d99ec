"""The affiliate simulator over real HTTP: refusals are 4xx, and an upload url (an absolute URL
on the served host) is usable exactly once. (Same verdicts over HTTP as in process:
tests/services/test_every_service.py.)"""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

SERVICE = "affiliate"


@pytest.mark.slow
def test_served_affiliate_simulator(served: Callable[..., object]) -> None:
    with served(SERVICE) as (url, sim):  # type: ignore[attr-defined]
        key = {"X-Tracker-API-Key": sim.credentials["API_KEY"]}
        with httpx.Client(base_url=url, timeout=30) as client:
            refusals = [
                client.get("/v1/networks/campaigns"),
                client.post("/v1/networks/reporting/conversions", headers=key, content=b"{oops",
                            params=None),
                client.get("/v1/networks/reporting/conversions/short", headers=key),
            ]
            upload = client.post("/v1/networks/uploads/temp", headers=key,
                                 json={"mime_type": "text/plain", "content_base64": "aGk="})
            file_url = upload.json()["urls"][0]["url"]
            first, second = client.get(file_url), client.get(file_url)
    for answer in refusals:
        assert 400 <= answer.status_code < 500, answer.text
    assert file_url.startswith(url)
    assert (first.status_code, first.content) == (200, b"hi")
    assert second.status_code == 404
