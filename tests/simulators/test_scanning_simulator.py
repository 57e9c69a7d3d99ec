"""The scanning simulator's core on its own: documented behaviour, its choices, hostile input.

Numbers the document gives (page sizes, credit costs) are read from the contract's rule params,
so these tests also show the independent simulator agrees with the contract on them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.contract import load_contract
from conformance.services.scanning.data import METADATA_KEY, SEGMENT
from conformance.services.scanning.simulator import ScanningSimulator
from conformance.simulators.base import MAX_BODY_BYTES, Clock
from conformance.transport.model import Request, Response

CREDS = ScanningSimulator.credentials
PAID, FREE, ENTERPRISE, BROKE = (
    CREDS[n] for n in ("API_KEY", "FREE_API_KEY", "ENTERPRISE_API_KEY", "NO_CREDITS_API_KEY")
)
S = "/" + SEGMENT
CONTRACT = load_contract("scanning")


def param(rule_id: str, name: str) -> Any:
    return CONTRACT.rule(rule_id).params[name]


SEARCH_PAGE = param("scanning.search.page-size", "page_size")
DNS_PAGE = param("scanning.dns.paging-more", "page_size")


def cost(rule_id: str, balance: str) -> Any:
    """What the rule's first measure says the charged call costs (``falls_by``)."""
    return param(rule_id, "measures")[0]["falls_by"][balance]


FILTER_COST = cost("scanning.credits.search-filter-cost", "query_credits")
PAGE_COST = cost("scanning.credits.search-page-cost", "query_credits")
DNS_COST = cost("scanning.credits.dns-domain-cost", "query_credits")
SCAN_COST = cost("scanning.credits.scan-cost", "scan_credits")

# Every route with a path that exists, for the key rules and the fuzzer.
ROUTES = [
    ("GET", f"{S}/host/192.0.2.10"), ("GET", f"{S}/host/count"), ("GET", f"{S}/host/search"),
    ("GET", f"{S}/host/search/facets"), ("GET", f"{S}/host/search/filters"),
    ("GET", f"{S}/host/search/tokens"), ("GET", f"{S}/ports"), ("GET", f"{S}/protocols"),
    ("POST", f"{S}/scan"), ("GET", "/org"), ("PUT", "/org/member/carol"),
    ("DELETE", "/org/member/carol"), ("GET", "/account/profile"),
    ("GET", "/dns/domain/example.com"), ("GET", "/dns/resolve"), ("GET", "/dns/reverse"),
    ("GET", "/tools/httpheaders"), ("GET", "/tools/myip"), ("GET", "/api-info"),
]


@pytest.fixture
def sim() -> ScanningSimulator:
    return ScanningSimulator(clock=Clock())


def call(sim: ScanningSimulator, method: str, path: str, key: str | None = PAID,
         json_body: Any = None, **params: Any) -> Response:
    if key is not None:
        params["key"] = key
    return sim.handle(Request.build(method, path, params=params, json_body=json_body))


def ok(resp: Response) -> Any:
    assert resp.status == 200, resp.summary()
    return resp.json()


def refused(resp: Response, status: int | None = None) -> str:
    assert 400 <= resp.status < 500, resp.summary()
    if status is not None:
        assert resp.status == status, resp.summary()
    body = resp.json()
    assert isinstance(body, dict) and set(body) == {"error"} and isinstance(body["error"], str)
    assert body["error"]
    return str(body["error"])


def info(sim: ScanningSimulator, key: str = PAID) -> dict[str, Any]:
    return dict(ok(call(sim, "GET", "/api-info", key)))


def search(sim: ScanningSimulator, query: str, key: str = PAID, **params: Any) -> Response:
    return call(sim, "GET", f"{S}/host/search", key, query=query, **params)


# -- authentication and plans ---------------------------------------------------------------
@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_key_required_in_query_on_every_call(sim: ScanningSimulator, method: str,
                                             path: str) -> None:
    refused(call(sim, method, path, key=None))
    refused(call(sim, method, path, key="not-a-key"))
    header_only = Request.build(method, path, headers={"key": PAID, "authorization": PAID})
    refused(sim.handle(header_only))


