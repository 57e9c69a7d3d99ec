"""Campaigns, leads, block list, emails, tags, verification and mailbox OAuth of the outreach
simulator. The document shows none of their bodies: every shape here is a SIM-CHOICE."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from conformance.services.outreach.accounts import ORGANIZATION, iso, typed
from conformance.services.outreach.analytics import campaign_row, overview
from conformance.services.outreach.mailbox import reply_record, seed_emails
from conformance.simulators.base import Handler, SimError
from conformance.transport.model import Request, Response

if TYPE_CHECKING:
    from conformance.simulators.base import Clock

__all__ = ["CAMPAIGN_PAGE_SIZE", "HELD_IDS", "SEED_LEAD", "ResourcesMixin", "Route"]

SEED_LEAD = "0190c0de-0000-4000-8000-1ead00000001"  # SIM-CHOICE: the LEAD_ID setting
# SIM-CHOICE: seeded records the target settings of the same names point at (gap id-routes-without-ids).
HELD_IDS = {"DELETABLE_LEAD_ID": "0190c0de-0000-4000-8000-1ead00000002",
            "BLOCK_LIST_ENTRY_ID": "0190c0de-0000-4000-8000-b10c00000001",
            "TAG_ID": "0190c0de-0000-4000-8000-7a9000000001",
            "DELETABLE_TAG_ID": "0190c0de-0000-4000-8000-7a9000000002",
            "VERIFIED_EMAIL": "verified@outreach.example",
            "OAUTH_SESSION_ID": "session-seed"}
# SIM-CHOICE: page size of GET /campaigns, and campaign state values (0 draft, 1 active, 2 paused).
CAMPAIGN_PAGE_SIZE = 10
CAMPAIGN_COUNT = 23
DRAFT, ACTIVE, PAUSED = 0, 1, 2

Route = tuple[str, str, tuple[str, str], Handler]


class ResourcesMixin:
    """Needs ``ok``, ``body_or_empty``, ``json_body``, ``accounts`` and ``clock`` from the simulator."""

    accounts: dict[str, dict[str, Any]]
    clock: Clock
    ok: Callable[[Any], Response]
    body_or_empty: Callable[[Request], dict[str, Any]]
    json_body: Callable[[Request], dict[str, Any]]

    def seed_resources(self) -> None:
        self.campaigns: dict[str, dict[str, Any]] = {}
        for i in range(1, CAMPAIGN_COUNT + 1):
            cid = f"0190c0de-0000-7000-8000-{i:012d}"
            # SIM-CHOICE (client-shaped): the campaign body is not shown; the timestamps are what
            # the vendor's client requires of a campaign. No rule reads them.
            created = iso(self.clock.now() - 86_400 * (CAMPAIGN_COUNT - i + 1))
            self.campaigns[cid] = {"id": cid, "name": f"Campaign {i}", "status": DRAFT,
                                   "email_list": [next(iter(sorted(self.accounts)))],
                                   "campaign_schedule": {"schedules": []},
                                   "timestamp_created": created, "timestamp_updated": created}
        first, sender = min(self.campaigns), min(self.accounts)
        # SIM-CHOICE: one seeded lead (the LEAD_ID setting), so an update has something to change;
        # a lead of the first campaign, which the seeded emails were exchanged with.
        seed = self._lead({"email": "lead@outreach.example", "campaign": first, "payload": {}}, SEED_LEAD)
        self.leads: dict[str, dict[str, Any]] = {SEED_LEAD: seed}
        self.block_list: dict[str, dict[str, Any]] = {}
        self.tags: dict[str, dict[str, Any]] = {}
        self.verifications: dict[str, dict[str, Any]] = {}
        self.sessions: dict[str, dict[str, Any]] = {}
        self._seed_held()
        self.jobs: dict[str, dict[str, Any]] = {}
        self.threads = {"thread-0001": {"unread": True}, "thread-0002": {"unread": True}}
        # SIM-CHOICE (client-shaped): two threads of the first campaign with the seeded lead (mailbox.py).
        self.emails = seed_emails(self.clock.now(), first, sender, seed)
        self._serial = 0

    def _seed_held(self) -> None:
        """One record under each id of HELD_IDS; the second lead is in no campaign, so no analytics change."""
        held = HELD_IDS
        lead = held["DELETABLE_LEAD_ID"]
        self.leads[lead] = self._lead({"email": "lead2@outreach.example", "payload": {}}, lead)
        entry = self._stamped({"id": held["BLOCK_LIST_ENTRY_ID"], "bl_value": "blocked.example", "is_domain": True})
        del entry["timestamp_updated"]  # an entry is never updated
        self.block_list[entry["id"]] = entry
        for key, label in (("TAG_ID", "seeded"), ("DELETABLE_TAG_ID", "seeded-deletable")):
            self.tags[held[key]] = self._stamped({"id": held[key], "label": label})
        email = held["VERIFIED_EMAIL"]
        self.verifications[email] = {"email": email, "verification_status": "verified"}
        self.sessions[held["OAUTH_SESSION_ID"]] = {"session_id": held["OAUTH_SESSION_ID"], "status": "pending"}

    def next_id(self, prefix: str) -> str:
        self._serial += 1
        return f"{prefix}-{self._serial:06d}"

    def next_uuid(self) -> str:
        # SIM-CHOICE (client-shaped): ids of leads, emails, tags and block-list entries are not
        # shown; the vendor's client reads them as UUIDs. Counted, so two runs hand out the same ids.
        self._serial += 1
        return str(uuid.UUID(int=(0x0E7 << 96) + self._serial, version=4))

    def _stamped(self, record: dict[str, Any], organization: str = "organization_id") -> dict[str, Any]:
        """``record`` with the creation members the vendor's client requires (SIM-CHOICE, client-shaped)."""
        now = iso(self.clock.now())
        return {**record, "timestamp_created": now, "timestamp_updated": now, organization: ORGANIZATION}

    def _lead(self, body: dict[str, Any], lead_id: str) -> dict[str, Any]:
        email = body["email"] if isinstance(body.get("email"), str) else ""
        # SIM-CHOICE (client-shaped): counters, status and company domain the vendor's client requires.
        return self._stamped({**body, "id": lead_id, "status": 1, "email_open_count": 0, "email_reply_count": 0,
                              "email_click_count": 0, "company_domain": email.rpartition("@")[2],
                              "status_summary": {}}, "organization")

    def new_job(self, kind: str, emails: list[str]) -> dict[str, Any]:
        # SIM-CHOICE (client-shaped, gap warmup-job): the job's fields are not shown; these are the
        # members the vendor's client requires of a background job. No rule reads them.
        now = iso(self.clock.now())
        job: dict[str, Any] = {"id": self.next_id("job"), "type": kind, "status": "pending", "emails": emails,
                               "workspace_id": ORGANIZATION, "progress": 0, "created_at": now, "updated_at": now}
        self.jobs[job["id"]] = job
        return job

    def resource_routes(self) -> list[Route]:
        c, lead, e, t, v = "campaigns", "leads", "emails", "custom_tags", "email_verification"
        b = "block_lists_entries"
        return [
            ("GET", "/campaigns", (c, "read"), self.list_campaigns),
            ("GET", "/campaigns/analytics", (c, "read"), self.campaign_analytics),
            ("GET", "/campaigns/analytics/overview", (c, "read"), self.analytics_overview),
            ("GET", "/campaigns/analytics/daily", (c, "read"), self.ok_list),
            ("GET", "/campaigns/analytics/steps", (c, "read"), self.ok_list),
            ("GET", "/campaigns/{cid}", (c, "read"), self.read(self.campaigns, "campaign")),
            ("PATCH", "/campaigns/{cid}", (c, "update"), self.update_campaign),
            ("POST", "/campaigns/{cid}/activate", (c, "update"), self.campaign_state(ACTIVE)),
            ("POST", "/campaigns/{cid}/pause", (c, "update"), self.campaign_state(PAUSED)),
            ("POST", "/leads", (lead, "create"), self.add_lead),
            ("POST", "/leads/list", (lead, "read"), self.list_leads),
            ("PATCH", "/leads/{lid}", (lead, "update"), self.update_lead),
            ("DELETE", "/leads/{lid}", (lead, "delete"), self.delete(self.leads, "lead")),
            ("POST", "/block-lists-entries", (b, "create"), self.add_block_entry),
            ("DELETE", "/block-lists-entries/{bid}", (b, "delete"), self.delete(self.block_list, "block-list entry")),
            ("GET", "/emails", (e, "read"), self.items(self.emails)),
            ("GET", "/emails/unread/count", (e, "read"), self.unread_count),
            ("POST", "/emails/reply", (e, "create"), self.reply),
            # SIM-CHOICE: mark-as-read served with POST (the path column); PATCH answers 405.
            ("POST", "/emails/threads/{thread_id}/mark-as-read", (e, "update"), self.mark_read),
            ("POST", "/custom-tags/toggle-resource", (t, "update"), self.ok_object),
            ("POST", "/custom-tags", (t, "create"), self.create_tag),
            ("GET", "/custom-tags", (t, "read"), self.items(self.tags)),
            ("GET", "/custom-tags/{tid}", (t, "read"), self.read(self.tags, "tag")),
            ("PATCH", "/custom-tags/{tid}", (t, "update"), self.update_tag),
            ("DELETE", "/custom-tags/{tid}", (t, "delete"), self.delete(self.tags, "tag")),
            ("POST", "/email-verification", (v, "create"), self.verify),
            ("GET", "/email-verification/{address}", (v, "read"), self.read(self.verifications, "verification")),
            ("POST", "/oauth/google/init", ("oauth", "create"), self.oauth_init),
            ("POST", "/oauth/microsoft/init", ("oauth", "create"), self.oauth_init),
            ("GET", "/oauth/session/status/{sid}", ("oauth", "read"), self.read(self.sessions, "session")),
        ]

    # -- generic answers -------------------------------------------------------------------------
    def ok_object(self, request: Request, **_: str) -> Response:
        self.body_or_empty(request) if request.method == "POST" else None
        return self.ok({})

    def ok_list(self, request: Request) -> Response:
        return self.ok([])

    @staticmethod
    def _found(store: dict[str, dict[str, Any]], key: str, what: str) -> dict[str, Any]:
        if key not in store:
            raise SimError(404, f"no such {what}")
        return store[key]

    # One handler per kind of answer, for every store: the record the path's one id names, that
    # record removed (SIM-CHOICE, client-shaped: the removed record, as the vendor's client reads a
    # delete; no rule reads it), or every record as {"items": [...]}.
    def read(self, store: dict[str, dict[str, Any]], what: str) -> Handler:
        def run(request: Request, **ids: str) -> Response:
            (key,) = ids.values()
            return self.ok(self._found(store, key, what))
        return run

    def delete(self, store: dict[str, dict[str, Any]], what: str) -> Handler:
        def run(request: Request, **ids: str) -> Response:
            (key,) = ids.values()
            self._found(store, key, what)
            return self.ok(store.pop(key))
        return run

    def items(self, store: dict[str, dict[str, Any]]) -> Handler:
        return lambda request: self.ok({"items": list(store.values())})

    # -- campaigns -------------------------------------------------------------------------------
    @staticmethod
    def page(store: dict[str, dict[str, Any]], after: str | None, size: int, member: str) -> dict[str, Any]:
        """``size`` records of ``store`` in key order after the key ``after`` (SIM-CHOICE: the container,
        and the next page's starting_after as the last record's ``member``, null on the last page)."""
        keys = [k for k in sorted(store) if after is None or k > after]
        page = [store[k] for k in keys[:size]]
        return {"items": page, "next_starting_after": page[-1][member] if len(keys) > size else None}

    def list_campaigns(self, request: Request) -> Response:
        return self.ok(self.page(self.campaigns, request.params.get("starting_after"), CAMPAIGN_PAGE_SIZE, "id"))

    def update_campaign(self, request: Request, cid: str) -> Response:
        campaign = self._found(self.campaigns, cid, "campaign")
        body = self.json_body(request)
        typed(body, "name", "a non-empty string")
        if "email_list" in body:
            emails = body["email_list"]
            if not isinstance(emails, list) or not all(isinstance(x, str) for x in emails):
                raise SimError(400, "email_list must be an array of account emails")
            if any(x not in self.accounts for x in emails):
                raise SimError(400, "email_list names an unknown account")
        typed(body, "campaign_schedule", "an object")
        campaign.update({k: body[k] for k in ("name", "email_list", "campaign_schedule") if k in body})
        campaign["timestamp_updated"] = iso(self.clock.now())
        return self.ok(campaign)

    def campaign_state(self, state: int) -> Handler:
        """POST /campaigns/{id}/activate and /pause: the campaign, now in ``state``."""
        def run(request: Request, cid: str) -> Response:
            campaign = self._found(self.campaigns, cid, "campaign")
            campaign["status"], campaign["timestamp_updated"] = state, iso(self.clock.now())
            return self.ok(campaign)
        return run

    def _analytics_rows(self, request: Request) -> list[dict[str, Any]]:
        # SIM-CHOICE (client-shaped): rows counted from the simulator's leads and emails (analytics.py);
        # the overview takes the same query parameter id as the summary (its parameters are not shown).
        cid = request.params.get("id")
        ids = [cid] if cid else sorted(self.campaigns)
        leads, emails = list(self.leads.values()), list(self.emails.values())
        return [campaign_row(self.campaigns[i], leads, emails) for i in ids if i in self.campaigns]

    def campaign_analytics(self, request: Request) -> Response:
        return self.ok(self._analytics_rows(request))

    def analytics_overview(self, request: Request) -> Response:
        return self.ok(overview(self._analytics_rows(request)))

    # -- leads and block list ----------------------------------------------------------------
    def add_lead(self, request: Request) -> Response:
        body = self.body_or_empty(request)
        typed(body, "email", "a string")
        lead = self._lead(body, self.next_uuid())
        self.leads[lead["id"]] = lead
        return self.ok(lead)

    def list_leads(self, request: Request) -> Response:
        self.body_or_empty(request)
        return self.ok({"items": list(self.leads.values())})

    def update_lead(self, request: Request, lid: str) -> Response:
        lead = self._found(self.leads, lid, "lead")
        body = self.json_body(request)
        typed(body, "payload", "an object")
        lead.update({k: body[k] for k in ("interest_status", "payload") if k in body})
        lead["timestamp_updated"] = iso(self.clock.now())
        return self.ok(lead)

    def add_block_entry(self, request: Request) -> Response:
        body = self.body_or_empty(request)
        value = body.get("bl_value")
        entry: dict[str, Any] = self._stamped({"id": self.next_uuid(), "bl_value": value,
                                               "is_domain": isinstance(value, str) and "@" not in value})
        del entry["timestamp_updated"]  # an entry is never updated
        self.block_list[entry["id"]] = entry
        return self.ok(entry)

    # -- emails ------------------------------------------------------------------------------
    def unread_count(self, request: Request) -> Response:
        return self.ok({"count": sum(1 for t in self.threads.values() if t["unread"])})

    def reply(self, request: Request) -> Response:
        body = self.json_body(request)
        replied = body.get("reply_to_uuid")
        if not isinstance(replied, str):
            raise SimError(400, "reply_to_uuid is required")
        original = self._found(self.emails, replied, "email")
        # SIM-CHOICE (client-shaped): the reply body is not shown; the email sent, as the vendor's client
        # reads it, kept in the thread (GET /emails lists it after the seeded ones; analytics count it).
        # It is sent from the eaccount named if the workspace holds it, else from the thread's account.
        eaccount = body.get("eaccount")
        sender = eaccount if isinstance(eaccount, str) and eaccount in self.accounts else original["eaccount"]
        reply = reply_record(self.next_uuid(), self.clock.now(), original, sender, body)
        self.emails[reply["id"]] = reply
        return self.ok(reply)

    def mark_read(self, request: Request, thread_id: str) -> Response:
        self._found(self.threads, thread_id, "thread")["unread"] = False
        for email in self.emails.values():  # SIM-CHOICE (client-shaped): its emails read as well
            if email["thread_id"] == thread_id:
                email["is_unread"] = 0
        return self.ok({"thread_id": thread_id, "unread": False})

    # -- tags ----------------------------------------------------------------------------------
    def create_tag(self, request: Request) -> Response:
        body = self.body_or_empty(request)
        tag = self._stamped({"id": self.next_uuid(), "label": body.get("label", "tag")})
        self.tags[tag["id"]] = tag
        return self.ok(tag)

    def update_tag(self, request: Request, tid: str) -> Response:
        tag = self._found(self.tags, tid, "tag")
        body = self.body_or_empty(request)
        if isinstance(body.get("label"), str):
            tag["label"] = body["label"]
        tag["timestamp_updated"] = iso(self.clock.now())
        return self.ok(tag)

    # -- verification and OAuth --------------------------------------------------------------
    def verify(self, request: Request) -> Response:
        body = self.body_or_empty(request)
        email = body.get("email")
        if not isinstance(email, str) or "@" not in email:
            raise SimError(400, "email is required")
        self.verifications[str(email)] = {"email": email, "verification_status": "pending"}
        return self.ok(self.verifications[str(email)])

    def oauth_init(self, request: Request) -> Response:
        sid = self.next_id("session")
        self.sessions[sid] = {"session_id": sid, "status": "pending"}
        return self.ok({"session_id": sid, "auth_url": f"https://login.outreach.example/{sid}"})
