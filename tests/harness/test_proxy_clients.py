"""The vendors' published clients of ``tests/clients/`` driven through ``conformance proxy`` to the
served simulator (issue 33): clean, no vendor failure; with a fault in the simulator, the rule fails
naming the exchange; a client's mistake, reported on the caller's side with the upstream's answer
passed through unchanged.

The proxy is served by uvicorn in a thread of the test's process (the libraries speak HTTP to a
port), the simulator behind it through httpx's ASGI transport (no second server). Every answer the
proxy sends is held to the one the simulator sent (status, headers, bytes). No verdict depends on
timing: leaving ``serving`` waits for every exchange's check. gamma-app-mcp (presentations) and
shodan (scanning) are driven in ``test_proxy.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.faults.toolkit import operation, status
from conformance.services import create_simulator
from tests.harness.proxying import SECONDS, Through, report, through


def judged(t: Through, tmp_path: Path) -> dict[str, Any]:
    """The session's report, once every answer was shown to have passed through unchanged."""
    assert t.caller.answers == t.upstream.answers and t.upstream.answers
    data = report(t.session, tmp_path)
    assert not data["_proxy"]["harness_errors"] and not data["_proxy"]["unchecked"]
    return data


def held(data: dict[str, Any], rules: list[str], fault: str | None, broken: str, exchange: str) -> None:
    """Clean: ``rules`` passed and no vendor failure. Faulty: ``broken`` failed, naming ``exchange``."""
    failed = sorted(k for k, v in data.items() if k != "_proxy" and v["status"] == "failed")
    loose = [e for e in data["_proxy"]["vendor_unattributed"] if e["verdict"] == "failed"]
    if fault is None:
        assert not failed and not loose, (failed, loose)
        assert all(data[r]["status"] == "passed" for r in rules), {r: data[r]["message"] for r in rules}
    else:
        assert failed == [broken], failed
        assert exchange in data[broken]["message"], data[broken]["message"]


def mistake(data: dict[str, Any], t: Through, rules: list[str], where: str, status: int) -> None:
    """The caller's one mistake: named by its rule and place, the upstream's ``status`` noted; not the
    vendor's failure."""
    (found,) = data["_proxy"]["caller_mistakes"]
    assert (found["rules"], found["where"], found["upstream_status"]) == (rules, where, status), found
    assert not any(v["status"] == "failed" for k, v in data.items() if k != "_proxy")
    assert not t.session.tally.vendor_failed()


# -- tokenrisk: rugcheck (requests.get against a fixed host) ------------------------------------------
# No mistake test: nothing rugcheck can send breaks a documented statement (a token id typed only
# as a string, no parameters, no credential), so no caller's mistake can go through it.


@pytest.mark.parametrize("fault", [None, "method-missing:tokens.report"])
def test_rugcheck_through_the_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str | None) -> None:
    rugcheck = pytest.importorskip("rugcheck")
    requests = pytest.importorskip("requests")
    token = create_simulator("tokenrisk").credentials["TOKEN_ID"]
    real_host, real_get = "https://api.rugcheck.xyz", requests.get
    with through("tokenrisk", fault) as t:
        def get(url: str, **kwargs: Any) -> Any:  # the library calls requests.get(url=...) on its own host
            assert url.startswith(real_host), url
            return real_get(t.url + url[len(real_host):], timeout=SECONDS, **kwargs)

        monkeypatch.setattr(requests, "get", get)
        if fault is None:
            client = rugcheck.rugcheck(token, get_votes=True)
            assert client.mint == token and client.votes.get("up") is not None
        else:
            with pytest.raises(SystemExit):  # the library's own way of saying the answer was not a report
                rugcheck.rugcheck(token, get_votes=True)
    data = judged(t, tmp_path)
    held(data, ["tokenrisk.tokens.report", "tokenrisk.votes.read", "tokenrisk.responses.well-formed"], fault,
         "tokenrisk.tokens.report", f"exchange 1: GET /v1/tokens/{token}/report")