def test_free_key_works_but_cannot_scan(sim: ScanningSimulator) -> None:
    before = info(sim, FREE)
    assert ok(call(sim, "GET", "/account/profile", FREE))["member"] is False
    refused(call(sim, "POST", f"{S}/scan", FREE, json_body={"ips": "192.0.2.10"}))
    assert info(sim, FREE) == before


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/org"), ("PUT", "/org/member/carol"), ("DELETE", "/org/member/carol"),
])
def test_org_calls_need_enterprise(sim: ScanningSimulator, method: str, path: str) -> None:
    for key in (PAID, FREE):
        refused(call(sim, method, path, key))


# -- host lookup ----------------------------------------------------------------------------
def test_host_record_carries_documented_fields(sim: ScanningSimulator) -> None:
    host = ok(call(sim, "GET", f"{S}/host/192.0.2.10"))
    for name in ("ip", "ip_str", "hostnames", "domains", "org", "isp", "asn", "os", "tags",
                 "ports", "country_code", "country_code3", "country_name", "city",
                 "region_code", "postal_code", "dma_code", "area_code", "latitude",
                 "longitude", "last_update", "data"):
        assert name in host, name
    assert isinstance(host["ip"], int) and host["ip_str"] == "192.0.2.10"
    assert sorted(host["ports"]) == sorted({b["port"] for b in host["data"]})
    for banner in host["data"]:
        assert banner["transport"] in ("tcp", "udp")
        assert isinstance(banner["data"], str) and isinstance(banner["cpe"], list)
        assert isinstance(banner["opts"], dict) and "country_code" in banner["location"]
        assert set(banner[METADATA_KEY]) == {"id", "module", "crawler", "ptr", "options"}
    assert any("http" in b for b in host["data"])
    udp = ok(call(sim, "GET", f"{S}/host/192.0.2.20"))
    assert udp["data"][0]["transport"] == "udp" and "dns" in udp["data"][0]


INVALID_IP = CONTRACT.rule("scanning.errors.invalid-ip")


@pytest.mark.parametrize("ip", [step["path"]["ip"] for step in INVALID_IP.params["steps"]] + ["1.2.3.4.5", "%00"])
def test_invalid_ip_is_404_with_error(sim: ScanningSimulator, ip: str) -> None:
    assert INVALID_IP.violation is not None
    refused(call(sim, "GET", f"{S}/host/{ip}"), status=INVALID_IP.violation["status"])


def test_unknown_ip_and_bad_booleans(sim: ScanningSimulator) -> None:
    refused(call(sim, "GET", f"{S}/host/192.0.2.254"), status=404)  # SIM-CHOICE
    refused(call(sim, "GET", f"{S}/host/192.0.2.10", history="maybe"), status=400)


def test_minify_and_history(sim: ScanningSimulator) -> None:
    full = ok(call(sim, "GET", f"{S}/host/192.0.2.10"))
    minified = ok(call(sim, "GET", f"{S}/host/192.0.2.10", minify="true"))
    assert "data" not in minified and minified["ports"] == full["ports"]
    history = ok(call(sim, "GET", f"{S}/host/192.0.2.10", history="true"))
    assert len(history["data"]) > len(full["data"])
    assert {b["version"] for b in history["data"]} > {b["version"] for b in full["data"]}


