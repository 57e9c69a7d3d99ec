"""Simulator of the internet-scanning service (volume 2, part B).

Written from the document, not from schemas/scanning: the numbers below are this simulator's
own reading of the text. Choices the document leaves open are marked SIM-CHOICE; the harness
never checks them (they are gaps in the rule catalogue). The banner and DNS data live in
``scanning_data`` with the query language and facets.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any, ClassVar
from urllib.parse import unquote

from conformance.services.scanning.accounts import NO_CREDITS, PLANS, SIM_KEYS, SIM_USERS, Account
from conformance.services.scanning.data import (
    DNS_TYPES,
    FACETS,
    FILTERS,
    METADATA_KEY,
    PORTS,
    PROTOCOLS,
    SEGMENT,
    database,
)
from conformance.services.scanning.query import (
    Query,
    QueryError,
    facet_counts,
    facet_spec,
    matches,
    parse_query,
    scan_targets,
)
from conformance.simulators.base import Clock, SimError, Simulator
from conformance.transport.model import Request, Response

__all__ = ["SIM_KEYS", "SIM_USERS", "ScanningSimulator"]

# Documented: pages of 100 (search and DNS); a filtered search costs 1 query credit, each
# page beyond the first 1 more; count is free; a DNS domain lookup costs 1; a scan 1 per IP.
SEARCH_PAGE_SIZE = 100
DNS_PAGE_SIZE = 100
FILTER_COST = 1
EXTRA_PAGE_COST = 1  # SIM-CHOICE: added to the filter credit (a filtered page 2 costs 2)
DNS_LOOKUP_COST = 1
SCAN_COST_PER_IP = 1

# SIM-CHOICE: statuses other than the invalid-IP 404 are not documented.
UNAUTHORIZED, FORBIDDEN, BAD_REQUEST, NOT_FOUND = 401, 403, 400, 404
# SIM-CHOICE: bounds the document does not give, kept so hostile input stays cheap.
MAX_SCAN_IPS = 65_536
MAX_LOOKUP_NAMES = 100
_HOSTNAME = re.compile(r"^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_-]{1,63})*$", re.I)
_PAGE = re.compile(r"[0-9]{1,9}")
# SIM-CHOICE: what minify (default true on search) removes is not documented.
_MINIFIED_AWAY = ("opts", "http", "dns")


class ScanningSimulator(Simulator):
    service = "scanning"
    credentials: ClassVar[dict[str, str]] = {
        "API_KEY": "sim-paid-key",
        "FREE_API_KEY": "sim-free-key",
        "ENTERPRISE_API_KEY": "sim-enterprise-key",
        "NO_CREDITS_API_KEY": "sim-broke-key",
        "ORG_MEMBER": "carol",
        # SIM-CHOICE: the spelling of true it seeds (it takes true and 1); gap boolean-spelling.
        "BOOLEAN_TRUE": "true",
    }

    def __init__(self, clock: Clock | None = None, *, product: str | None = None) -> None:
        super().__init__(clock)
        # The service's own name (first path segment, banner metadata key) is not documented:
        # "svc" as the document writes it, or a deployment's real name (e.g. the one a client
        # library hard-codes), given here rather than hard-coded.
        self.product = product or SEGMENT
        self._metadata_key = "_" + self.product
        self.db = database()
        self.accounts: dict[str, Account] = {}
        for key, (plan_id, display) in SIM_KEYS.items():
            plan = PLANS[plan_id]
            self.accounts[key] = Account(plan, display, plan.query_credits, plan.scan_credits)
        self.accounts["sim-enterprise-key"].org = {
            "name": "Example Enterprise", "created": "2026-01-05T09:00:00.000000",
            "admins": [{"username": "sim-admin", "email": SIM_USERS["sim-admin"]}],
            "members": [{"username": "dave", "email": SIM_USERS["dave"]}],
            "upgrade_type": "enterprise", "domains": ["example.com"], "logo": False,
            "id": "org-000001",
        }
        self.scans: dict[str, dict[str, Any]] = {}
        self._scan_counter = 0
        s = "/" + self.product
        # Literal paths first: /svc/host/{ip} would otherwise take "count" and "search".
        for method, path, handler in (
            ("GET", f"{s}/host/count", self.host_count),
            ("GET", f"{s}/host/search", self.host_search),
            ("GET", f"{s}/host/search/facets", lambda r: self._ok(list(FACETS))),
            ("GET", f"{s}/host/search/filters", lambda r: self._ok(list(FILTERS))),
            ("GET", f"{s}/host/search/tokens", self.search_tokens),
            ("GET", f"{s}/host/{{ip}}", self.host),
            ("GET", f"{s}/ports", lambda r: self._ok(list(PORTS))),
            ("GET", f"{s}/protocols", lambda r: self._ok(dict(PROTOCOLS))),
            ("POST", f"{s}/scan", self.scan),
            ("GET", "/org", self.org),
            ("PUT", "/org/member/{user}", self.add_member),
            ("DELETE", "/org/member/{user}", self.remove_member),
            ("GET", "/account/profile", self.profile),
            ("GET", "/dns/domain/{domain}", self.dns_domain),
            ("GET", "/dns/resolve", self.resolve),
            ("GET", "/dns/reverse", self.reverse),
            ("GET", "/tools/httpheaders", lambda r: self._ok(dict(r.headers))),
            ("GET", "/tools/myip", self.myip),
            ("GET", "/api-info", self.api_info),
        ):
            self.route(method, path, handler)

    # -- cross-cutting -------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        key = self._key(request)
        # Only the query parameter counts: a key in a header is not the documented place.
        if not key or key not in self.accounts:
            why = "Invalid API key" if key else "Provide the API key in the key query parameter"
            return self.finish(request, self.error_response(SimError(UNAUTHORIZED, why)))
        return super().handle(request)

    def error_response(self, err: SimError) -> Response:
        return Response.json_response(err.status, {"error": err.message})

    @staticmethod
    def _ok(payload: Any) -> Response:
        return Response.json_response(200, payload)

    @staticmethod
    def _key(request: Request) -> str | None:
        key = request.params.get("key")
        # SIM-CHOICE (gap key-in-form-body): a POST form body may carry key as well, because
        # widely used clients post every parameter, the key included, as form fields.
        if key is None and request.method == "POST" and (request.header("content-type") or "") \
                .split(";")[0].strip().lower() == "application/x-www-form-urlencoded":
            try:
                key = request.form().get("key")
            except UnicodeDecodeError:
                return None
        return key

    def _account(self, request: Request) -> Account:
        key = self._key(request)
        assert key is not None  # handle() refused the request otherwise
        return self.accounts[key]

    def _banner(self, banner: dict[str, Any]) -> dict[str, Any]:
        """A banner as served: the metadata object under this deployment's own name."""
        if self._metadata_key == METADATA_KEY or METADATA_KEY not in banner:
            return banner
        out = {k: v for k, v in banner.items() if k != METADATA_KEY}
        out[self._metadata_key] = banner[METADATA_KEY]
        return out

    # -- parameter parsing ---------------------------------------------------------------
    @staticmethod
    def _bool(request: Request, name: str, default: bool) -> bool:
        raw = request.params.get(name)
        if raw is None:
            return default
        # SIM-CHOICE: the boolean spelling is not documented; true/false and 1/0 are accepted.
        value = {"true": True, "1": True, "false": False, "0": False}.get(raw.strip().lower())
        if value is None:
            raise SimError(BAD_REQUEST, f"{name} must be true or false")
        return value

    @staticmethod
    def _page(request: Request) -> int:
        raw = request.params.get("page", "1").strip()
        if not _PAGE.fullmatch(raw) or int(raw) < 1:
            raise SimError(BAD_REQUEST, "page must be a positive integer")
        return int(raw)

    @staticmethod
    def _required(request: Request, name: str) -> str:
        value = request.params.get(name, "")
        if not value.strip():
            raise SimError(BAD_REQUEST, f"{name} is required")
        return value

    def _query(self, request: Request) -> Query:
        try:
            return parse_query(self._required(request, "query"))
        except QueryError as exc:
            raise SimError(BAD_REQUEST, f"invalid query: {exc}") from None

    def _search(self, request: Request) -> tuple[Query, list[dict[str, Any]], dict[str, Any]]:
        query = self._query(request)
        try:
            spec = facet_spec(request.params.get("facets", ""))
            hits = [b for b in self.db.current if matches(b, query)]
        except QueryError as exc:
            raise SimError(BAD_REQUEST, f"invalid query: {exc}") from None
        return query, hits, facet_counts(hits, spec)

    # -- search --------------------------------------------------------------------------
    def host_count(self, request: Request) -> Response:
        _, hits, facets = self._search(request)
        return self._ok({"matches": [], "facets": facets, "total": len(hits)})

    def host_search(self, request: Request) -> Response:
        page = self._page(request)
        minify = self._bool(request, "minify", True)
        fields = [f.strip() for f in request.params.get("fields", "").split(",") if f.strip()]
        query, hits, facets = self._search(request)
        cost = (FILTER_COST if query.filters else 0) + (EXTRA_PAGE_COST if page > 1 else 0)
        self._account(request).charge_query(cost)
        start = (page - 1) * SEARCH_PAGE_SIZE
        matches = []
        for banner in hits[start:start + SEARCH_PAGE_SIZE]:
            banner = self._banner(banner)
            if fields:  # SIM-CHOICE: fields picks top-level members and overrides minify
                matches.append({k: banner[k] for k in fields if k in banner})
            elif minify:  # SIM-CHOICE: minify drops opts and the protocol blocks
                matches.append({k: v for k, v in banner.items() if k not in _MINIFIED_AWAY})
            else:
                matches.append(banner)
        return self._ok({"matches": matches, "facets": facets, "total": len(hits)})

    def search_tokens(self, request: Request) -> Response:
        raw = self._required(request, "query")
        # SIM-CHOICE: a malformed query is reported in `errors` with 200, not refused.
        try:
            query = parse_query(raw)
        except QueryError as exc:
            return self._ok({"attributes": {}, "errors": [str(exc)], "string": "", "filters": []})
        return self._ok({
            "attributes": {name: values for name, values in query.filters},
            "errors": [],
            "string": " ".join(query.text),
            "filters": list(dict.fromkeys(name for name, _ in query.filters)),
        })

    def host(self, request: Request, ip: str) -> Response:
        try:
            address = str(ipaddress.ip_address(unquote(ip)))
        except ValueError:
            raise SimError(NOT_FOUND, "Invalid IP") from None
        history = self._bool(request, "history", False)
        minify = self._bool(request, "minify", False)
        if address not in self.db.hosts:
            raise SimError(NOT_FOUND, "No information available for that IP.")
        record = dict(self.db.hosts[address])
        if not minify:  # SIM-CHOICE: minify leaves the banners out entirely
            record["data"] = [self._banner(b) for b in
                              (self.db.history if history else self.db.latest)[address]]
        return self._ok(record)

    # -- scanning ------------------------------------------------------------------------
    def scan(self, request: Request) -> Response:
        account = self._account(request)
        if not account.plan.paid:
            raise SimError(FORBIDDEN, "Scanning needs a paid plan")
        ips = scan_targets(request)
        nets = []
        for target in ips:
            try:
                nets.append(ipaddress.ip_network(target.strip(), strict=False))
            except ValueError:
                raise SimError(BAD_REQUEST, f"invalid IP or netblock: {target.strip()[:60]!r}") \
                    from None
        # Overlapping netblocks count each address once.
        v4 = [n for n in nets if isinstance(n, ipaddress.IPv4Network)]
        v6 = [n for n in nets if isinstance(n, ipaddress.IPv6Network)]
        count = sum(n.num_addresses for n in ipaddress.collapse_addresses(v4)) + sum(
            n.num_addresses for n in ipaddress.collapse_addresses(v6))
        if count > MAX_SCAN_IPS:
            raise SimError(BAD_REQUEST, f"at most {MAX_SCAN_IPS} IPs per scan")
        cost = count * SCAN_COST_PER_IP
        if cost > account.scan_credits:
            raise SimError(NO_CREDITS, "Insufficient scan credits")
        account.scan_credits -= cost
        self._scan_counter += 1
        scan_id = f"SIMSCAN{self._scan_counter:08d}"
        self.scans[scan_id] = {"id": scan_id, "count": count, "created": self.clock.now()}
        return self._ok({"count": count, "id": scan_id, "credits_left": account.scan_credits})

    # -- organization --------------------------------------------------------------------
    def _org(self, request: Request) -> dict[str, Any]:
        account = self._account(request)
        if not account.plan.enterprise or account.org is None:
            raise SimError(FORBIDDEN, "Organization calls need the enterprise level")
        return account.org

    def _user(self, user: str) -> dict[str, str]:
        name = unquote(user)
        for username, email in SIM_USERS.items():
            if name in (username, email):
                return {"username": username, "email": email}
        raise SimError(NOT_FOUND, "No such user")  # SIM-CHOICE: status not documented

    def org(self, request: Request) -> Response:
        return self._ok(self._org(request))

    def add_member(self, request: Request, user: str) -> Response:
        org = self._org(request)
        self._bool(request, "notify", False)  # SIM-CHOICE: nothing is sent; only validated
        entry = self._user(user)
        if entry not in org["members"]:  # SIM-CHOICE: adding a member twice is a no-op
            org["members"].append(entry)
        return self._ok({"success": True})

    def remove_member(self, request: Request, user: str) -> Response:
        org = self._org(request)
        entry = self._user(user)
        if entry not in org["members"]:
            raise SimError(NOT_FOUND, "User is not a member")  # SIM-CHOICE
        org["members"].remove(entry)
        return self._ok({"success": True})

    # -- account -------------------------------------------------------------------------
    def profile(self, request: Request) -> Response:
        account = self._account(request)
        # SIM-CHOICE: which credits the profile counts is not shown; it mirrors query credits.
        return self._ok({"member": account.plan.paid, "credits": account.query_credits,
                         "display_name": account.display_name,
                         "created": "2026-01-01T00:00:00.000000"})

    def api_info(self, request: Request) -> Response:
        account = self._account(request)
        plan = account.plan
        return self._ok({
            "scan_credits": account.scan_credits, "query_credits": account.query_credits,
            "monitored_ips": plan.monitored_ips, "unlocked_left": account.query_credits,
            "usage_limits": {"scan_credits": plan.scan_credits, "query_credits": plan.query_credits,
                             "monitored_ips": plan.monitored_ips},
            "plan": plan.name, "https": plan.paid, "unlocked": plan.paid, "telnet": plan.paid,
        })

    # -- DNS and tools -------------------------------------------------------------------
    def dns_domain(self, request: Request, domain: str) -> Response:
        name = unquote(domain).lower()
        if not _HOSTNAME.match(name):
            raise SimError(BAD_REQUEST, "invalid domain name")
        history = self._bool(request, "history", False)
        page = self._page(request)
        rtype = request.params.get("type")
        if rtype is not None and rtype not in DNS_TYPES:
            raise SimError(BAD_REQUEST, f"type must be one of {', '.join(DNS_TYPES)}")
        if name not in self.db.dns:
            raise SimError(NOT_FOUND, "No information available for that domain.")  # SIM-CHOICE
        self._account(request).charge_query(DNS_LOOKUP_COST)
        records = [r for r in self.db.dns[name]
                   if (history or r["_current"]) and (rtype is None or r["type"] == rtype)]
        start = (page - 1) * DNS_PAGE_SIZE
        data = [{k: v for k, v in r.items() if k != "_current"}
                for r in records[start:start + DNS_PAGE_SIZE]]
        return self._ok({
            "domain": name, "tags": ["ipv6"] if any(r["type"] == "AAAA" for r in records) else [],
            "data": data, "subdomains": sorted({r["subdomain"] for r in records if r["subdomain"]}),
            "more": start + DNS_PAGE_SIZE < len(records),
        })

    @staticmethod
    def _names(request: Request, param: str) -> list[str]:
        names = [n.strip() for n in ScanningSimulator._required(request, param).split(",")]
        if len(names) > MAX_LOOKUP_NAMES or not all(names):
            raise SimError(BAD_REQUEST, f"{param}: comma-separated, at most {MAX_LOOKUP_NAMES}")
        return names

    def resolve(self, request: Request) -> Response:
        out = {}
        for name in self._names(request, "hostnames"):
            if not _HOSTNAME.match(name):
                raise SimError(BAD_REQUEST, f"invalid hostname {name[:60]!r}")
            ip = self.db.resolve(name)
            if ip is not None:  # SIM-CHOICE: unknown names are left out, not mapped to null
                out[name] = ip
        return self._ok(out)

    def reverse(self, request: Request) -> Response:
        out = {}
        for ip in self._names(request, "ips"):
            try:
                address = str(ipaddress.ip_address(ip))
            except ValueError:
                raise SimError(BAD_REQUEST, f"invalid IP {ip[:60]!r}") from None
            out[ip] = self.db.reverse(address)  # SIM-CHOICE: unknown IPs map to []
        return self._ok(out)

    def myip(self, request: Request) -> Response:
        # SIM-CHOICE: the core sees no socket; a forwarded address (the ASGI adapter's) wins.
        forwarded = (request.header("x-forwarded-for") or "").split(",")[0].strip()
        try:
            return self._ok(str(ipaddress.ip_address(forwarded)))
        except ValueError:
            return self._ok("127.0.0.1")

