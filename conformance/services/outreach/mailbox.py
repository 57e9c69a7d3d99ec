"""Email records of the outreach simulator: the seeded threads and the reply POST /emails/reply adds.

The document shows no email body (only that a reply carries ``reply_to_uuid``): every member here
is a SIM-CHOICE (client-shaped), the members the vendor's published client requires of an Email
(UUID id, timestamps, message id, subject, recipients, body, workspace id, sending account). No
rule reads them.
"""

from __future__ import annotations

from typing import Any

from conformance.services.outreach.accounts import ORGANIZATION, iso

__all__ = ["RECEIVED", "SEED_EMAILS", "SENT_BY_CAMPAIGN", "SENT_BY_HAND", "is_sent", "reply_record", "seed_emails"]

# SIM-CHOICE (client-shaped): the life-cycle types the vendor's client reads in ue_type.
SENT_BY_CAMPAIGN, RECEIVED, SENT_BY_HAND = 1, 2, 3
# SIM-CHOICE: ids of the two seeded emails (the first is the REPLY_TO_UUID setting), UUIDs as
# the vendor's client reads them; each is a lead's unread answer in its own thread.
SEED_EMAILS = ("0190c0de-0000-4000-8000-e3a100000001", "0190c0de-0000-4000-8000-e3a100000002")


def _email(eid: str, when: float, **members: Any) -> dict[str, Any]:
    stamp = iso(when)
    return {"id": eid, "timestamp_created": stamp, "timestamp_email": stamp, "message_id": f"<{eid}@outreach.example>",
            "organization_id": ORGANIZATION, **members}


def seed_emails(now: float, campaign: str, sender: str, lead: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Two threads of ``campaign``: the campaign's first step to ``lead`` from ``sender`` (read), and the
    lead's answer (unread). The answers come first, so GET /emails lists a repliable email first."""
    emails: dict[str, dict[str, Any]] = {}
    common = {"campaign_id": campaign, "lead": lead["email"], "lead_id": lead["id"]}
    steps: list[dict[str, Any]] = []
    for n, eid in enumerate(SEED_EMAILS, start=1):
        thread = f"thread-{n:04d}"
        emails[eid] = _email(eid, now - 3_600 * n, subject=f"Re: Hello {n}", from_address_email=lead["email"],
                             to_address_email_list=sender, eaccount=sender, body={"text": "Tell me more."},
                             thread_id=thread, ue_type=RECEIVED, is_unread=1, **common)
        step = f"0190c0de-0000-4000-8000-e3a1000001{n:02d}"
        steps.append(_email(step, now - 86_400 * n, subject=f"Hello {n}", from_address_email=sender,
                            to_address_email_list=lead["email"], eaccount=sender, body={"text": "Hello!"},
                            thread_id=thread, ue_type=SENT_BY_CAMPAIGN, is_unread=0, **common))
    return {**emails, **{e["id"]: e for e in steps}}


def is_sent(email: dict[str, Any]) -> bool:
    return email.get("ue_type") in (SENT_BY_CAMPAIGN, SENT_BY_HAND)


def _text_body(value: Any) -> dict[str, str]:
    """The reply's body as the client sends it (text and html strings); anything else is not echoed."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if k in ("text", "html") and isinstance(v, str)}


def reply_record(eid: str, now: float, original: dict[str, Any], eaccount: str, body: dict[str, Any]) -> dict[str, Any]:
    """The email a reply to ``original`` sends by hand from ``eaccount``, into the original's thread."""
    subject = body.get("subject")
    # The answer goes to whoever wrote the original (the lead, for a received email).
    to = original["from_address_email"] if original["from_address_email"] != eaccount else original[
        "to_address_email_list"]
    return _email(eid, now, subject=subject if isinstance(subject, str) else f"Re: {original['subject']}",
                  from_address_email=eaccount, to_address_email_list=to, eaccount=eaccount,
                  body=_text_body(body.get("body")), thread_id=original["thread_id"], ue_type=SENT_BY_HAND,
                  is_unread=0, campaign_id=original["campaign_id"], lead=original["lead"],
                  lead_id=original["lead_id"])
