"""Affiliate-tracking simulator (volume 3, part C), written from the document.

Reports over seeded rows (data.py) with the document's windows and caps (reports.py), smart
links and single-use temporary uploads (links.py). "Today" is the date of the simulator's
clock (UTC for every timezone_id: the document does not give their offsets).
"""

from __future__ import annotations

import copy
import hashlib
from datetime import UTC, date, datetime, timedelta
from typing import Any, ClassVar

from conformance.services.affiliate import reports
from conformance.services.affiliate.data import DAY, HEAVY_EMAIL, SeedData, first_conversion_id
from conformance.services.affiliate.links import DEFAULTS, RELATIONSHIPS, unpack_upload, validate_smart_link
from conformance.simulators.base import Clock, SimError, Simulator
from conformance.transport.model import Request, Response

__all__ = ["AffiliateSimulator"]

KEY = "sim-affiliate-key"
_CONVERSIONS = "/v1/networks/reporting/conversions"
_FILES = "/v1/networks/uploads/temp/files"


def _date_of(seconds: float) -> date:
    return datetime.fromtimestamp(seconds, UTC).date()


class AffiliateSimulator(Simulator):
    service = "affiliate"
    credentials: ClassVar[dict[str, str]] = {
        "API_KEY": KEY,
        # The date of a fresh Clock: what the simulator calls today when the harness starts it.
        "TODAY": _date_of(Clock().now()).isoformat(),
        "TIMEZONE_ID": "90",
        "EMAIL": HEAVY_EMAIL,
        "CAMPAIGN_ID": "1",
        "CONVERSION_ID": first_conversion_id(),
        "IMPRESSIONS_PACKAGE": "1",  # SIM-CHOICE: the simulated account has the impression package
    }

    def __init__(self, clock: Clock | None = None) -> None:
        super().__init__(clock)
        self.rules = reports.Rules()
        self.data = SeedData(self.clock.now())
        self.files: dict[str, bytes] = {}
        self.campaigns: dict[int, dict[str, Any]] = {}
        self._next_id = 1
        self._create({"campaign_name": "Seeded smart link", "redirect_routing_type": "priority",
                      "redirects": [{"redirect_network_offer_id": 1, "redirect_network_offer_url_id": 0,
                                     "routing_value": 1}], "labels": ["seeded"]})
        for method, path, handler in (
            ("POST", _CONVERSIONS, self._report),
            ("POST", _CONVERSIONS + "/export", self._export),
            ("POST", _CONVERSIONS + "/email", self._email),
            ("GET", _CONVERSIONS + "/{conversion_id}", self._conversion),
            ("POST", "/v1/networks/reporting/impressions/stream", self._impressions),
            ("POST", "/v1/affiliates/reporting/clicks/stream", self._clicks),
            ("POST", "/v1/affiliates/dashboard/summary", self._dashboard),
            ("POST", "/v1/networks/uploads/temp", self._upload),
            ("GET", "/v1/networks/campaigns", self._list),
            ("POST", "/v1/networks/campaigns", self._create_route),
            ("GET", "/v1/networks/campaigns/{campaign_id}", self._get),
            ("PUT", "/v1/networks/campaigns/{campaign_id}", self._put),
        ):
            self.route(method, path, self._keyed(handler))
        # Upload urls are capabilities in themselves (like signed URLs): no key needed.
        self.route("GET", _FILES + "/{token}", self._file)

    # -- plumbing --------------------------------------------------------------------------
    def _keyed(self, handler: Any) -> Any:
        def run(request: Request, **kw: str) -> Response:
            if request.header("x-tracker-api-key") != KEY:
                raise SimError(401, "missing or invalid X-Tracker-API-Key")
            return handler(request, **kw)
        return run

    def today(self) -> date:
        return _date_of(self.clock.now())

    @staticmethod
    def _ok(body: Any) -> Response:
        return Response.json_response(200, body)

    # -- reports ---------------------------------------------------------------------------
    def _rows(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        return reports.select_conversions(self.data.conversions, body, self.today(), self.rules)

    def _report(self, request: Request) -> Response:
        body = self.json_body(request)
        return self._ok(reports.page_of(self._rows(body), body, self.rules))

    def _export(self, request: Request) -> Response:
        body = self.json_body(request)
        media, payload = reports.render_export(self._rows(body), body)
        return Response(200, {"content-type": media}, payload)

    def _conversion(self, request: Request, conversion_id: str) -> Response:
        if len(conversion_id) != 32:
            raise SimError(400, "a conversion id has 32 characters")
        rows = self.data.conversions
        for number, row in enumerate(rows):
            if row["conversion_id"] == conversion_id:
                full = copy.deepcopy(rows[(number + self.rules.conversion_shift) % len(rows)])
                full["relationship"]["redirect_url"] = "https://offer.example/landing"
                full["relationship"]["snapshots"] = {}
                return self._ok(full)
        raise SimError(404, "no such conversion")

    def _email(self, request: Request) -> Response:
        body = self.json_body(request)
        email = body.get("email")
        if not isinstance(email, str) or not email:
            raise SimError(400, "email is required")
        # Older than a year: archived (the document allows omitting them).
        since = datetime.combine(self.today(), datetime.min.time(), UTC) - timedelta(days=self.rules.email_archive_days)
        rows = [r for r in self.data.conversions
                if r["email"] == email and r["conversion_unix_timestamp"] >= since.timestamp()]
        order = -1 if self.rules.email_latest else 1
        rows.sort(key=lambda r: (order * r["conversion_unix_timestamp"], r["conversion_id"]))
        return self._ok({"conversions": rows[:100]})  # "at most the latest 100"

    def _stream_window(self, body: dict[str, Any]) -> tuple[float, float]:
        start = reports.parse_stamp(body, "from", time_required=True, end=False)
        stop = reports.parse_stamp(body, "to", time_required=True, end=True)
        reports.check_number(body, "timezone_id", required=True)
        if stop < start:
            raise SimError(400, "to is before from")
        if stop - start > timedelta(days=14):
            raise SimError(400, "the span is above the 14-day range")
        return start.timestamp(), stop.timestamp()

    def _clicks(self, request: Request) -> Response:
        body = self.json_body(request)
        lo, hi = self._stream_window(body)
        kept_since = self.clock.now() - self.rules.click_keep_days * DAY
        rows = [c for c in self.data.clicks if lo <= c["unix_timestamp"] <= hi
                and ((c["converted"] and self.rules.converted_kept) or c["unix_timestamp"] >= kept_since)]
        rows = reports.filter_rows(rows, body, self.rules)
        out = [{k: v for k, v in c.items() if k != "converted"} for c in rows[:5000]]  # "at most 5000 clicks"
        return self._ok({"clicks": out})

    def _impressions(self, request: Request) -> Response:
        body = self.json_body(request)
        self._stream_window(body)
        return self._ok({"impressions": []})

    def _dashboard(self, request: Request) -> Response:
        body = self.json_body(request) if request.body else {}
        reports.check_number(body, "timezone_id")
        today = self.today()
        first = today.replace(day=1)
        last_first = (first - timedelta(days=1)).replace(day=1)
        spans = {"today": (today, today), "yesterday": (today - timedelta(days=1),) * 2,
                 "current_month": (first, today), "last_month": (last_first, first - timedelta(days=1))}
        out: dict[str, dict[str, float]] = {}
        for card, pick in (("revenue", "revenue"), ("click", None), ("conversion", False), ("events", True),
                           ("redirect_revenue", "payout"), ("impression", None)):
            out[card] = {name: self._sum(lo, hi, pick) for name, (lo, hi) in spans.items()}
            before = out[card]["yesterday"]
            out[card]["trending_percentage"] = round(100 * (out[card]["today"] - before) / before, 2) if before else 0.0
        # The rates carry no trending_percentage (the document lists it for the counts only).
        for card, num in (("cvr", "conversion"), ("evr", "events")):
            clicks = out["click"]
            out[card] = {k: round(100 * out[num][k] / clicks[k], 2) if clicks[k] else 0.0 for k in spans}
        return self._ok(out)

    def _sum(self, lo: date, hi: date, pick: str | bool | None) -> float:
        rows = [r for r in self.data.conversions if lo <= _date_of(r["conversion_unix_timestamp"]) <= hi]
        if pick is None:
            return float(len(rows) * 12)
        if isinstance(pick, bool):
            return float(sum(1 for r in rows if r["is_event"] is pick))
        return float(round(sum(r[pick] for r in rows), 2))

    # -- uploads ---------------------------------------------------------------------------
    def _upload(self, request: Request) -> Response:
        unzip = [v for k, v in request.query if k == "unzip"]
        if unzip and unzip[-1] not in ("true", "false", "1", "0"):
            raise SimError(400, "unzip must be a boolean")
        files = unpack_upload(self.json_body(request), bool(unzip) and unzip[-1] in ("true", "1"))
        host = request.header("host") or "localhost"
        urls = []
        for name, content in files:
            token = hashlib.sha256(f"{len(self.files)}|{name}|{self.clock.now()}".encode()).hexdigest()[:40]
            self.files[token] = content
            urls.append({"url": f"http://{host}{_FILES}/{token}", "name": name})
        return self._ok({"urls": urls})

    def _file(self, request: Request, token: str) -> Response:
        content = self.files.pop(token, None) if self.rules.single_use else self.files.get(token)
        if content is None:
            raise SimError(404, "no such file (temporary files can be used once)")
        return Response(200, {"content-type": "application/octet-stream"}, content)

    # -- smart links -----------------------------------------------------------------------
    def _create(self, body: dict[str, Any]) -> dict[str, Any]:
        fields = validate_smart_link(body)
        now = int(self.clock.now())
        link = {**copy.deepcopy(DEFAULTS), **fields, "network_campaign_id": self._next_id, "network_id": 1,
                "time_created": now, "time_saved": now, "encoded_value": f"sl{self._next_id:06d}"}
        self._number_redirects(link)
        self.campaigns[self._next_id] = link
        self._next_id += 1
        return link

    @staticmethod
    def _number_redirects(link: dict[str, Any]) -> None:
        for number, redirect in enumerate(link["redirects"], start=1):
            redirect.setdefault("network_campaign_redirect_id", link["network_campaign_id"] * 100 + number)

    def _relationships(self, request: Request, link: dict[str, Any]) -> dict[str, Any]:
        wanted = [v for k, v in request.query if k == "relationship"]
        for value in wanted:
            if value not in RELATIONSHIPS:
                raise SimError(400, f"relationship must be one of {', '.join(RELATIONSHIPS)}")
        out = copy.deepcopy(link)
        if wanted:
            expansions = {"reporting": {"clicks": 0, "conversions": 0}, "redirects": out["redirects"],
                          "offers": [{"network_offer_id": r.get("redirect_network_offer_id")}
                                     for r in out["redirects"]],
                          "catch_all_offer_basic": {"network_offer_id": out["catch_all_network_offer_id"]}}
            out["relationship"] = {name: expansions[name] for name in wanted}
        return out

    def _find(self, campaign_id: str) -> dict[str, Any]:
        if not campaign_id.isdigit() or int(campaign_id) not in self.campaigns:
            raise SimError(404, "no such smart link")
        return self.campaigns[int(campaign_id)]

    def _list(self, request: Request) -> Response:
        return self._ok({"campaigns": [self._relationships(request, c) for c in self.campaigns.values()]})

    def _create_route(self, request: Request) -> Response:
        return self._ok(self._create(self.json_body(request)))

    def _get(self, request: Request, campaign_id: str) -> Response:
        return self._ok(self._relationships(request, self._find(campaign_id)))

    def _put(self, request: Request, campaign_id: str) -> Response:
        old = self._find(campaign_id)
        body = self.json_body(request)
        missing = sorted(set(DEFAULTS) - set(body))
        if self.rules.put_requires_all and missing:
            raise SimError(400, f"all fields must be sent; missing {', '.join(missing)}")
        fields = validate_smart_link(body)
        # Replace: every field not sent goes back to its default.
        link = {**copy.deepcopy(DEFAULTS), **fields, **{k: old[k] for k in (
            "network_campaign_id", "network_id", "time_created", "encoded_value")}}
        link["time_saved"] = int(self.clock.now())
        self._number_redirects(link)
        self.campaigns[old["network_campaign_id"]] = link
        return self._ok(link)

