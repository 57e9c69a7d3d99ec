"""Faults of the internet-scanning simulator: each makes it break one documented rule.

Faults wrap the simulator (requests rewritten before it, responses after it) or change the
state of the one simulator instance they are given; none touches module globals, because the
kill matrix runs clean and faulty suites in the same worker processes.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Any

from conformance.faults.base import Fault, FaultySimulator, fault, on_request, on_response
from conformance.faults.toolkit import Edit, Match, Wrap, any_request, path, response_body, status
from conformance.services.scanning.data import METADATA_KEY, SEGMENT
from conformance.services.scanning.simulator import ScanningSimulator
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

# The fault module may know the simulator's surface: its paths and seeded keys.
S = "/" + SEGMENT
SEARCH, COUNT, SCAN = f"{S}/host/search", f"{S}/host/count", f"{S}/scan"
PAID = ScanningSimulator.credentials["API_KEY"]
FREE = ScanningSimulator.credentials["FREE_API_KEY"]
ENTERPRISE = ScanningSimulator.credentials["ENTERPRISE_API_KEY"]

After = Callable[[Request, Response], Response]

# Requests to one path (the whole path), and the host lookup; the DNS domain pages.
_SEARCH, _COUNT, _SCAN = path(f"^{SEARCH}$", "GET"), path(f"^{COUNT}$", "GET"), path(f"^{SCAN}$", "POST")
_HOST = path(f"^{S}/host/(?!count$|search)[^/]+$", "GET")
_DNS_PAGE = path(r"^/dns/domain/", "GET")
_REVERSE, _RESOLVE = path(r"^/dns/reverse$", "GET"), path(r"^/dns/resolve$", "GET")
_NOT_200 = [code for code in range(100, 600) if code != 200]


def _with_state(make: Callable[[Simulator], After]) -> Callable[[Simulator], Simulator]:
    """A response rewrite that needs the simulator (its accounts, or to call it again)."""
    return lambda sim: FaultySimulator(sim, after=make(sim))  # type: ignore[return-value]


def _account(sim: Simulator, request: Request) -> Any:
    return sim.accounts.get(request.params.get("key", ""))  # type: ignore[attr-defined]


def _refund(match: Match, field: str, amount: Callable[[Request, Any], int]) -> Wrap:
    """Give back (negative: take more) credits after a matching 200: the balance stops agreeing."""
    def make(sim: Simulator) -> After:
        def after(request: Request, response: Response) -> Response:
            account = _account(sim, request)
            if response.status == 200 and match(request) and account is not None:
                setattr(account, field, getattr(account, field) + amount(request, response.json()))
            return response
        return after
    return _with_state(make)


def _swap_key(match: Match, old: str, new: str) -> Wrap:
    def before(request: Request) -> Request:
        if match(request) and request.params.get("key") == old:
            request.query = [(k, new if k == "key" else v) for k, v in request.query]
        return request
    return on_request(before)


def _drop_param(match: Match, name: str, when: Callable[[str], bool] = lambda v: True) -> Wrap:
    def before(request: Request) -> Request:
        if match(request):
            request.query = [(k, v) for k, v in request.query if k != name or not when(v)]
        return request
    return on_request(before)


def _no_error_member(body: Any) -> Any:
    return {"message": body.get("error")} if isinstance(body, dict) else body


def _free_profile(request: Request) -> bool:
    return request.path == "/account/profile" and request.params.get("key") == FREE


def _shift_reverse(body: Any) -> Any:
    # Each answered IP is replaced by its neighbour: reverse no longer answers what was asked.
    return {str(ipaddress.ip_address(ip) + 1): names for ip, names in body.items()}


def _banners(edit: Callable[[dict[str, Any]], None]) -> Edit:
    def apply(body: Any) -> Any:
        for banner in body.get("data") or []:
            edit(banner)
        return body
    return apply


def _facet_values_numbers(body: Any) -> Any:
    for values in body.get("facets", {}).values():
        for entry in values:
            entry["value"] = len(str(entry["value"]))
    return body


def _text_plain(request: Request, response: Response) -> Response:
    if request.path == f"{S}/protocols" and response.status == 200:
        response.headers["content-type"] = "text/plain"
    return response


def _netblock_scan(request: Request) -> bool:
    return request.path == SCAN and b"/" in request.body


def _empty_ips_filled(request: Request) -> Request:
    if request.path == SCAN and request.body.replace(b" ", b"") == b'{"ips":""}':
        request.body = b'{"ips":"192.0.2.1"}'
    return request


def _strings(values: list[Any]) -> list[Any]:
    return [str(v) for v in values]


def _page_two_free(request: Request, body: Any) -> int:
    return 1 if request.params.get("page", "1") != "1" else 0


def _filter_free(request: Request, body: Any) -> int:
    return 1 if ":" in request.params.get("query", "") and request.params.get("page", "1") == "1" else 0


def _strip_facet_counts(request: Request) -> Request:
    request.query = [(k, re.sub(r":[0-9]+", "", v) if k == "facets" else v) for k, v in request.query]
    return request


def _api_info_charges_free_search(sim: Simulator) -> After:
    # api-info costs a query credit per read (the document does not say it is free, so that
    # alone conforms) and every search is refunded its cost (that does not).
    def after(request: Request, response: Response) -> Response:
        account = _account(sim, request)
        if account is not None and response.status == 200:
            if request.path == "/api-info" and account.query_credits > 0:
                account.query_credits -= 1
            if request.path == SEARCH:
                account.query_credits += 1
        return response
    return after


def _several_reversed(request: Request) -> bool:
    return request.path == "/dns/reverse" and "," in request.params.get("ips", "")


def _paged_with_page(request: Request) -> bool:
    paged = request.path == SEARCH or _DNS_PAGE(request)
    return paged and any(k == "page" for k, _ in request.query)


_INTERNAL_ERROR = {"error": "internal error"}

FAULTS: list[Fault] = [
    fault("error-without-error",
          "non-200 bodies say {message} instead of {error}")(response_body(any_request, _no_error_member, _NOT_200)),
    fault("facets-ignore-count",
          "the :count suffix of facets entries is ignored")(on_request(_strip_facet_counts)),
    fault("scan-not-deducted",
          "a scan leaves scan credits where they were")(
        _refund(_SCAN, "scan_credits", lambda r, b: int(b["count"]))),
    fault("reverse-disagrees",
          "reverse answers the neighbouring IPs instead of the ones asked")(
        response_body(_REVERSE, _shift_reverse)),
    fault("free-key-scans",
          "a free account's scan is run (on the paid account)")(
        _swap_key(_SCAN, FREE, PAID)),
    fault("paid-key-gets-org",
          "a paid, non-enterprise key is served the enterprise organization")(
        _swap_key(path(r"^/org"), PAID, ENTERPRISE)),
    fault("free-key-refused",
          "a free account's key is refused on the account profile")(
        status(_free_profile, 403, body={"error": "free accounts have no API access"})),
    fault("host-ports-strings",
          "the host record lists ports as strings")(
        response_body(_HOST, lambda b: {**b, "ports": _strings(b.get("ports", []))})),
    fault("minify-ignored",
          "host lookup ignores minify and returns banners")(_drop_param(_HOST, "minify")),
    fault("history-fewer",
          "history=true returns only one banner")(response_body(
              lambda r: _HOST(r) and r.params.get("history") == "true",
              lambda b: {**b, "data": b.get("data", [])[:1]})),
    fault("banner-cpe-string",  # a missing cpe is the allowed variant
          "host banners give cpe as a string")(response_body(_HOST, _banners(lambda b: b.update(cpe="cpe:/a")))),
    fault("metadata-key-renamed",
          "banner metadata sits under _meta instead of _ + the service's name")(
        response_body(_HOST, _banners(lambda b: b.update({"_meta": b.pop(METADATA_KEY, {})})))),
    fault("count-returns-matches",
          "host count fills matches")(response_body(_COUNT, lambda b: {**b, "matches": [{"port": 80}]})),
    fault("facet-values-numbers",
          "facet values are numbers")(response_body(_COUNT, _facet_values_numbers)),
    fault("later-pages-free",
          "search pages beyond the first cost nothing")(
        _refund(_SEARCH, "query_credits", _page_two_free)),
    fault("filter-free",
          "a filtered search's first page costs nothing")(
        _refund(_SEARCH, "query_credits", _filter_free)),
    fault("dns-lookup-free",
          "a DNS domain lookup costs nothing")(
        _refund(path(r"^/dns/domain/"), "query_credits", lambda r, b: 1)),
    fault("scan-id-number",
          "a scan answers its id as a number")(
        response_body(_SCAN, lambda b: {**b, "id": 17})),
    fault("cidr-refused",
          "scans refuse CIDR netblocks")(status(_netblock_scan, 400, body={"error": "netblocks are not supported"})),
    fault("empty-ips-accepted",
          "an empty ips string scans a default IP")(on_request(_empty_ips_filled)),
    fault("myip-hostname",
          "myip answers a host name")(response_body(path(r"^/tools/myip$", "GET"), lambda b: "localhost")),
    fault("headers-not-echoed",
          "httpheaders leaves out custom headers")(response_body(path(r"^/tools/httpheaders$", "GET"), lambda b: {
              k: v for k, v in b.items() if not k.lower().startswith("x-")})),
    fault("resolve-arrays",
          "resolve maps each hostname to an array")(
        response_body(_RESOLVE, lambda b: {k: [v] for k, v in b.items()})),
    fault("reverse-strings",
          "reverse maps each IP to one string")(
        response_body(_REVERSE, lambda b: {k: ",".join(v) for k, v in b.items()})),
    fault("protocols-text-plain",
          "the protocol list is served as text/plain")(on_response(_text_plain)),
    # From review: wrong servers that weaker checks once let pass.
    # From review 2.
    fault("history-ignored",
          "host lookup ignores history=true and answers the current banners")(
        _drop_param(_HOST, "history")),
    fault("api-info-charges-and-free-search",
          "api-info costs a query credit per read and searches cost nothing")(
        _with_state(_api_info_charges_free_search)),
    fault("search-total-is-page",
          "search total counts the matches of the page answered, not of the query")(
        response_body(path(f"^{SEARCH}$"), lambda b: {**b, "total": len(b["matches"])})),
    fault("page-param-refused",
          "search and DNS domain lookups refuse the page parameter whatever its value")(
        status(_paged_with_page, 400, body={"error": "page is not supported"})),
    fault("reverse-500-several",
          "reverse answers 500 when asked about more than one IP")(
        status(_several_reversed, 500, body=_INTERNAL_ERROR)),
    fault("resolve-strays",
          "resolve also answers a hostname it was not asked")(
        response_body(_RESOLVE, lambda b: {**b, "stray.example.net": "198.51.100.251"})),
    fault("reverse-extra-ip",
          "reverse also answers an IP it was not asked")(
        response_body(_REVERSE, lambda b: {**b, "198.51.100.250": ["extra.example.com"]})),
    # Issue 35 item 11: the facets a request names, ignored (the server's default set, here none).
    fault("facets-ignored",
          "host count ignores the facets it is asked for")(_drop_param(_COUNT, "facets")),
]