# -- search, count, facets, tokens ----------------------------------------------------------
def test_search_paging_walk_is_consistent(sim: ScanningSimulator) -> None:
    first = ok(search(sim, "nginx"))
    total = first["total"]
    assert total > SEARCH_PAGE
    pages = -(-total // SEARCH_PAGE)
    seen: set[str] = set()
    for page in range(1, pages + 1):
        body = ok(search(sim, "nginx", page=page))
        assert body["total"] == total
        expected = SEARCH_PAGE if page < pages else total - SEARCH_PAGE * (pages - 1)
        assert len(body["matches"]) == expected
        ids = {m[METADATA_KEY]["id"] for m in body["matches"]}
        assert not ids & seen
        seen |= ids
    assert len(seen) == total
    assert ok(search(sim, "nginx", page=pages + 1))["matches"] == []  # SIM-CHOICE


def test_search_minify_and_fields(sim: ScanningSimulator) -> None:
    default = ok(search(sim, "product:nginx"))["matches"][0]
    assert "http" not in default and "opts" not in default  # SIM-CHOICE: minify default true
    full = ok(search(sim, "product:nginx", minify="false"))["matches"][0]
    assert "http" in full
    picked = ok(search(sim, "product:nginx", fields="ip_str,port"))["matches"]
    assert all(set(m) == {"ip_str", "port"} for m in picked)


def test_count_matches_empty_total_agrees_and_free(sim: ScanningSimulator) -> None:
    before = info(sim)
    count = ok(call(sim, "GET", f"{S}/host/count", query="product:nginx country:US", facets="port"))
    assert count["matches"] == [] and "port" in count["facets"]
    assert info(sim) == before
    assert count["total"] == ok(search(sim, "product:nginx country:US"))["total"]


def test_facets_shape_and_count_suffix(sim: ScanningSimulator) -> None:
    facets = ok(call(sim, "GET", f"{S}/host/search/facets"))
    assert isinstance(facets, list) and all(isinstance(f, str) for f in facets)
    body = ok(call(sim, "GET", f"{S}/host/count", query="nginx", facets="country:2,org,port:1"))
    assert set(body["facets"]) == {"country", "org", "port"}
    assert len(body["facets"]["country"]) == 2 and len(body["facets"]["port"]) == 1
    assert len(body["facets"]["org"]) == 5  # SIM-CHOICE default count
    for entries in body["facets"].values():
        assert all(isinstance(e["count"], int) and isinstance(e["value"], str) for e in entries)
        assert [e["count"] for e in entries] == sorted((e["count"] for e in entries), reverse=True)
    transport = ok(call(sim, "GET", f"{S}/host/count", query="nginx", facets="transport"))
    assert sum(e["count"] for e in transport["facets"]["transport"]) == body["total"]


@pytest.mark.parametrize("facets", ["nosuch", "port:0", "port:x", "port:-1", "port:99999999999",
                                    "port:\u00b2", "port:" + "9" * 5000])
def test_bad_facets_are_400(sim: ScanningSimulator, facets: str) -> None:
    resp = call(sim, "GET", f"{S}/host/count", query="nginx", facets=facets)
    assert "facet" in refused(resp, 400)


@pytest.mark.parametrize(("query", "check"), [
    ('city:"New York"', lambda m: m["location"]["city"] == "New York"),
    ("port:80,443", lambda m: m["port"] in (80, 443)),
    ("country:de", lambda m: m["location"]["country_code"] == "DE"),
    ("net:192.0.2.0/24", lambda m: m["ip_str"].startswith("192.0.2.")),
    ('"Example Domain"', lambda m: m["ip_str"] == "192.0.2.10"),
    ("Apache product:\"Apache httpd\" version:2.4.58", lambda m: m["port"] == 8080),
    ("tag:iot transport:udp", lambda m: m["transport"] == "udp"),
])
def test_query_language(sim: ScanningSimulator, query: str, check: Any) -> None:
    matches = ok(search(sim, query, minify="false"))["matches"]
    assert matches and all(check(m) for m in matches)


@pytest.mark.parametrize(("query", "word"), [
    ('product:"nginx', "quote"), ("nosuch:1", "unknown filter"), ("port:", "no value"),
    ("   ", "required"), ("port:http", "port"), ("port:\u00b2", "port"),
    ("net:10.0.0.0/40", "net"), ("ip:1.2.3", "ip"),
    ("x" * 1001, "longer"),
])
def test_malformed_queries_are_400_with_message(sim: ScanningSimulator, query: str,
                                                word: str) -> None:
    assert word in refused(search(sim, query), 400)
    assert word in refused(call(sim, "GET", f"{S}/host/count", query=query), 400)


def test_query_is_required(sim: ScanningSimulator) -> None:
    for path in ("/host/search", "/host/count", "/host/search/tokens"):
        refused(call(sim, "GET", S + path), 400)


def test_tokens_shape(sim: ScanningSimulator) -> None:
    body = ok(call(sim, "GET", f"{S}/host/search/tokens", query='apache city:"Sao Paulo" port:80'))
    assert body == {"attributes": {"city": ["Sao Paulo"], "port": ["80"]}, "errors": [],
                    "string": "apache", "filters": ["city", "port"]}
    bad = ok(call(sim, "GET", f"{S}/host/search/tokens", query="nosuch:1"))
    assert bad["errors"] and bad["filters"] == []


def test_lists(sim: ScanningSimulator) -> None:
    assert all(isinstance(f, str) for f in ok(call(sim, "GET", f"{S}/host/search/filters")))
    assert all(isinstance(p, int) for p in ok(call(sim, "GET", f"{S}/ports")))
    protocols = ok(call(sim, "GET", f"{S}/protocols"))
    assert protocols and all(isinstance(v, str) for v in protocols.values())


# -- credits --------------------------------------------------------------------------------
def test_search_credit_accounting(sim: ScanningSimulator) -> None:
    def spent(query: str, **params: Any) -> int:
        before = info(sim)["query_credits"]
        ok(search(sim, query, **params))
        return int(before - info(sim)["query_credits"])

    assert spent("product:nginx") == FILTER_COST
    assert spent("nginx") == 0  # SIM-CHOICE: the document only prices filters
    assert spent("nginx", page=2) == PAGE_COST
    # SIM-CHOICE inside the search-page-cost conflict: the two credits add up.
    assert spent("product:nginx", page=2) == FILTER_COST + PAGE_COST
    profile = ok(call(sim, "GET", "/account/profile"))
    assert profile["credits"] == info(sim)["query_credits"]  # SIM-CHOICE: mirrors query credits


def test_dns_lookup_costs_one_and_zero_credit_key(sim: ScanningSimulator) -> None:
    before = info(sim)["query_credits"]
    ok(call(sim, "GET", "/dns/domain/example.com"))
    ok(call(sim, "GET", "/dns/domain/example.com", page=2))
    assert info(sim)["query_credits"] == before - 2 * DNS_COST
    refused(search(sim, "product:nginx", BROKE), 402)
    refused(call(sim, "GET", "/dns/domain/example.com", BROKE), 402)
    ok(search(sim, "nginx", BROKE))
    ok(call(sim, "GET", f"{S}/host/count", BROKE, query="product:nginx"))


# -- scans ----------------------------------------------------------------------------------
def test_scan_costs_one_credit_per_ip_and_reports_credits_left(sim: ScanningSimulator) -> None:
    before = info(sim)["scan_credits"]
    body = ok(call(sim, "POST", f"{S}/scan", json_body={"ips": "192.0.2.10, 192.0.2.20"}))
    assert body["count"] == 2 and isinstance(body["id"], str)
    assert body["credits_left"] == info(sim)["scan_credits"] == before - 2 * SCAN_COST
    net = ok(call(sim, "POST", f"{S}/scan", json_body={"ips": "198.51.100.0/30,198.51.100.1"}))
    assert net["count"] == 4 and net["id"] != body["id"]


@pytest.mark.parametrize("body", [
    {"ips": {"192.0.2.10": [[80, "http"], [443, "https"]]}},
    {"192.0.2.10": [[22, "ssh"]]},
])
def test_scan_object_forms(sim: ScanningSimulator, body: dict[str, Any]) -> None:
    assert ok(call(sim, "POST", f"{S}/scan", json_body=body))["count"] == 1


def test_scan_form_body(sim: ScanningSimulator) -> None:
    request = Request.build("POST", f"{S}/scan", params={"key": PAID}, form={"ips": "192.0.2.0/31"})
    assert ok(sim.handle(request))["count"] == 2
    encoded = Request.build("POST", f"{S}/scan", params={"key": PAID},
                            form={"ips": json.dumps({"192.0.2.10": [[80, "http"]]})})
    assert ok(sim.handle(encoded))["count"] == 1


@pytest.mark.parametrize("body", [
    {"ips": "not-an-ip"}, {"ips": "192.0.2.0/33"}, {"ips": ""}, {"ips": 42}, {"ips": ["1.2.3.4"]},
    {"ips": "192.0.2.1,,192.0.2.2"}, {"ips": {}}, {"ips": {"192.0.2.1": [[0, "http"]]}},
    {"ips": {"192.0.2.1": [["80", "http"]]}}, {"ips": {"192.0.2.1": [[80]]}},
    {"ips": {"192.0.2.1": "80/http"}}, {"ips": "10.0.0.0/8"}, {"ips": "2001:db8::/64"},
    {"ips": "192.0.2.1", "force": True}, {},
])
def test_bad_scans_are_refused_and_cost_nothing(sim: ScanningSimulator,
                                                body: dict[str, Any]) -> None:
    before = info(sim)
    refused(call(sim, "POST", f"{S}/scan", json_body=body), 400)
    assert info(sim) == before


def test_scan_without_enough_credits(sim: ScanningSimulator) -> None:
    refused(call(sim, "POST", f"{S}/scan", BROKE, json_body={"ips": "192.0.2.10"}), 402)


# -- organization and account ---------------------------------------------------------------
def test_org_membership_add_remove(sim: ScanningSimulator) -> None:
    def members() -> list[str]:
        return [m["username"] for m in ok(call(sim, "GET", "/org", ENTERPRISE))["members"]]

    org = ok(call(sim, "GET", "/org", ENTERPRISE))
    assert isinstance(org["logo"], bool) and isinstance(org["id"], str) and org["admins"]
    assert "carol" not in members()
    assert ok(call(sim, "PUT", "/org/member/carol", ENTERPRISE, notify="true")) == {"success": True}
    assert "carol" in members()
    assert ok(call(sim, "DELETE", "/org/member/carol@example.com", ENTERPRISE)) == {"success": True}
    assert "carol" not in members()
    refused(call(sim, "DELETE", "/org/member/carol", ENTERPRISE), 404)
    refused(call(sim, "PUT", "/org/member/nobody", ENTERPRISE), 404)
    refused(call(sim, "PUT", "/org/member/carol", ENTERPRISE, notify="sure"), 400)


def test_api_info_and_profile_shapes(sim: ScanningSimulator) -> None:
    plan = info(sim)
    assert set(plan) == {"scan_credits", "query_credits", "monitored_ips", "unlocked_left",
                         "usage_limits", "plan", "https", "unlocked", "telnet"}
    assert set(plan["usage_limits"]) == {"scan_credits", "query_credits", "monitored_ips"}
    profile = ok(call(sim, "GET", "/account/profile"))
    assert profile["member"] is True
    assert set(profile) == {"member", "credits", "display_name", "created"}
    assert ok(call(sim, "GET", "/account/profile", FREE))["display_name"] is None


# -- DNS and tools --------------------------------------------------------------------------
def test_dns_paging_with_more(sim: ScanningSimulator) -> None:
    seen: list[tuple[str, str, str]] = []
    page = 1
    while True:
        body = ok(call(sim, "GET", "/dns/domain/example.com", page=page))
        assert body["domain"] == "example.com" and len(body["data"]) <= DNS_PAGE
        seen += [(r["subdomain"], r["type"], r["value"]) for r in body["data"]]
        if not body["more"]:
            break
        assert len(body["data"]) == DNS_PAGE
        page += 1
    assert page >= 3 and len(seen) == len(set(seen))
    assert ok(call(sim, "GET", "/dns/domain/example.com", page=page + 1))["data"] == []


def test_dns_type_history_and_errors(sim: ScanningSimulator) -> None:
    for rtype in CONTRACT.where_schema("GET /dns/domain/{domain}", "query.type")["enum"]:
        body = ok(call(sim, "GET", "/dns/domain/example.com", type=rtype))
        assert body["data"] and {r["type"] for r in body["data"]} == {rtype}
    refused(call(sim, "GET", "/dns/domain/example.com", type="PTR"), 400)
    current = ok(call(sim, "GET", "/dns/domain/example.net"))
    history = ok(call(sim, "GET", "/dns/domain/example.net", history="true"))
    assert len(history["data"]) > len(current["data"])
    refused(call(sim, "GET", "/dns/domain/example.invalid"), 404)
    for bad in ("bad..name", "-x.com", "a b"):
        refused(call(sim, "GET", f"/dns/domain/{bad}"), 400)
    for page in ("0", "-1", "1.5", "two"):
        refused(call(sim, "GET", "/dns/domain/example.com", page=page), 400)


def test_resolve_reverse_round_trip(sim: ScanningSimulator) -> None:
    names = ["www.example.com", "host-007.example.com", "mail.example.net"]
    resolved = ok(call(sim, "GET", "/dns/resolve", hostnames=",".join(names)))
    assert set(resolved) == set(names)
    reverse = ok(call(sim, "GET", "/dns/reverse", ips=",".join(resolved.values())))
    for name, ip in resolved.items():
        assert name in reverse[ip]
    assert ok(call(sim, "GET", "/dns/resolve", hostnames="nothing.example.com")) == {}
    assert ok(call(sim, "GET", "/dns/reverse", ips="192.0.2.254")) == {"192.0.2.254": []}
    refused(call(sim, "GET", "/dns/reverse", ips="999.1.1.1"), 400)
    refused(call(sim, "GET", "/dns/resolve"), 400)
    refused(call(sim, "GET", "/dns/resolve", hostnames="a,,b"), 400)


def test_tools(sim: ScanningSimulator) -> None:
    request = Request.build("GET", "/tools/httpheaders", params={"key": PAID},
                            headers={"X-Conformance-Probe": "42"})
    assert ok(sim.handle(request))["x-conformance-probe"] == "42"
    assert ok(call(sim, "GET", "/tools/myip")) == "127.0.0.1"
    forwarded = Request.build("GET", "/tools/myip", params={"key": PAID},
                              headers={"X-Forwarded-For": "203.0.113.9, 10.0.0.1"})
    assert ok(sim.handle(forwarded)) == "203.0.113.9"


# -- hostile input and determinism -------------------------------------------------------
def test_hostile_bodies_are_4xx(sim: ScanningSimulator) -> None:
    def raw(body: bytes, ctype: str) -> Response:
        headers = {"content-type": ctype}
        return sim.handle(Request("POST", f"{S}/scan", [("key", PAID)], headers, body))

    refused(raw(b"{not json", "application/json"), 400)
    refused(raw(b"[1, 2]", "application/json"), 400)
    refused(raw(b"\xff\xfe", "application/json"), 400)
    refused(raw(b"ips=%FF%FE", "application/x-www-form-urlencoded"), 400)
    refused(raw(b"ips={bad", "application/x-www-form-urlencoded"), 400)
    refused(raw(b"ips=192.0.2.1", "text/plain"), 400)
    refused(raw(b"x" * (MAX_BODY_BYTES + 1), "application/json"), 413)
    refused(call(sim, "DELETE", "/api-info"), 405)
    refused(call(sim, "GET", "/no/such/path"), 404)


def test_two_simulators_answer_alike() -> None:
    def run() -> list[bytes]:
        sim = ScanningSimulator(clock=Clock())
        return [call(sim, "POST", f"{S}/scan", json_body={"ips": "192.0.2.10"}).body,
                search(sim, "nginx", page=2).body, call(sim, "GET", "/api-info").body]

    assert run() == run()


_TEXT = st.text(max_size=40)


@settings(max_examples=50, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(route=st.sampled_from(ROUTES),
       params=st.dictionaries(st.sampled_from(["query", "facets", "page", "minify", "history",
                                               "fields", "type", "hostnames", "ips", "notify"]),
                              _TEXT, max_size=4),
       body=st.one_of(st.none(), st.binary(max_size=64),
                      st.recursive(st.none() | st.booleans() | st.integers() | _TEXT,
                                   lambda inner: st.lists(inner, max_size=3)
                                   | st.dictionaries(_TEXT, inner, max_size=3), max_leaves=8)),
       key=st.sampled_from([PAID, ENTERPRISE, FREE, BROKE]))
def test_arbitrary_input_never_5xx(route: tuple[str, str], params: dict[str, str], body: Any,
                                   key: str) -> None:
    sim = ScanningSimulator(clock=Clock())
    method, path = route
    query = list(params.items()) + [("key", key)]
    if isinstance(body, bytes):
        request = Request(method, path, query, {"content-type": "application/json"}, body)
    else:
        request = Request.build(method, path, params=query, json_body=body)
    resp = sim.handle(request)
    assert resp.status < 500, resp.summary()
    if resp.status != 200:
        refused(resp)


# -- deployment name and form-posted keys -----------------------------------------------------
def test_product_name_is_configurable() -> None:
    """The service's own name is config: it sets the first path segment and the metadata key."""
    named = ScanningSimulator(clock=Clock(), product="acme")
    host = ok(call(named, "GET", "/acme/host/192.0.2.10"))
    assert all("_acme" in b and METADATA_KEY not in b for b in host["data"])
    match = ok(call(named, "GET", "/acme/host/search", query="nginx"))["matches"][0]
    assert "_acme" in match and METADATA_KEY not in match
    assert call(named, "GET", f"{S}/host/192.0.2.10").status == 404
    assert ok(call(named, "GET", "/api-info"))  # paths without the segment are unchanged


def test_key_may_ride_in_a_posted_form(sim: ScanningSimulator) -> None:
    """What common clients send for a scan: every parameter, the key too, as form fields."""
    before = info(sim)["scan_credits"]
    form = Request.build("POST", f"{S}/scan", form={"ips": "192.0.2.10", "key": PAID, "force": "False"})
    assert ok(sim.handle(form))["count"] == 1
    assert info(sim)["scan_credits"] == before - SCAN_COST
    refused(sim.handle(Request.build("POST", f"{S}/scan", form={"ips": "192.0.2.10"})))
    refused(sim.handle(Request.build("POST", f"{S}/scan", form={"ips": "192.0.2.10", "key": "nope"})))
