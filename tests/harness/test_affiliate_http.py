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


@pytest.mark.slow
def test_rules_not_exercised_for_want_of_today_name_the_variable_first(
        served: Callable[..., object], monkeypatch: pytest.MonkeyPatch) -> None:
    """A target whose date is not the simulator's, CONFORMANCE_AFFILIATE_TODAY unset: the report
    window (counted back from the default) holds nothing, and the skip says which variable to set."""
    import dataclasses

    from conformance.contract import load_contract
    from conformance.runner import SKIPPED, collect_cases, run_case
    from conformance.settings import RunSettings
    from conformance.targets import make_target

    DEFAULT = "2027-06-01"

    with served(SERVICE) as (url, sim):  # type: ignore[attr-defined]
        for name in ("API_KEY", "CAMPAIGN_ID", "CONVERSION_ID", "EMAIL", "TIMEZONE_ID"):
            if name in sim.credentials:
                monkeypatch.setenv(f"CONFORMANCE_AFFILIATE_{name}", str(sim.credentials[name]))
        monkeypatch.setenv("CONFORMANCE_AFFILIATE_BASE_URL", url)
        monkeypatch.delenv("CONFORMANCE_AFFILIATE_TODAY", raising=False)
        # The default date (the simulator's) is not this target's: windows counted back from it are
        # empty (this target's data ends months before it).
        real = load_contract(SERVICE)
        contract = dataclasses.replace(real, settings={**real.settings, "today": DEFAULT})
        target = make_target(contract, RunSettings(target="http"))
        wanted = {"affiliate.conversion.get-by-id", "affiliate.export.rows-match"}
        outcomes = {c.id: run_case(c, target) for c in collect_cases(contract) if c.id in wanted}
    for rule, outcome in outcomes.items():
        assert outcome.status == SKIPPED, (rule, outcome.message)
        head = outcome.message.split(" to the target's own value: ")[0]
        assert head.startswith("set ") and f"CONFORMANCE_AFFILIATE_TODAY (default '{DEFAULT}' used)" in head, \
            outcome.message
