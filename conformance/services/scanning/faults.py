"""Faults of the internet-scanning simulator: each makes it break one documented rule.

Faults wrap the simulator (requests rewritten before it, responses after it) or change the
state of the one simulator instance they are given; none touches module globals, because the
kill matrix runs clean and faulty suites in the same worker processes.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable
from typing import Any

from conformance.faults.base import Fault, FaultySimulator, fault, json_edit, on_request, on_response
from conformance.services.scanning.data import METADATA_KEY, SEGMENT
from conformance.services.scanning.simulator import ScanningSimulator
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

# The fault module may know the simulator's surface: its paths and seeded keys.
S = "/" + SEGMENT
SEARCH, COUNT, SCAN = f"{S}/host/search", f"{S}/host/count", f"{S}/scan"
HOST = re.compile(f"^{S}/host/(?!count$|search)[^/]+$")
PAID = ScanningSimulator.credentials["API_KEY"]
FREE = ScanningSimulator.credentials["FREE_API_KEY"]
ENTERPRISE = ScanningSimulator.credentials["ENTERPRISE_API_KEY"]

Edit = Callable[[Any], Any]
After = Callable[[Request, Response], Response]


def _is_host(request: Request) -> bool:
    return request.method == "GET" and bool(HOST.match(request.path))


def _edit_ok(match: Callable[[Request], bool], edit: Edit) -> Callable[[Simulator], Simulator]:
    """Rewrite the JSON body of 200 answers to matching requests."""
    def after(request: Request, response: Response) -> Response:
        if response.status == 200 and match(request):
            response.body = json_edit(response.body, edit)
        return response
    return on_response(after)


def _path(path: str, method: str = "GET") -> Callable[[Request], bool]:
    return lambda r: r.method == method and r.path == path


def _with_state(make: Callable[[Simulator], After]) -> Callable[[Simulator], Simulator]:
    """A response rewrite that needs the simulator (its accounts, or to call it again)."""
    return lambda sim: FaultySimulator(sim, after=make(sim))  # type: ignore[return-value]


def _account(sim: Simulator, request: Request) -> Any:
    return sim.accounts.get(request.params.get("key", ""))  # type: ignore[attr-defined]


def _refund(match: Callable[[Request], bool], field: str, amount: Callable[[Request, Any], int]
            ) -> Callable[[Simulator], Simulator]:
    """Give back (negative: take more) credits after a matching 200: the balance stops agreeing."""
    def make(sim: Simulator) -> After:
        def after(request: Request, response: Response) -> Response:
            account = _account(sim, request)
            if response.status == 200 and match(request) and account is not None:
                setattr(account, field, getattr(account, field) + amount(request, response.json()))
            return response
        return after
    return _with_state(make)


def _swap_key(match: Callable[[Request], bool], old: str, new: str) -> Callable[[Simulator], Simulator]:
    def before(request: Request) -> Request:
        if match(request) and request.params.get("key") == old:
            request.query = [(k, new if k == "key" else v) for k, v in request.query]
        return request
    return on_request(before)


def _drop_param(match: Callable[[Request], bool], name: str,
                when: Callable[[str], bool] = lambda v: True) -> Callable[[Simulator], Simulator]:
    def before(request: Request) -> Request:
        if match(request):
            request.query = [(k, v) for k, v in request.query if k != name or not when(v)]
        return request
    return on_request(before)


def _header_key(request: Request) -> Request:
    if "key" not in request.params and request.header("key"):
        request.query.append(("key", request.headers["key"]))
    return request


def _no_error_member(request: Request, response: Response) -> Response:
    if response.status != 200:
        response.body = json_edit(response.body, lambda b: {"message": b.get("error")}
                                  if isinstance(b, dict) else b)
    return response


def _invalid_ip_500(request: Request, response: Response) -> Response:
    if _is_host(request) and response.status == 404:
        return Response.json_response(500, {"error": "internal error"})
    return response


def _overlapping_pages() -> Callable[[Simulator], Simulator]:
    last: dict[str, Any] = {}

    def after(request: Request, response: Response) -> Response:
        if request.path != SEARCH or response.status != 200:
            return response
        body = json.loads(response.body)
        if request.params.get("page", "1") == "1":
            last["tail"] = body["matches"][-1:]
        elif last.get("tail") and body["matches"]:
            body["matches"][0] = last["tail"][0]  # page 2 repeats page 1's last banner
            response.body = json.dumps(body).encode()
        return response
    return on_response(after)


def _org_removal_invisible(sim: Simulator) -> After:
    def after(request: Request, response: Response) -> Response:
        if request.method == "DELETE" and request.path.startswith("/org/member/") and response.status == 200:
            sim.handle(Request("PUT", request.path, list(request.query)))  # quietly re-added
        return response
    return after


def _free_refused(request: Request, response: Response) -> Response:
    if request.path == "/account/profile" and request.params.get("key") == FREE:
        return Response.json_response(403, {"error": "free accounts have no API access"})
    return response


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


def _cidr_refused(request: Request, response: Response) -> Response:
    if request.path == SCAN and b"/" in request.body:
        return Response.json_response(400, {"error": "netblocks are not supported"})
    return response


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


def _keyless_lookups(request: Request) -> Request:
    lookups = ("/host/", "/org/member/", "/dns/domain/")
    if not any(k == "key" for k, _ in request.query) and any(p in request.path for p in lookups):
        request.query.append(("key", ScanningSimulator.credentials["API_KEY"]))
    return request


def _refusals_as_500(request: Request, response: Response) -> Response:
    if 400 <= response.status < 500 and ("/scan" in request.path or "/org" in request.path):
        response.status = 500
    return response


def _dns_page(request: Request) -> bool:
    return request.method == "GET" and request.path.startswith("/dns/domain/")


def _first_dns_page_ends(request: Request, response: Response) -> Response:
    # Page 1 (full) says more: false while page 2 still holds entries. (The variant whose page 2
    # is empty too, a server that never pages, cannot be told from a one-page domain: the check
    # skips it, "paging (more=true) is not exercised", and no fault can stand for it.)
    if _dns_page(request) and response.status == 200 and request.params.get("page", "1") == "1":
        response.body = json_edit(response.body, lambda b: {**b, "more": False})
    return response


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


def _total_is_page(request: Request, response: Response) -> Response:
    if request.path == SEARCH and response.status == 200:
        response.body = json_edit(response.body, lambda b: {**b, "total": len(b["matches"])})
    return response


def _reverse_500_several(request: Request, response: Response) -> Response:
    if request.path == "/dns/reverse" and "," in request.params.get("ips", ""):
        return Response.json_response(500, {"error": "internal error"})
    return response


def _page_refused(request: Request, response: Response) -> Response:
    paged = request.path == SEARCH or _dns_page(request)
    if paged and any(k == "page" for k, _ in request.query):
        return Response.json_response(400, {"error": "page is not supported"})
    return response


def _default_page(path: str | re.Pattern[str], page: str) -> Callable[[Simulator], Simulator]:
    """Requests to ``path`` without page serve ``page`` instead of page 1."""
    def before(request: Request) -> Request:
        hit = path.match(request.path) if isinstance(path, re.Pattern) else request.path == path
        if request.method == "GET" and hit and "page" not in request.params:
            request.query = [*request.query, ("page", page)]
        return request
    return on_request(before)


DNS_DOMAIN = re.compile(r"^/dns/domain/[^/]+$")

FAULTS: list[Fault] = [
    fault("search-default-page-2", "a search without page serves page 2")(
        _default_page(SEARCH, "2")),
    fault("dns-default-page-2", "a DNS domain lookup without page serves page 2")(
        _default_page(DNS_DOMAIN, "2")),
    fault("count-charges-credit",
          "host count takes a query credit")(_refund(_path(COUNT), "query_credits", lambda r, b: -1)),
    fault("search-101-results",
          "a full search page carries 101 results")(_edit_ok(_path(SEARCH), lambda b: {
              **b, "matches": b["matches"] + b["matches"][:1]} if len(b["matches"]) >= 100 else b)),
    fault("invalid-ip-500",
          "host lookup answers 500 for an invalid IP")(on_response(_invalid_ip_500)),
    fault("key-from-header",
          "a key sent only in a `key` header is accepted")(on_request(_header_key)),
    fault("error-without-error",
          "non-200 bodies say {message} instead of {error}")(on_response(_no_error_member)),
    fault("facets-ignore-count",
          "the :count suffix of facets entries is ignored")(on_request(_strip_facet_counts)),
    fault("scan-not-deducted",
          "a scan leaves scan credits where they were")(
        _refund(_path(SCAN, "POST"), "scan_credits", lambda r, b: int(b["count"]))),
    fault("dns-more-false",
          "DNS pages always say more: false")(_edit_ok(
              lambda r: r.path.startswith("/dns/domain/"), lambda b: {**b, "more": False})),
    fault("reverse-disagrees",
          "reverse answers the neighbouring IPs instead of the ones asked")(
        _edit_ok(_path("/dns/reverse"), _shift_reverse)),
    fault("org-removal-invisible",
          "removing an org member answers success but the member stays")(
        _with_state(_org_removal_invisible)),
    fault("free-key-scans",
          "a free account's scan is run (on the paid account)")(
        _swap_key(_path(SCAN, "POST"), FREE, PAID)),
    fault("pages-overlap",
          "search page 2 starts with page 1's last banner")(lambda sim: _overlapping_pages()(sim)),
    fault("paid-key-gets-org",
          "a paid, non-enterprise key is served the enterprise organization")(
        _swap_key(lambda r: r.path.startswith("/org"), PAID, ENTERPRISE)),
    fault("free-key-refused",
          "a free account's key is refused on the account profile")(on_response(_free_refused)),
    fault("host-ports-strings",
          "the host record lists ports as strings")(
        _edit_ok(_is_host, lambda b: {**b, "ports": _strings(b.get("ports", []))})),
    fault("minify-ignored",
          "host lookup ignores minify and returns banners")(_drop_param(_is_host, "minify")),
    fault("history-fewer",
          "history=true returns only one banner")(_edit_ok(
              lambda r: _is_host(r) and r.params.get("history") == "true",
              lambda b: {**b, "data": b.get("data", [])[:1]})),
    fault("banner-cpe-string",  # a missing cpe is the allowed variant
          "host banners give cpe as a string")(_edit_ok(_is_host, _banners(lambda b: b.update(cpe="cpe:/a")))),
    fault("metadata-key-renamed",
          "banner metadata sits under _meta instead of _ + the service's name")(
        _edit_ok(_is_host, _banners(lambda b: b.update({"_meta": b.pop(METADATA_KEY, {})})))),
    fault("page-text-as-1",
          "a non-integer search page is read as page 1")(
        _drop_param(_path(SEARCH), "page", lambda v: not v.isdigit())),
    fault("search-without-facets",
          "search answers leave out facets")(_edit_ok(_path(SEARCH), lambda b: {
              k: v for k, v in b.items() if k != "facets"})),
    fault("count-returns-matches",
          "host count fills matches")(_edit_ok(_path(COUNT), lambda b: {**b, "matches": [{"port": 80}]})),
    fault("count-total-off-by-one",
          "host count's total is one more than the search total")(
        _edit_ok(_path(COUNT), lambda b: {**b, "total": b["total"] + 1})),
    fault("facet-values-numbers",
          "facet values are numbers")(_edit_ok(_path(COUNT), _facet_values_numbers)),
    fault("ports-as-strings",
          "the port list holds strings")(_edit_ok(_path(f"{S}/ports"), _strings)),
    fault("later-pages-free",
          "search pages beyond the first cost nothing")(
        _refund(_path(SEARCH), "query_credits", _page_two_free)),
    fault("filter-free",
          "a filtered search's first page costs nothing")(
        _refund(_path(SEARCH), "query_credits", _filter_free)),
    fault("dns-lookup-free",
          "a DNS domain lookup costs nothing")(
        _refund(lambda r: r.path.startswith("/dns/domain/"), "query_credits", lambda r, b: 1)),
    fault("scan-id-number",
          "a scan answers its id as a number")(
        _edit_ok(_path(SCAN, "POST"), lambda b: {**b, "id": 17})),
    fault("cidr-refused",
          "scans refuse CIDR netblocks")(on_response(_cidr_refused)),
    fault("empty-ips-accepted",
          "an empty ips string scans a default IP")(on_request(_empty_ips_filled)),
    fault("org-logo-string",
          "the organization's logo is a string")(_edit_ok(_path("/org"), lambda b: {**b, "logo": "none"})),
    fault("myip-hostname",
          "myip answers a host name")(_edit_ok(_path("/tools/myip"), lambda b: "localhost")),
    fault("headers-not-echoed",
          "httpheaders leaves out custom headers")(_edit_ok(_path("/tools/httpheaders"), lambda b: {
              k: v for k, v in b.items() if not k.lower().startswith("x-")})),
    fault("resolve-arrays",
          "resolve maps each hostname to an array")(
        _edit_ok(_path("/dns/resolve"), lambda b: {k: [v] for k, v in b.items()})),
    fault("reverse-strings",
          "reverse maps each IP to one string")(
        _edit_ok(_path("/dns/reverse"), lambda b: {k: ",".join(v) for k, v in b.items()})),
    fault("protocols-text-plain",
          "the protocol list is served as text/plain")(on_response(_text_plain)),
    # From review: wrong servers that weaker checks once let pass.
    fault("keyless-lookups",
          "host, org member and DNS domain lookups are served without a key")(on_request(_keyless_lookups)),
    fault("refusals-as-500",
          "refusals of scans and org calls are answered 500 instead of 4xx")(on_response(_refusals_as_500)),
    # From review 2.
    fault("dns-more-false-page2-filled",
          "DNS page 1 says more: false although page 2 holds entries")(
        on_response(_first_dns_page_ends)),
    fault("history-ignored",
          "host lookup ignores history=true and answers the current banners")(
        _drop_param(_is_host, "history")),
    fault("api-info-charges-and-free-search",
          "api-info costs a query credit per read and searches cost nothing")(
        _with_state(_api_info_charges_free_search)),
    fault("search-total-is-page",
          "search total counts the matches of the page answered, not of the query")(
        on_response(_total_is_page)),
    fault("page-param-refused",
          "search and DNS domain lookups refuse the page parameter whatever its value")(
        on_response(_page_refused)),
    fault("reverse-500-several",
          "reverse answers 500 when asked about more than one IP")(on_response(_reverse_500_several)),
    fault("resolve-strays",
          "resolve also answers a hostname it was not asked")(
        _edit_ok(_path("/dns/resolve"), lambda b: {**b, "stray.example.net": "198.51.100.251"})),
    fault("reverse-extra-ip",
          "reverse also answers an IP it was not asked")(
        _edit_ok(_path("/dns/reverse"), lambda b: {**b, "198.51.100.250": ["extra.example.com"]})),
]
