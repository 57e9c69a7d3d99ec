"""A social-media management simulator: an independent reading of volume 2, part A.

It never reads the contract. What it must get right is what the document says: bearer tokens
of both kinds (account-scoped and OAuth), the customer's data only (403 otherwise), the
envelope {data, paging?, error?} and the three X-Svc headers on every answer, 415 for a body or
a requested answer that is not JSON, 60 requests a minute and 250000 a month on its own clock,
and the analytics, messages and listening reads (``reports.py``). Choices where the document is
silent are marked SIM-CHOICE.
"""

from __future__ import annotations

import re
import uuid
from typing import Any, ClassVar

from conformance.services.social import data
from conformance.services.social.reports import Reports
from conformance.simulators.base import Clock, SimError, Simulator
from conformance.transport.model import JSON_TYPE, Request, Response

__all__ = ["SocialSimulator"]

TOKEN = "sim-social-account-token"
OIDC_TOKEN = "sim-social-oidc-token"
EXPIRED_TOKEN = "sim-social-expired-token"
UNPROVISIONED_TOKEN = "sim-social-unprovisioned-token"
OTHER_TOKEN = "sim-social-other-customer-token"
API_VERSION = "1.4"
SERVER_VERSION = "1.4.2107"
PER_MINUTE = 60
UPLOAD_BYTES = 50_000_000
_UPLOAD = re.compile(r"/v1/[^/]+/media/")
PER_MONTH = 250_000
OIDC_LIFETIME = 3600.0  # SIM-CHOICE: "short-lived" is not quantified


