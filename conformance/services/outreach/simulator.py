"""Simulator of the email-outreach service, API v2 (volume 3, part A).

Written from the document, not from schemas/outreach. Choices the document leaves open are
marked SIM-CHOICE (page sizes, rate ceilings, scope actions, ids, bodies it does not show); the
harness never checks them. Campaigns, leads, emails, tags, verification and OAuth routes live in
``resources.py`` (a mixin), the Account rules in ``accounts.py``.
"""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import unquote

from conformance.services.outreach.accounts import ORGANIZATION, check_create, check_update, iso, new_account
from conformance.services.outreach.mailbox import SEED_EMAILS
from conformance.services.outreach.resources import HELD_IDS, SEED_LEAD, ResourcesMixin, Route
from conformance.simulators.base import Clock, Handler, SimError, Simulator
from conformance.transport.model import Request, Response

__all__ = ["OutreachSimulator", "SIM_KEYS"]

BASE = "/api/v2"
# Seeded keys and their scopes (resource:action).
SIM_KEYS: dict[str, tuple[str, ...]] = {
    "sim-outreach-all-all": ("all:all",),
    "sim-outreach-accounts-create": ("accounts:create",),
    "sim-outreach-accounts-all": ("accounts:all",),
    "sim-outreach-all-create": ("all:create",),
    # SIM-CHOICE: a key for another resource only (the complete scope list is not shown).
    "sim-outreach-campaigns-all": ("campaigns:all",),
}
# SIM-CHOICE: rate ceiling of account creation, per key, on the simulated clock.
CREATE_LIMIT = 30
CREATE_WINDOW_SECONDS = 60.0
ACCOUNTS_PAGE_MAX = 100
SEED_EMAIL = "sender@outreach.example"