# -- outreach: instantlyai (httpx, its own pydantic models) --------------------------------------------


def _instantly(url: str) -> Any:
    instantlyai = pytest.importorskip("instantlyai")
    key = create_simulator("outreach").credentials["API_KEY"]
    return instantlyai.Instantly(key, base_url=url, timeout=httpx.Timeout(SECONDS), max_retries=0)


# What a get of an account answers is not shown (gap read-bodies), so no shape rule judges it from one
# exchange; the routes the client calls are judged (versioning.v1-capabilities-routed). The fault: the
# account route answers 405, as if the target served another method only.
_ACCOUNT_ROUTE_GONE = status(operation("GET", "/api/v2/accounts/{email}"), 405)


@pytest.mark.parametrize("fault", [None, "account-route-gone"])
def test_instantlyai_through_the_proxy(tmp_path: Path, fault: str | None) -> None:
    instantlyai = pytest.importorskip("instantlyai")
    creds = create_simulator("outreach").credentials
    with through("outreach", fault and _ACCOUNT_ROUTE_GONE) as t, _instantly(t.url) as api:
        assert api.accounts.list(limit=2).items
        assert str(api.campaigns.retrieve(creds["CAMPAIGN_ID"]).id) == creds["CAMPAIGN_ID"]
        if fault is None:
            assert api.accounts.retrieve(creds["ACCOUNT_EMAIL"]).email == creds["ACCOUNT_EMAIL"]
        else:
            with pytest.raises(instantlyai.APIStatusError):
                api.accounts.retrieve(creds["ACCOUNT_EMAIL"])
    data = judged(t, tmp_path)
    held(data, ["outreach.versioning.v1-capabilities-routed"], fault, "outreach.versioning.v1-capabilities-routed",
         f"exchange 3: GET /api/v2/accounts/{creds['ACCOUNT_EMAIL']}")


def test_an_instantlyai_mistake_through_the_proxy(tmp_path: Path) -> None:
    instantlyai = pytest.importorskip("instantlyai")
    email = create_simulator("outreach").credentials["ACCOUNT_EMAIL"]
    with through("outreach", None) as t, _instantly(t.url) as api:
        api.accounts.update(email, sending_gap=20)
        with pytest.raises(instantlyai.ValidationError):
            api.accounts.update(email, sending_gap=2000)  # the document's range is 0 to 1440
    mistake(judged(t, tmp_path), t, ["outreach.account.update-sending-gap-range"], "body.sending_gap", 400)


# -- contracts: circle-smart-contract-platform (the vendor's generated client, urllib3) -----------------


def _circle(url: str) -> Any:
    scp = pytest.importorskip("circle.web3.smart_contract_platform")
    creds = create_simulator("contracts").credentials
    key = f"{creds['KEY_PREFIX']}:{creds['KEY_ID']}:{creds['KEY_SECRET']}"
    return scp, scp.ApiClient(configuration=scp.Configuration(host=url, access_token=key))


_SOURCE = {"blockchain": "BASE-SEPOLIA", "sourceAddress": "0x4b2a7c3f5e1d0a9b8c7d6e5f4a3b2c1d0e9f8a7b"}


