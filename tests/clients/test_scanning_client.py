"""A real client library against the served scanning simulator.

The ``shodan`` package (1.31.0) is a widely used client of this kind of service. Its URL shape
puts the service's own name, "shodan", where the document writes "svc"; the simulator takes
that name as configuration (``ScanningSimulator(product=...)``), as the contract does through
``settings.product``. The library also posts a scan's parameters, the key included, as form
fields: the simulator accepts a key there (gap scanning.gap.key-in-form-body). The library has
no resolve/reverse methods, so those go through its own generic ``_request``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.services.scanning.simulator import ScanningSimulator
from conformance.simulators.base import WallClock
from tests.conftest import serve

shodan = pytest.importorskip("shodan")

PRODUCT = "shodan"
CREDS = ScanningSimulator.credentials


@pytest.fixture
def base_url(tally: Callable[[str], Any]) -> Iterator[str]:
    with serve(tally("scanning")(ScanningSimulator(WallClock(), product=PRODUCT))) as url:
        yield url


def client(base_url: str, credential: str = "API_KEY") -> Any:
    api = shodan.Shodan(CREDS[credential])
    api.base_url = base_url
    api.api_rate_limit = 0  # the library sleeps a second between calls otherwise
    return api


pytestmark = pytest.mark.slow


def test_host_lookup_minify_and_invalid_ip(base_url: str) -> None:
    api = client(base_url)
    host = api.host("192.0.2.10")
    assert host["ip_str"] == "192.0.2.10" and host["data"]
    assert all(f"_{PRODUCT}" in banner for banner in host["data"])
    small = api.host("192.0.2.10", minify=True)
    assert small["ports"] and not small.get("data")
    assert len(api.host("192.0.2.10", history=True)["data"]) >= len(host["data"])
    with pytest.raises(shodan.APIError):
        api.host("not-an-ip")


def test_search_count_and_facets(base_url: str) -> None:
    api = client(base_url)
    first = api.search("nginx", facets=[("country", 2)])
    assert len(first["matches"]) == 100 and first["total"] > 100
    assert len(first["facets"]["country"]) == 2
    second = api.search("nginx", page=2)
    assert second["total"] == first["total"]
    assert len(first["matches"]) + len(second["matches"]) == first["total"]
    before = api.info()["query_credits"]
    counted = api.count("product:nginx", facets=["port"])
    assert counted["matches"] == [] and counted["total"] > 0
    assert all(isinstance(f["value"], str) for f in counted["facets"]["port"])
    assert api.info()["query_credits"] == before  # count costs none
    for names in (api.search_facets(), api.search_filters()):
        assert names and all(isinstance(n, str) for n in names)
    assert api.search_tokens("nginx country:DE")["filters"] == ["country"]


def test_lists_scan_and_plan(base_url: str) -> None:
    api = client(base_url)
    assert all(isinstance(p, int) for p in api.ports())
    assert all(isinstance(d, str) for d in api.protocols().values())
    credits = api.info()["scan_credits"]
    scan = api.scan("192.0.2.10")
    assert scan["count"] == 1 and isinstance(scan["id"], str)
    assert scan["credits_left"] == credits - 1 == api.info()["scan_credits"]
    mapped = api.scan({"192.0.2.20": [(80, "http"), (443, "https")]})
    assert mapped["credits_left"] == credits - 2
    with pytest.raises(shodan.APIError):
        client(base_url, "FREE_API_KEY").scan("192.0.2.10")  # scanning needs a paid plan


def test_dns_and_tools(base_url: str) -> None:
    api = client(base_url)
    page = api.dns.domain_info("example.com")
    assert len(page["data"]) == 100 and page["more"] is True
    resolved = api._request("/dns/resolve", {"hostnames": "www.example.com"})
    ip = resolved["www.example.com"]
    assert "www.example.com" in api._request("/dns/reverse", {"ips": ip})[ip]
    assert api.tools.myip()


def test_organization(base_url: str) -> None:
    admin = client(base_url, "ENTERPRISE_API_KEY")
    user = CREDS["ORG_MEMBER"]
    assert admin.org.add_member(user, notify=False) is True
    assert any(m["username"] == user for m in admin.org.info()["members"])
    assert admin.org.remove_member(user) is True
    assert not any(m["username"] == user for m in admin.org.info()["members"])
    with pytest.raises(shodan.APIError):
        client(base_url).org.info()  # organization calls need the enterprise level