class OutreachSimulator(ResourcesMixin, Simulator):
    service = "outreach"
    organization: ClassVar[str] = ORGANIZATION
    credentials: ClassVar[dict[str, str]] = {
        "API_KEY": "sim-outreach-all-all",
        "ACCOUNTS_CREATE_API_KEY": "sim-outreach-accounts-create",
        "ACCOUNTS_ALL_API_KEY": "sim-outreach-accounts-all",
        "ALL_CREATE_API_KEY": "sim-outreach-all-create",
        "NO_CREATE_API_KEY": "sim-outreach-campaigns-all",
        "ACCOUNT_EMAIL": SEED_EMAIL,
        "DELETABLE_ACCOUNT_EMAIL": "sender2@outreach.example",
        "CAMPAIGN_ID": "0190c0de-0000-7000-8000-000000000001",
        "OTHER_CAMPAIGN_ID": "0190c0de-0000-7000-8000-000000000002",
        "CAMPAIGN_PAGE_SIZE": "10",
        "CAMPAIGN_STATUS_FIELD": "status",
        "CAMPAIGN_CURSOR_FIELD": "next_starting_after",
        "THREAD_ID": "thread-0001",
        "LEAD_ID": SEED_LEAD,
        **HELD_IDS,  # ids of the seeded lead, block-list entry, tags, verification and session to use
        "REPLY_TO_UUID": SEED_EMAILS[0],
        "WARMUP_EMAILS_FIELD": "emails",
        "READS_ANSWER_RESOURCE": "1",  # a get answers the account or campaign itself
    }

    def __init__(self, clock: Clock | None = None) -> None:
        super().__init__(clock)
        self.refuse_read_only = True  # SIM-CHOICE; a variant ignores them instead
        # SIM-CHOICE (gap duplicate-email): a create with an existing email replaces the account;
        # the variant duplicate-create-refused refuses it with 400 instead.
        self.refuse_duplicates = False
        self.accounts: dict[str, dict[str, Any]] = {}
        self._window: dict[str, tuple[float, int]] = {}
        now = self.clock.now()
        for i, (first, last) in enumerate((("Sam", "Sender"), ("Ann", "Other"), ("Bo", "Third"))):
            email = SEED_EMAIL if i == 0 else f"sender{i}@outreach.example"
            self.accounts[email] = new_account({"email": email, "first_name": first, "last_name": last,
                                                "provider_code": 2}, now)
        self.seed_resources()
        routes: list[Route] = [
            ("POST", "/accounts", ("accounts", "create"), self.create_account),
            ("GET", "/accounts", ("accounts", "read"), self.list_accounts),
            ("GET", "/accounts/ctd-status", ("accounts", "read"), self.ok_object),
            ("GET", "/accounts/analytics/daily", ("accounts", "read"), self.ok_list),
            ("POST", "/accounts/warmup/enable", ("accounts", "update"), self.warmup(1, "warmup-enable")),
            # SIM-CHOICE (client-shaped): the disable body is not shown; a job, as for enable, which the
            # vendor's client reads. No rule reads it.
            ("POST", "/accounts/warmup/disable", ("accounts", "update"), self.warmup(0, "warmup-disable")),
            ("POST", "/accounts/warmup-analytics", ("accounts", "read"), self.ok_object),
            ("POST", "/accounts/test/vitals", ("accounts", "read"), self.ok_object),
            ("GET", "/accounts/{email}", ("accounts", "read"), self.read(self.accounts, "account")),
            ("PATCH", "/accounts/{email}", ("accounts", "update"), self.update_account),
            ("DELETE", "/accounts/{email}", ("accounts", "delete"), self.delete(self.accounts, "account")),
            *self.resource_routes(),
        ]
        for method, path, scope, handler in routes:
            limited = (method, path) == ("POST", "/accounts")  # 429 is documented for creation
            self.route(method, BASE + path, self._guarded(scope, handler, limited))

    # -- cross-cutting: key, scope, rate limit ---------------------------------------------
    def _key(self, request: Request) -> str:
        value = request.header("authorization") or ""
        scheme, _, key = value.partition(" ")
        if scheme.lower() != "bearer" or key.strip() not in SIM_KEYS:
            raise SimError(401, "missing or invalid API key")
        return key.strip()

    def handle(self, request: Request) -> Response:
        # The key is checked before routing: an unauthenticated caller learns nothing.
        try:
            self._key(request)
        except SimError as err:
            return self.finish(request, self.error_response(err))
        return super().handle(request)

    def _guarded(self, scope: tuple[str, str], handler: Handler, limited: bool) -> Handler:
        def run(request: Request, **values: str) -> Response:
            key = self._key(request)
            if not any(self._grants(s, scope) for s in SIM_KEYS[key]):
                raise SimError(403, f"scope {scope[0]}:{scope[1]} required")  # SIM-CHOICE: not shown
            if limited:
                self._take(key)
            return handler(request, **{k: unquote(v) for k, v in values.items()})

        return run

    @staticmethod
    def _grants(granted: str, needed: tuple[str, str]) -> bool:
        resource, _, action = granted.partition(":")
        return resource in ("all", needed[0]) and action in ("all", needed[1])

    def _take(self, key: str) -> None:
        now = self.clock.now()
        start, used = self._window.get(key, (now, 0))
        if now - start >= CREATE_WINDOW_SECONDS:
            start, used = now, 0
        if used >= CREATE_LIMIT:
            raise SimError(429, "too many requests; retry later")
        self._window[key] = (start, used + 1)

    @staticmethod
    def body_or_empty(request: Request) -> dict[str, Any]:
        """Bodies the document does not show may be absent."""
        if not request.body:
            return {}
        return Simulator.json_body(request)

    @staticmethod
    def ok(body: Any) -> Response:
        return Response.json_response(200, body)

    # -- accounts ------------------------------------------------------------------------------
    def create_account(self, request: Request) -> Response:
        body = check_create(self.json_body(request), self.refuse_read_only)
        if body["email"] in self.accounts and self.refuse_duplicates:
            raise SimError(400, "an account with this email already exists")
        account = new_account(body, self.clock.now())
        self.accounts[body["email"]] = account
        return self.ok(account)

    def update_account(self, request: Request, email: str) -> Response:
        account = self._found(self.accounts, email, "account")
        changes = check_update(self.json_body(request), self.refuse_read_only)
        if "warmup" in changes:
            changes["warmup"] = {**account["warmup"], **changes["warmup"]}
        account.update(changes)
        account["timestamp_updated"] = iso(self.clock.now())
        return self.ok(account)

    def list_accounts(self, request: Request) -> Response:
        try:
            limit = int(request.params.get("limit", ACCOUNTS_PAGE_MAX))
        except ValueError:
            limit = 0  # not an integer: refused with the ones out of range
        if not 1 <= limit <= ACCOUNTS_PAGE_MAX:
            raise SimError(400, f"limit must be an integer from 1 to {ACCOUNTS_PAGE_MAX}")
        return self.ok(self.page(self.accounts, request.params.get("starting_after"), limit, "email"))

    def warmup(self, status: int, kind: str) -> Handler:
        """Warm-up enable (status 1) and disable (0) of the accounts the body lists; a job of ``kind``."""
        def run(request: Request) -> Response:
            emails = self._emails(self.body_or_empty(request))
            for email in emails:
                self.accounts[email]["warmup_status"] = status
            return self.ok(self.new_job(kind, emails))
        return run

    def _emails(self, body: dict[str, Any]) -> list[str]:
        emails = body.get("emails", [])
        if not isinstance(emails, list) or not all(isinstance(e, str) for e in emails):
            raise SimError(400, "emails must be an array of account emails")
        unknown = [e for e in emails if e not in self.accounts]
        if unknown:
            raise SimError(404, f"no such account: {unknown[0]}")
        return emails