@pytest.mark.parametrize("fault", [None, "member-dropped:contract.shape"])
def test_circle_through_the_proxy(tmp_path: Path, fault: str | None) -> None:
    cfg = pytest.importorskip("circle.web3.configurations")
    contract_id = create_simulator("contracts").credentials["CONTRACT_ID"]
    with through("contracts", fault) as t:
        scp, api = _circle(t.url)
        assert isinstance(cfg.HealthApi(cfg.ApiClient(cfg.Configuration(host=t.url))).ping().message, str)
        estimate = scp.ContractDeploymentEstimateFeeRequest.from_dict({"bytecode": "0x6080", **_SOURCE})
        assert scp.DeployImportApi(api).estimate_contract_deploy(estimate).data.high.gas_limit
        if fault is None:
            assert str(scp.ViewUpdateApi(api).get_contract(contract_id).data.contract.id) == contract_id
        else:
            with pytest.raises(ValueError):  # the library's model misses the member too (pydantic)
                scp.ViewUpdateApi(api).get_contract(contract_id)
    data = judged(t, tmp_path)
    # contracts.ping.no-auth is about calling without a key: a rule of one credential, not judged here.
    held(data, ["contracts.contract.shape"], fault, "contracts.contract.shape",
         f"exchange 3: GET /v1/w3s/contracts/{contract_id}")


def test_a_circle_mistake_through_the_proxy(tmp_path: Path) -> None:
    # The library checks lengths and enums itself; it lets walletId go with blockchain and
    # sourceAddress, which the document makes exclusive. The catalogue holds that in a rule of
    # request cases (body-cases), not one of a place: the mistake names the schema by pointer.
    wallet = create_simulator("contracts").credentials["WALLET_ID"]
    with through("contracts", None) as t:
        scp, api = _circle(t.url)
        both = scp.ContractDeploymentEstimateFeeRequest.from_dict({"bytecode": "0x6080", **_SOURCE, "walletId": wallet})
        with pytest.raises(scp.ApiException) as refused:
            scp.DeployImportApi(api).estimate_contract_deploy(both)
    assert refused.value.status == 400
    data = judged(t, tmp_path)
    mistake(data, t, [], "body", 400)
    assert data["_proxy"]["caller_mistakes"][0]["pointer"] == \
        "#/paths/~1v1~1w3s~1contracts~1deploy~1estimateFee/post/requestBody/content/application~1json/schema"


# -- marketplace: etsy-python (requests; the vendor's /shops/{shop_id}/ paths) -------------------------


@contextmanager
def _etsy(monkeypatch: pytest.MonkeyPatch, fault: str | None) -> Iterator[tuple[Through, Any, dict[str, str]]]:
    """The simulator serving the vendor's shop paths behind the proxy, matched under the same path
    setting (`conformance proxy marketplace --option shop_resource=shops`), and the library's client."""
    pytest.importorskip("etsy_python")
    import datetime as dt

    from etsy_python.v3.resources.Session import EtsyClient

    monkeypatch.setenv("CONFORMANCE_MARKETPLACE_SHOP_RESOURCE", "shops")
    with through("marketplace", fault, shop_resource="shops") as t:
        creds = create_simulator("marketplace").credentials
        api_key = f"{creds['API_KEY']}:{creds['SHARED_SECRET']}"  # as the document says (tests/clients)
        token = httpx.post(f"{t.url}/v3/public/oauth/token", timeout=SECONDS, headers={"x-api-key": api_key},
                           data={"grant_type": "refresh_token", "refresh_token": creds["REFRESH_TOKEN"],
                                 "client_id": creds["API_KEY"]}).json()
        expiry = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)
        monkeypatch.setattr("etsy_python.v3.common.Env.environment.request_url", f"{t.url}/v3/application")
        yield t, EtsyClient(api_key, token["access_token"], token["refresh_token"], expiry), creds


@pytest.mark.parametrize("fault", [None, "member-dropped:collections.shape"])
def test_etsy_through_the_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str | None) -> None:
    from etsy_python.v3.resources import ReceiptResource

    with _etsy(monkeypatch, fault) as (t, client, creds):
        assert ReceiptResource(session=client).get_shop_receipts(int(creds["SHOP_ID"])).code == 200
    data = judged(t, tmp_path)
    held(data, ["marketplace.collections.shape"], fault, "marketplace.collections.shape",
         f"exchange 2: GET /v3/application/shops/{creds['SHOP_ID']}/receipts")


