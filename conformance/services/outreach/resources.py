"""Campaigns, leads, block list, emails, tags, verification and mailbox OAuth of the outreach
simulator. The document shows none of their bodies: every shape here is a SIM-CHOICE."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from conformance.services.outreach.accounts import ORGANIZATION, iso
from conformance.simulators.base import SimError
from conformance.transport.model import Request, Response

if TYPE_CHECKING:
    from conformance.simulators.base import Clock

__all__ = ["CAMPAIGN_PAGE_SIZE", "SEED_LEAD", "ResourcesMixin", "Route"]

SEED_LEAD = "0190c0de-0000-4000-8000-1ead00000001"  # SIM-CHOICE: the LEAD_ID setting
# SIM-CHOICE: page size of GET /campaigns, and campaign state values (0 draft, 1 active, 2 paused).
CAMPAIGN_PAGE_SIZE = 10
CAMPAIGN_COUNT = 23
DRAFT, ACTIVE, PAUSED = 0, 1, 2

Route = tuple[str, str, tuple[str, str], Callable[..., Response]]


class ResourcesMixin:
    """Needs ``ok``, ``body_or_empty``, ``json_body``, ``accounts`` and ``clock`` from the simulator."""

    accounts: dict[str, dict[str, Any]]
    clock: Clock
    ok: Callable[..., Response]
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
        # SIM-CHOICE: one seeded lead (the LEAD_ID setting), so an update has something to change.
        self.leads: dict[str, dict[str, Any]] = {
            SEED_LEAD: self._lead({"email": "lead@outreach.example", "payload": {}}, SEED_LEAD)}
        self.block_list: dict[str, dict[str, Any]] = {}
        self.tags: dict[str, dict[str, Any]] = {}
        self.verifications: dict[str, dict[str, Any]] = {}
        self.sessions: dict[str, dict[str, Any]] = {}
        self.jobs: dict[str, dict[str, Any]] = {}
        self.threads = {"thread-0001": {"unread": True}, "thread-0002": {"unread": True}}
        self.emails = {"email-0001": {"id": "email-0001", "thread_id": "thread-0001", "is_unread": True},
                       "email-0002": {"id": "email-0002", "thread_id": "thread-0002", "is_unread": True}}
        self._serial = 0

    def next_id(self, prefix: str) -> str:
        self._serial += 1
        return f"{prefix}-{self._serial:06d}"

    def next_uuid(self) -> str:
        # SIM-CHOICE (client-shaped): ids of leads, tags and block-list entries are not shown; the
        # vendor's client reads them as UUIDs. Counted, so two runs hand out the same ids.
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
        return [
            ("GET", "/campaigns", (c, "read"), self.list_campaigns),
            ("GET", "/campaigns/analytics", (c, "read"), self.campaign_analytics),
            ("GET", "/campaigns/analytics/overview", (c, "read"), self.ok_object),
            ("GET", "/campaigns/analytics/daily", (c, "read"), self.ok_list),
            ("GET", "/campaigns/analytics/steps", (c, "read"), self.ok_list),
            ("GET", "/campaigns/{cid}", (c, "read"), self.get_campaign),
            ("PATCH", "/campaigns/{cid}", (c, "update"), self.update_campaign),
            ("POST", "/campaigns/{cid}/activate", (c, "update"), self.activate),
            ("POST", "/campaigns/{cid}/pause", (c, "update"), self.pause),
            ("POST", "/leads", (lead, "create"), self.add_lead),
            ("POST", "/leads/list", (lead, "read"), self.list_leads),
            ("PATCH", "/leads/{lid}", (lead, "update"), self.update_lead),
            ("DELETE", "/leads/{lid}", (lead, "delete"), self.delete_lead),
            ("POST", "/block-lists-entries", ("block_lists_entries", "create"), self.add_block_entry),
            ("DELETE", "/block-lists-entries/{bid}", ("block_lists_entries", "delete"), self.delete_block_entry),
            ("GET", "/emails", (e, "read"), self.list_emails),
            ("GET", "/emails/unread/count", (e, "read"), self.unread_count),
            ("POST", "/emails/reply", (e, "create"), self.reply),
            # SIM-CHOICE: mark-as-read served with POST (the path column); PATCH answers 405.
            ("POST", "/emails/threads/{thread_id}/mark-as-read", (e, "update"), self.mark_read),
            ("POST", "/custom-tags/toggle-resource", (t, "update"), self.ok_object),
            ("POST", "/custom-tags", (t, "create"), self.create_tag),
            ("GET", "/custom-tags", (t, "read"), self.list_tags),
            ("GET", "/custom-tags/{tid}", (t, "read"), self.get_tag),
            ("PATCH", "/custom-tags/{tid}", (t, "update"), self.update_tag),
            ("DELETE", "/custom-tags/{tid}", (t, "delete"), self.delete_tag),
            ("POST", "/email-verification", (v, "create"), self.verify),
            ("GET", "/email-verification/{address}", (v, "read"), self.verification),
            ("POST", "/oauth/google/init", ("oauth", "create"), self.oauth_init),
            ("POST", "/oauth/microsoft/init", ("oauth", "create"), self.oauth_init),
            ("GET", "/oauth/session/status/{sid}", ("oauth", "read"), self.oauth_status),
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

    # -- campaigns -------------------------------------------------------------------------------
    def list_campaigns(self, request: Request) -> Response:
        after = request.params.get("starting_after")
        ids = sorted(self.campaigns)
        if after is not None:
            ids = [i for i in ids if i > after]
        page = [self.campaigns[i] for i in ids[:CAMPAIGN_PAGE_SIZE]]
        more = len(ids) > CAMPAIGN_PAGE_SIZE
        return self.ok({"items": page, "next_starting_after": page[-1]["id"] if more else None})

    def get_campaign(self, request: Request, cid: str) -> Response:
        return self.ok(self._found(self.campaigns, cid, "campaign"))

    def update_campaign(self, request: Request, cid: str) -> Response:
        campaign = self._found(self.campaigns, cid, "campaign")
        body = self.json_body(request)
        if "name" in body and (not isinstance(body["name"], str) or not body["name"]):
            raise SimError(400, "name must be a non-empty string")
        if "email_list" in body:
            emails = body["email_list"]
            if not isinstance(emails, list) or not all(isinstance(x, str) for x in emails):
                raise SimError(400, "email_list must be an array of account emails")
            if any(x not in self.accounts for x in emails):
                raise SimError(400, "email_list names an unknown account")
        if "campaign_schedule" in body and not isinstance(body["campaign_schedule"], dict):
            raise SimError(400, "campaign_schedule must be an object")
        campaign.update({k: body[k] for k in ("name", "email_list", "campaign_schedule") if k in body})
        campaign["timestamp_updated"] = iso(self.clock.now())
        return self.ok(campaign)

    def activate(self, request: Request, cid: str) -> Response:
        campaign = self._found(self.campaigns, cid, "campaign")
        campaign["status"], campaign["timestamp_updated"] = ACTIVE, iso(self.clock.now())
        return self.ok(campaign)

    def pause(self, request: Request, cid: str) -> Response:
        campaign = self._found(self.campaigns, cid, "campaign")
        campaign["status"], campaign["timestamp_updated"] = PAUSED, iso(self.clock.now())
        return self.ok(campaign)

    def campaign_analytics(self, request: Request) -> Response:
        cid = request.params.get("id")
        ids = [cid] if cid else sorted(self.campaigns)
        return self.ok([{"campaign_id": i, "emails_sent_count": 0} for i in ids if i in self.campaigns])

    # -- leads and block list ----------------------------------------------------------------
    def add_lead(self, request: Request) -> Response:
        body = self.body_or_empty(request)
        if "email" in body and not isinstance(body["email"], str):
            raise SimError(400, "email must be a string")
        lead = self._lead(body, self.next_uuid())
        self.leads[lead["id"]] = lead
        return self.ok(lead)

    def list_leads(self, request: Request) -> Response:
        self.body_or_empty(request)
        return self.ok({"items": list(self.leads.values())})

    def update_lead(self, request: Request, lid: str) -> Response:
        lead = self._found(self.leads, lid, "lead")
        body = self.json_body(request)
        if "payload" in body and not isinstance(body["payload"], dict):
            raise SimError(400, "payload must be an object")
        lead.update({k: body[k] for k in ("interest_status", "payload") if k in body})
        lead["timestamp_updated"] = iso(self.clock.now())
        return self.ok(lead)

    def delete_lead(self, request: Request, lid: str) -> Response:
        return self.ok(self.leads.pop(self._found(self.leads, lid, "lead")["id"]))

    def add_block_entry(self, request: Request) -> Response:
        body = self.body_or_empty(request)
        value = body.get("bl_value")
        entry: dict[str, Any] = self._stamped({"id": self.next_uuid(), "bl_value": value,
                                               "is_domain": isinstance(value, str) and "@" not in value})
        del entry["timestamp_updated"]  # an entry is never updated
        self.block_list[entry["id"]] = entry
        return self.ok(entry)

    def delete_block_entry(self, request: Request, bid: str) -> Response:
        return self.ok(self.block_list.pop(self._found(self.block_list, bid, "block-list entry")["id"]))

    # -- emails ------------------------------------------------------------------------------
    def list_emails(self, request: Request) -> Response:
        return self.ok({"items": list(self.emails.values())})

    def unread_count(self, request: Request) -> Response:
        return self.ok({"count": sum(1 for t in self.threads.values() if t["unread"])})

    def reply(self, request: Request) -> Response:
        body = self.json_body(request)
        uuid = body.get("reply_to_uuid")
        if not isinstance(uuid, str):
            raise SimError(400, "reply_to_uuid is required")
        original = self._found(self.emails, uuid, "email")
        return self.ok({"id": self.next_id("email"), "thread_id": original["thread_id"]})

    def mark_read(self, request: Request, thread_id: str) -> Response:
        self._found(self.threads, thread_id, "thread")["unread"] = False
        return self.ok({"thread_id": thread_id, "unread": False})

    # -- tags ----------------------------------------------------------------------------------
    def create_tag(self, request: Request) -> Response:
        body = self.body_or_empty(request)
        tag = self._stamped({"id": self.next_uuid(), "label": body.get("label", "tag")})
        self.tags[tag["id"]] = tag
        return self.ok(tag)

    def list_tags(self, request: Request) -> Response:
        return self.ok({"items": list(self.tags.values())})

    def get_tag(self, request: Request, tid: str) -> Response:
        return self.ok(self._found(self.tags, tid, "tag"))

    def update_tag(self, request: Request, tid: str) -> Response:
        tag = self._found(self.tags, tid, "tag")
        body = self.body_or_empty(request)
        if isinstance(body.get("label"), str):
            tag["label"] = body["label"]
        tag["timestamp_updated"] = iso(self.clock.now())
        return self.ok(tag)

    def delete_tag(self, request: Request, tid: str) -> Response:
        return self.ok(self.tags.pop(self._found(self.tags, tid, "tag")["id"]))

    # -- verification and OAuth --------------------------------------------------------------
    def verify(self, request: Request) -> Response:
        body = self.body_or_empty(request)
        email = body.get("email")
        if not isinstance(email, str) or "@" not in email:
            raise SimError(400, "email is required")
        self.verifications[str(email)] = {"email": email, "verification_status": "pending"}
        return self.ok(self.verifications[str(email)])

    def verification(self, request: Request, address: str) -> Response:
        return self.ok(self._found(self.verifications, address, "verification"))

    def oauth_init(self, request: Request) -> Response:
        sid = self.next_id("session")
        self.sessions[sid] = {"session_id": sid, "status": "pending"}
        return self.ok({"session_id": sid, "auth_url": f"https://login.outreach.example/{sid}"})

    def oauth_status(self, request: Request, sid: str) -> Response:
        return self.ok(self._found(self.sessions, sid, "session"))