class SocialSimulator(Reports, Simulator):
    service = "social"
    per_minute, per_month = PER_MINUTE, PER_MONTH
    credentials: ClassVar[dict[str, str]] = {
        "ACCESS_TOKEN": TOKEN,
        "OIDC_ACCESS_TOKEN": OIDC_TOKEN,
        "EXPIRED_ACCESS_TOKEN": EXPIRED_TOKEN,
        "UNPROVISIONED_ACCESS_TOKEN": UNPROVISIONED_TOKEN,
        "CUSTOMER_ID": str(data.CUSTOMER),
        "OTHER_CUSTOMER_ID": str(data.OTHER_CUSTOMER),
        "PROFILE_ID": str(data.MAIN_PROFILES[0]["customer_profile_id"]),
        "FOREIGN_PROFILE_ID": str(data.FOREIGN_PROFILE["customer_profile_id"]),
        "GROUP_ID": str(data.MAIN_GROUP),
        "OTHER_GROUP_ID": str(data.OTHER_GROUP),
        "OTHER_GROUP_PROFILE_ID": str(data.OTHER_GROUP_PROFILE["customer_profile_id"]),
        "TOPIC_ID": data.TOPIC,
        "ARCHIVED_TAG_ID": "3",
        "MESSAGE_ID": data.first_post_guid(),
        "LANGUAGE_CODE": "en",
        "PUBLISHING_POST_ID": "pp-1",
        "SUBMISSION_ID": "sub-1",
        "PART_NUMBER": "1",
    }

    def __init__(self, clock: Clock | None = None) -> None:
        super().__init__(clock)
        start = self.clock.now()
        # token -> (customer id, expiry or None); the unprovisioned account has no API access.
        self.tokens: dict[str, tuple[int, float | None]] = {
            TOKEN: (data.CUSTOMER, None), OIDC_TOKEN: (data.CUSTOMER, start + OIDC_LIFETIME),
            EXPIRED_TOKEN: (data.CUSTOMER, start - 1), UNPROVISIONED_TOKEN: (3003, None),
            OTHER_TOKEN: (data.OTHER_CUSTOMER, None)}
        self.provisioned = {data.CUSTOMER, data.OTHER_CUSTOMER}
        self.window: dict[int, tuple[int, int]] = {}  # customer -> (minute, requests in it)
        self.month: dict[int, tuple[int, int]] = {}  # customer -> (month number, requests in it)
        self.served = 0
        self.publishing: dict[str, dict[str, Any]] = {"pp-1": {"id": "pp-1", "text": "scheduled"}}
        self.submissions: dict[str, list[int]] = {"sub-1": []}
        p = "/v1/{customer_id}"
        for method, template, handler in (
            ("GET", "/v1/metadata/client", self._client),
            ("GET", p + "/metadata/customer", self._listing(lambda: [dict(x) for x in data.PROFILES])),
            ("GET", p + "/metadata/customer/tags", self._listing(lambda: [dict(x) for x in data.TAGS])),
            ("GET", p + "/metadata/customer/groups", self._listing(lambda: [dict(x) for x in data.GROUPS])),
            ("GET", p + "/metadata/customer/users", self._listing(lambda: [dict(x) for x in data.USERS])),
            ("GET", p + "/metadata/customer/topics", self._listing(data.topics)),
            ("POST", p + "/analytics/profiles", self._scoped(self.profiles)),
            ("POST", p + "/analytics/posts", self._scoped(self.posts)),
            ("POST", p + "/messages", self._scoped(self.messages)),
            ("POST", p + "/listening/topics/{topic_id}/messages", self._scoped(self.topic_messages)),
            ("POST", p + "/listening/topics/{topic_id}/metrics", self._scoped(self.topic_metrics)),
            ("POST", p + "/publishing/posts", self._scoped(self._create_post)),
            ("GET", p + "/publishing/posts/{post_id}", self._scoped(self._get_post)),
            ("POST", p + "/media/", self._scoped(self._upload)),
            ("POST", p + "/media/submission", self._scoped(self._start)),
            ("POST", p + "/media/submission/{submission_id}/part/{part_number}", self._scoped(self._part)),
            ("GET", p + "/media/submission/{submission_id}", self._scoped(self._complete)),
        ):
            self.route(method, template, handler)

    # "upload media in one request (under 50 MB)". SIM-CHOICE: MB read as 10^6 bytes; every other
    # route keeps the shared cap.
    max_body_bytes: ClassVar[int] = UPLOAD_BYTES - 1

    def body_cap(self, request: Request) -> int:
        if request.method == "POST" and _UPLOAD.fullmatch(request.path):
            return self.max_body_bytes
        return super().body_cap(request)

    # -- every request -----------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        try:
            self._negotiate(request)
        except SimError as err:
            return self.finish(request, self.error_response(err))
        return super().handle(request)

    def _negotiate(self, request: Request) -> None:
        accept = (request.header("accept") or "").lower()
        if accept and not any(t in accept for t in ("json", "*/*", "application/*")):
            raise SimError(415, "the requested response is not JSON")
        if request.method == "POST" and request.body:
            ctype = (request.header("content-type") or "").split(";")[0].strip().lower()
            if ctype != JSON_TYPE:
                raise SimError(415, "the body is not JSON")

    def finish(self, request: Request, response: Response) -> Response:
        self.served += 1
        response.headers = {**response.headers, "x-svc-request-id": str(uuid.UUID(int=(0x5EED << 64) + self.served)),
                            "x-svc-api-version": API_VERSION, "x-svc-server-version": SERVER_VERSION}
        return response

    def error_response(self, err: SimError) -> Response:
        headers = {k: str(v) for k, v in err.extra.items()}
        return Response.json_response(err.status, {"data": [], "error": err.message}, headers)

    def ok(self, rows: list[Any], paging: dict[str, Any] | None = None) -> Response:
        body: dict[str, Any] = {"data": rows}
        if paging is not None:
            body["paging"] = paging
        return Response.json_response(200, body)

    # -- authentication, customer scope, rates -------------------------------------------
    def authenticate(self, request: Request) -> int:
        header = request.header("authorization") or ""
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or token not in self.tokens:
            raise SimError(401, "missing or invalid token")
        customer, expiry = self.tokens[token]
        if expiry is not None and self.clock.now() >= expiry:
            raise SimError(401, "token expired")
        if customer not in self.provisioned:
            raise SimError(403, "the account is not provisioned for API use")
        self._count(customer)
        return customer

    def _count(self, customer: int) -> None:
        now = self.clock.now()
        minute = int(now // 60)
        seen_minute, count = self.window.get(customer, (minute, 0))
        count = count + 1 if seen_minute == minute else 1
        self.window[customer] = (minute, count)
        month = int(now // (30 * 86400))  # SIM-CHOICE: 30-day months on the simulated clock
        seen_month, used = self.month.get(customer, (month, 0))
        used = used + 1 if seen_month == month else 1
        self.month[customer] = (month, used)
        if count > self.per_minute:
            raise SimError(429, "too many requests", **{"Retry-After": str(60 * (minute + 1) - int(now))})
        if used > self.per_month:
            raise SimError(429, "monthly quota exhausted")

    def customer(self, request: Request, customer_id: str) -> int:
        customer = self.authenticate(request)
        if customer_id != str(customer):
            raise SimError(403, "customer data not allowed")
        return customer

    def _listing(self, rows: Any) -> Any:
        def handler(request: Request, customer_id: str) -> Response:
            self.customer(request, customer_id)
            return self.ok(rows())

        return handler

    def _scoped(self, handler: Any) -> Any:
        def scoped(request: Request, customer_id: str, **path: str) -> Response:
            self.customer(request, customer_id)
            body = self.json_body(request) if request.method == "POST" else {}
            return handler(body, **path)

        return scoped

    def _client(self, request: Request) -> Response:
        return self.ok([{"customer_id": self.authenticate(request)}])

    # -- publishing and media: bodies not shown, SIM-CHOICE shapes ----------------------
    def _create_post(self, body: dict[str, Any]) -> Response:
        post_id = f"pp-{len(self.publishing) + 1}"
        self.publishing[post_id] = {"id": post_id, **{k: v for k, v in body.items() if isinstance(k, str)}}
        return self.ok([{"id": post_id}])

    def _get_post(self, body: dict[str, Any], post_id: str) -> Response:
        if post_id not in self.publishing:
            raise SimError(404, "no such publishing post")
        return self.ok([self.publishing[post_id]])

    def _upload(self, body: dict[str, Any]) -> Response:
        return self.ok([{"media_id": f"m-{self.served}"}])

    def _start(self, body: dict[str, Any]) -> Response:
        submission = f"sub-{len(self.submissions) + 1}"
        self.submissions[submission] = []
        return self.ok([{"submission_id": submission}])

    def _part(self, body: dict[str, Any], submission_id: str, part_number: str) -> Response:
        if submission_id not in self.submissions:
            raise SimError(404, "no such submission")
        if not part_number.isdigit() or not 1 <= int(part_number) <= 10_000:
            raise SimError(400, "part_number is a positive number")
        self.submissions[submission_id].append(int(part_number))
        return self.ok([{"submission_id": submission_id, "part_number": int(part_number)}])

    def _complete(self, body: dict[str, Any], submission_id: str) -> Response:
        if submission_id not in self.submissions:
            raise SimError(404, "no such submission")
        return self.ok([{"media_id": f"m-{submission_id}", "parts": len(self.submissions[submission_id])}])