def test_an_etsy_mistake_through_the_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from etsy_python.v3.exceptions.RequestException import RequestException
    from etsy_python.v3.resources import ReceiptResource

    with _etsy(monkeypatch, None) as (t, client, creds), pytest.raises(RequestException):
        ReceiptResource(session=client).get_shop_receipts(int(creds["SHOP_ID"]), limit=150)  # the document: 25-100
    mistake(judged(t, tmp_path), t, ["marketplace.paging.limit-range"], "query.limit", 400)


# -- social: sprout-social-mcp (httpx, async) ----------------------------------------------------------


def _sprout(url: str, calls: Callable[[Any], Any]) -> Any:
    module = pytest.importorskip("sprout_social_mcp.client")
    creds = create_simulator("social").credentials

    async def use() -> Any:
        client = module.SproutClient(token=creds["ACCESS_TOKEN"], customer_id=creds["CUSTOMER_ID"], base_url=url)
        try:
            return await calls(client)
        finally:
            await client.close()

    return asyncio.run(use())


@pytest.mark.parametrize("fault", [None, "member-dropped:metadata.tags"])
def test_sprout_social_through_the_proxy(tmp_path: Path, fault: str | None) -> None:
    async def calls(client: Any) -> dict[str, Any]:
        return {"client": await client.get_customer_id(), "profiles": await client.list_profiles(),
                "tags": await client.list_tags()}

    with through("social", fault) as t:
        answers = _sprout(t.url, calls)
    assert all("error" not in answer for answer in answers.values()), answers
    customer = create_simulator("social").credentials["CUSTOMER_ID"]
    data = judged(t, tmp_path)
    held(data, ["social.metadata.client", "social.metadata.profiles", "social.metadata.tags",
                "social.headers.api-version"], fault, "social.metadata.tags",
         f"exchange 3: GET /v1/{customer}/metadata/customer/tags")


def test_a_sprout_social_mistake_through_the_proxy(tmp_path: Path) -> None:
    topic = create_simulator("social").credentials["TOPIC_ID"]

    async def calls(client: Any) -> Any:  # the library passes the body on: here without its required fields
        return await client.get_topic_messages(topic, {"filters": ["created_time.in(2026-01-01..2026-02-01)"]}, 10)

    with through("social", None) as t:
        answer = _sprout(t.url, calls)
    assert answer["status_code"] == 400 and "fields" in answer["error"], answer
    mistake(judged(t, tmp_path), t, ["social.listening.fields-required"], "body.fields", 400)


# -- the mistakes of the two clients test_proxy.py drives clean and faulty ----------------------------


def test_a_gamma_mistake_through_the_proxy(tmp_path: Path) -> None:
    gamma = pytest.importorskip("gamma_app_mcp.client")
    key = create_simulator("presentations").credentials["API_KEY"]
    with through("presentations", None) as t:
        api = gamma.GammaClient(api_key=key, base_url=t.url, timeout=SECONDS)
        try:
            with pytest.raises(gamma.GammaAPIError) as refused:
                api.generate("A short talk on tide pools", text_mode="generate", num_cards=150)  # the document: 1-60
        finally:
            api.session.close()
    assert refused.value.status_code == 400
    mistake(judged(t, tmp_path), t, ["presentations.generate.num-cards-range"], "body.numCards", 400)


def test_a_shodan_mistake_through_the_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shodan = pytest.importorskip("shodan")
    monkeypatch.setenv("CONFORMANCE_SCANNING_PRODUCT", "shodan")  # `conformance proxy --option product=shodan`
    with through("scanning", None, product="shodan") as t:
        api = shodan.Shodan(create_simulator("scanning").credentials["API_KEY"])
        api.base_url, api.api_rate_limit = t.url, 0
        with pytest.raises(shodan.APIError):
            api.search("nginx", page="two")  # the document: an integer
    mistake(judged(t, tmp_path), t, ["scanning.search.page-type"], "query.page", 400)
