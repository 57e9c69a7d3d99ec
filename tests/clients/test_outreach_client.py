"""A popular email-outreach client library (instantlyai 0.7.0) against the served outreach simulator.

This is the simulator used as people use it: a local sandbox for client code. The library's
``base_url`` is pointed at the served simulator (its paths already carry the document's /api/v2)
and it authenticates with ``Authorization: Bearer <API_KEY>`` as the document says. Its request
side matches the document for every documented operation it has but two (ctd-status's path and
the lead update's field names). Its response side is where it parts from the document:

* it validates every answer into a generated pydantic model whose required fields (UUID ids,
  timestamps, organization ids, counters, ...) the document never shows. It shows the Account
  only; bodies of campaign, lead, block-list, email, tag, warm-up and analytics operations are
  "not shown", so the simulator's are its own choices. Each is shaped as the library reads it
  (simulator choices, marked SIM-CHOICE in its code, never read by a rule), with values from
  the simulator's own state (analytics count its leads and emails; a reply is kept in its thread);
* ``Warmup`` models are sent with their unset members as null, where the document types
  ``warmup.advanced`` as an object (a plain dict, which the library forwards as is, works).

``emails.reply`` also requires ``eaccount``, ``subject`` and ``body`` arguments the document
does not show (it shows ``reply_to_uuid`` only); the simulator needs none of them and uses them
when given (the reply's sender if the workspace holds that account, its subject and body). The
library sends mark-as-read as POST, the one of the document's two methods (POST in the path
column, PATCH in the method column) that the simulator serves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

instantlyai = pytest.importorskip("instantlyai")

from instantlyai import models  # noqa: E402

from conformance.services.outreach.simulator import OutreachSimulator  # noqa: E402

SERVICE = "outreach"
CREDS = OutreachSimulator.credentials
EMAIL = CREDS["ACCOUNT_EMAIL"]
CAMPAIGN_ID = CREDS["CAMPAIGN_ID"]
_TIMEOUT = httpx.Timeout(10.0)

@pytest.fixture
def sandbox(served: Callable[..., Any], tally: Callable[[str], Any]) -> Iterator[tuple[str, OutreachSimulator]]:
    with served(SERVICE, decorate=tally(SERVICE)) as (base_url, sim):
        yield base_url, sim


@pytest.fixture
def client(sandbox: tuple[str, OutreachSimulator]) -> Iterator[Any]:
    with _client(sandbox[0]) as api:
        yield api


@pytest.fixture
def sim(sandbox: tuple[str, OutreachSimulator]) -> OutreachSimulator:
    return sandbox[1]


pytestmark = pytest.mark.slow


def _client(base_url: str, key: str = "API_KEY") -> Any:
    # No retries: every answer is the simulator's first one, and nothing sleeps.
    return instantlyai.Instantly(CREDS[key], base_url=base_url, timeout=_TIMEOUT, max_retries=0)


def _new_account(api: Any, email: str = "ada@outreach.example") -> Any:
    return api.accounts.create(
        email=email, first_name="Ada", last_name="Lovelace", provider_code=1,
        imap_username=email, imap_password="imap-secret", imap_host="imap.outreach.example", imap_port=993,
        smtp_username=email, smtp_password="smtp-secret", smtp_host="smtp.outreach.example", smtp_port=587,
        sending_gap=15, signature="Ada")


# -- accounts ---------------------------------------------------------------------------------------
def test_list_accounts_walks_the_cursor(client: Any, sim: OutreachSimulator) -> None:
    page = client.accounts.list(limit=2)
    assert [a.email for a in page.items] == sorted(sim.accounts)[:2]
    assert page.has_next_page and page.next_starting_after == page.items[-1].email
    everyone = list(client.accounts.list(limit=2))  # the library follows next_starting_after
    assert [a.email for a in everyone] == sorted(sim.accounts)
    assert {a.email: a.first_name for a in everyone} == {e: a["first_name"] for e, a in sim.accounts.items()}
    with pytest.raises(instantlyai.ValidationError):
        client.accounts.list(limit=0)


def test_get_account(client: Any, sim: OutreachSimulator) -> None:
    account = client.accounts.retrieve(EMAIL)
    held = sim.accounts[EMAIL]
    assert (account.email, account.first_name, account.last_name) == (EMAIL, "Sam", "Sender")
    assert account.provider_code.value == held["provider_code"] == 2
    assert str(account.organization) == held["organization"] == sim.organization
    assert account.warmup_status.value == held["warmup_status"]
    assert account.sending_gap == held["sending_gap"]
    assert account.warmup is not None and account.warmup.limit == held["warmup"]["limit"]
    with pytest.raises(instantlyai.NotFoundError):
        client.accounts.retrieve("nobody@outreach.example")


def test_create_account(client: Any, sim: OutreachSimulator) -> None:
    created = _new_account(client)
    assert (created.email, created.first_name, created.provider_code.value) == ("ada@outreach.example", "Ada", 1)
    assert created.sending_gap == 15 and created.signature == "Ada"
    assert sim.accounts["ada@outreach.example"]["last_name"] == "Lovelace"
    assert client.accounts.retrieve("ada@outreach.example") == created
    # What a second create with the same email gets is not shown (gap duplicate-email): the
    # simulator replaces the account (refusing it is the allowed variant duplicate-create-refused).
    assert _new_account(client).email == "ada@outreach.example"


def test_create_account_scope_and_key(sandbox: tuple[str, OutreachSimulator]) -> None:
    base_url, sim = sandbox
    with _client(base_url, "ACCOUNTS_CREATE_API_KEY") as api:
        assert _new_account(api, "scoped@outreach.example").email in sim.accounts
    with _client(base_url, "NO_CREATE_API_KEY") as api, pytest.raises(instantlyai.PermissionDeniedError):
        _new_account(api, "refused@outreach.example")
    with instantlyai.Instantly("not-a-key", base_url=base_url, timeout=_TIMEOUT, max_retries=0) as api:
        with pytest.raises(instantlyai.AuthenticationError) as refused:
            api.accounts.retrieve(EMAIL)
    assert refused.value.status_code == 401
    assert "refused@outreach.example" not in sim.accounts


def test_create_account_rate_limit(client: Any, sim: OutreachSimulator) -> None:
    made = 0
    with pytest.raises(instantlyai.RateLimitError) as limited:
        for i in range(100):
            _new_account(client, f"bulk{i:03d}@outreach.example")
            made += 1
    assert limited.value.status_code == 429
    assert 0 < made == len([e for e in sim.accounts if e.startswith("bulk")])


def test_update_account(client: Any, sim: OutreachSimulator) -> None:
    updated = client.accounts.update(EMAIL, sending_gap=20, daily_limit=50, signature="Best, Sam",
                                     warmup={"limit": 25})
    assert (updated.sending_gap, updated.daily_limit, updated.signature) == (20, 50, "Best, Sam")
    held = sim.accounts[EMAIL]
    assert (held["sending_gap"], held["daily_limit"], held["signature"]) == (20, 50, "Best, Sam")
    assert held["warmup"]["limit"] == 25 and held["warmup"]["reply_rate"] == 30  # merged, not replaced
    with pytest.raises(instantlyai.ValidationError):
        client.accounts.update(EMAIL, sending_gap=2000)  # the document's range is 0 to 1440
    assert client.accounts.retrieve(EMAIL).sending_gap == 20


@pytest.mark.xfail(strict=True, raises=instantlyai.ValidationError,
                   reason="the client's doing: it sends a Warmup model with its unset members as null "
                          "(advanced: null, increment: null, ...); the document types warmup.advanced as "
                          "an object and increment as a string")
def test_update_account_with_warmup_model(client: Any) -> None:
    client.accounts.update(EMAIL, warmup=models.Warmup(limit=25))


def test_warmup_enable_and_disable(client: Any, sim: OutreachSimulator, monkeypatch: pytest.MonkeyPatch) -> None:
    job = client.accounts.enable_warmup(emails=[EMAIL])
    assert job.id in sim.jobs and sim.jobs[job.id]["emails"] == [EMAIL]
    assert client.accounts.retrieve(EMAIL).warmup_status.value == 1 == sim.accounts[EMAIL]["warmup_status"]
    client.accounts.disable_warmup(emails=[EMAIL])
    assert client.accounts.retrieve(EMAIL).warmup_status.value == 0
    with pytest.raises(instantlyai.NotFoundError):
        client.accounts.enable_warmup(emails=["nobody@outreach.example"])


def test_warmup_jobs_in_the_library_model(client: Any) -> None:
    """The job's fields are not shown: the simulator's job carries what the library's model requires."""
    enabled = client.accounts.enable_warmup(emails=[EMAIL])
    disabled = client.accounts.disable_warmup(emails=[EMAIL])
    assert enabled.id != disabled.id and 0 <= enabled.progress <= 100 and enabled.workspace_id


def test_account_analytics_and_vitals(client: Any) -> None:
    # Bodies not shown: these prove the library's method and path reach the documented route.
    assert client.accounts.warmup_analytics(emails=[EMAIL]) == {}
    assert client.accounts.daily_analytics(emails=[EMAIL]) == []
    assert client.accounts.test_vitals(accounts=[EMAIL]) == {}


@pytest.mark.xfail(strict=True, raises=instantlyai.NotFoundError,
                   reason="the client's doing: it uses GET /api/v2/accounts/ctd/status; the document says "
                          "GET /accounts/ctd-status")
def test_ctd_status(client: Any) -> None:
    client.accounts.ctd_status(host="track.outreach.example")


def test_delete_account(client: Any, sim: OutreachSimulator, monkeypatch: pytest.MonkeyPatch) -> None:
    _new_account(client)
    assert client.accounts.delete("ada@outreach.example").email == "ada@outreach.example"
    assert "ada@outreach.example" not in sim.accounts
    with pytest.raises(instantlyai.NotFoundError):
        client.accounts.retrieve("ada@outreach.example")


def test_delete_account_model(client: Any) -> None:
    """The delete body is not shown: the simulator answers the deleted account, the library's model."""
    _new_account(client)
    assert client.accounts.delete("ada@outreach.example").first_name == "Ada"


# -- campaigns --------------------------------------------------------------------------------------
def test_list_campaigns_walks_the_cursor(client: Any, sim: OutreachSimulator,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    page = client.campaigns.list()
    size = int(CREDS["CAMPAIGN_PAGE_SIZE"])
    assert [str(c.id) for c in page.items] == sorted(sim.campaigns)[:size]
    assert page.next_starting_after == str(page.items[-1].id)
    everything = list(client.campaigns.list())
    assert [str(c.id) for c in everything] == sorted(sim.campaigns)
    assert {str(c.id): c.name for c in everything} == {i: c["name"] for i, c in sim.campaigns.items()}


def test_campaign_get_update_activate_pause(client: Any, sim: OutreachSimulator,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = client.campaigns.retrieve(CAMPAIGN_ID)
    assert (str(campaign.id), campaign.name) == (CAMPAIGN_ID, sim.campaigns[CAMPAIGN_ID]["name"])
    assert campaign.email_list == sim.campaigns[CAMPAIGN_ID]["email_list"]
    senders = [EMAIL, "sender2@outreach.example"]
    renamed = client.campaigns.update(CAMPAIGN_ID, name="Spring outreach", email_list=senders)
    assert renamed.name == "Spring outreach" == sim.campaigns[CAMPAIGN_ID]["name"]
    assert renamed.email_list == senders == sim.campaigns[CAMPAIGN_ID]["email_list"]
    with pytest.raises(instantlyai.ValidationError):
        client.campaigns.update(CAMPAIGN_ID, email_list=["nobody@outreach.example"])
    status = CREDS["CAMPAIGN_STATUS_FIELD"]
    assert client.campaigns.activate(CAMPAIGN_ID).status.value == sim.campaigns[CAMPAIGN_ID][status] == 1
    assert client.campaigns.pause(CAMPAIGN_ID).status.value == sim.campaigns[CAMPAIGN_ID][status] == 2
    assert client.campaigns.retrieve(CAMPAIGN_ID).status.value == 2
    with pytest.raises(instantlyai.NotFoundError):
        client.campaigns.activate("0190c0de-0000-7000-8000-999999999999")


def test_campaign_model(client: Any) -> None:
    """The campaign body is not shown beyond its members: the simulator adds the library's timestamps."""
    before = client.campaigns.retrieve(CAMPAIGN_ID).timestamp_updated
    assert client.campaigns.pause(CAMPAIGN_ID).timestamp_updated >= before
    assert [c.id for c in client.campaigns.list(limit=2).items]


def test_campaign_analytics(client: Any, sim: OutreachSimulator) -> None:
    rows = client.campaigns.analytics(id=CAMPAIGN_ID)
    assert [str(r.campaign_id) for r in rows] == [CAMPAIGN_ID]
    assert [str(r.campaign_id) for r in client.campaigns.analytics()] == sorted(sim.campaigns)
    assert client.campaigns.analytics_daily(campaign_id=CAMPAIGN_ID) == []
    assert client.campaigns.analytics_steps(campaign_id=CAMPAIGN_ID) == []


def _in_campaign(sim: OutreachSimulator, cid: str = CAMPAIGN_ID) -> tuple[int, int, int]:
    """(leads, emails sent, emails received) the simulator holds for campaign ``cid``."""
    emails = [e for e in sim.emails.values() if e["campaign_id"] == cid]
    return (sum(1 for lead in sim.leads.values() if lead.get("campaign") == cid),
            sum(1 for e in emails if e["from_address_email"] in sim.accounts),
            sum(1 for e in emails if e["from_address_email"] not in sim.accounts))


def test_campaign_analytics_model(client: Any, sim: OutreachSimulator) -> None:
    """The analytics body is not shown: the simulator's rows carry what the library's CampaignAnalytics
    requires, counted from the leads and emails it holds."""
    (row,) = client.campaigns.analytics(id=CAMPAIGN_ID)
    held = sim.campaigns[CAMPAIGN_ID]
    assert (row.campaign_name, row.campaign_status) == (held["name"], held["status"])
    assert (row.leads_count, row.emails_sent_count, row.reply_count) == _in_campaign(sim) and row.reply_count > 0
    client.leads.create(email="grace@example.com", campaign=CAMPAIGN_ID)
    client.emails.reply(eaccount=EMAIL, reply_to_uuid=CREDS["REPLY_TO_UUID"], subject="Re", body={"text": "x"})
    client.campaigns.activate(CAMPAIGN_ID)
    (after,) = client.campaigns.analytics(id=CAMPAIGN_ID)
    assert (after.leads_count, after.emails_sent_count) == (row.leads_count + 1, row.emails_sent_count + 1)
    assert (after.leads_count, after.emails_sent_count, after.reply_count) == _in_campaign(sim)
    assert after.campaign_status == 1 == sim.campaigns[CAMPAIGN_ID]["status"]
    (other,) = client.campaigns.analytics(id=sorted(sim.campaigns)[-1])
    assert (other.leads_count, other.emails_sent_count, other.contacted_count) == (0, 0, 0)


def test_campaign_analytics_overview_model(client: Any, sim: OutreachSimulator) -> None:
    """The overview body is not shown ("overview counts"): the simulator's sums its rows, in the
    counters the library's CampaignAnalyticsOverview requires."""
    client.emails.reply(eaccount=EMAIL, reply_to_uuid=CREDS["REPLY_TO_UUID"], subject="Re", body={"text": "x"})
    total = client.campaigns.analytics_overview()
    rows = client.campaigns.analytics()
    for name in ("emails_sent_count", "reply_count", "contacted_count", "open_count", "link_click_count"):
        assert getattr(total, name) == sum(getattr(r, name) for r in rows), name
    sent = sum(1 for e in sim.emails.values() if e["from_address_email"] in sim.accounts)
    assert total.emails_sent_count == sent > 0
    assert total.reply_count == len(sim.emails) - sent > 0
    assert client.campaigns.analytics_overview(id=CAMPAIGN_ID).emails_sent_count == _in_campaign(sim)[1]


# -- leads and block list ---------------------------------------------------------------------------
def test_leads_add_list_delete(client: Any, sim: OutreachSimulator, monkeypatch: pytest.MonkeyPatch) -> None:
    lead = client.leads.create(email="grace@example.com", campaign=CAMPAIGN_ID, first_name="Grace")
    held = sim.leads[str(lead.id)]
    assert {k: held[k] for k in ("email", "campaign", "first_name")} == {
        "email": "grace@example.com", "campaign": CAMPAIGN_ID, "first_name": "Grace"}
    assert (lead.email, str(lead.campaign), lead.first_name) == ("grace@example.com", CAMPAIGN_ID, "Grace")
    seeded = set(sim.leads) - {str(lead.id)}  # the simulator seeds one lead (the LEAD_ID setting)
    assert [str(i.id) for i in client.leads.list(campaign=CAMPAIGN_ID) if str(i.id) not in seeded] == [str(lead.id)]
    assert client.leads.delete(lead.id).email == "grace@example.com"
    assert str(lead.id) not in sim.leads and {str(item.id) for item in client.leads.list()} == seeded
    with pytest.raises(instantlyai.NotFoundError):
        client.leads.delete(lead.id)


def test_lead_model(client: Any) -> None:
    """The lead body is not shown: the simulator's carries what the library's Lead requires."""
    lead = client.leads.create(email="grace@example.com", campaign=CAMPAIGN_ID)
    assert lead.company_domain == "example.com" and lead.timestamp_created


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="the client's doing: its lead update sends custom_variables and lt_interest_status; the "
                          "document's PATCH /leads/{id} names payload and interest_status")
def test_lead_update_fields(client: Any, sim: OutreachSimulator, monkeypatch: pytest.MonkeyPatch) -> None:
    lead = client.leads.create(email="grace@example.com", campaign=CAMPAIGN_ID)
    client.leads.update(lead.id, custom_variables={"tier": "gold"}, lt_interest_status=1)
    assert sim.leads[str(lead.id)].get("payload") == {"tier": "gold"}
    assert sim.leads[str(lead.id)].get("interest_status") == 1


def test_block_list_add_delete(client: Any, sim: OutreachSimulator, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = client.block_list_entries.create(bl_value="spam.example")
    assert entry.bl_value == "spam.example" == sim.block_list[str(entry.id)]["bl_value"]
    assert client.block_list_entries.delete(entry.id).bl_value == "spam.example"
    assert str(entry.id) not in sim.block_list
    with pytest.raises(instantlyai.NotFoundError):
        client.block_list_entries.delete(entry.id)


def test_block_list_model(client: Any) -> None:
    """The entry body is not shown: the simulator's carries what the library's BlockListEntry requires."""
    assert client.block_list_entries.create(bl_value="spam.example").is_domain is True


# -- emails -----------------------------------------------------------------------------------------
def test_emails_list_unread_and_mark_read(client: Any, sim: OutreachSimulator) -> None:
    emails = list(client.emails.list())
    assert {str(e.id): e.thread_id for e in emails} == {i: e["thread_id"] for i, e in sim.emails.items()}
    unread = sum(t["unread"] for t in sim.threads.values())
    assert client.emails.unread_count() == {"count": unread} and unread > 0
    client.emails.mark_thread_read(CREDS["THREAD_ID"])
    assert sim.threads[CREDS["THREAD_ID"]]["unread"] is False
    assert {e.is_unread for e in client.emails.list() if e.thread_id == CREDS["THREAD_ID"]} == {0}
    assert client.emails.unread_count() == {"count": unread - 1}
    with pytest.raises(instantlyai.NotFoundError):
        client.emails.mark_thread_read("thread-9999")


def test_email_reply(client: Any, sim: OutreachSimulator) -> None:
    original = next(iter(sim.emails.values()))
    reply = client.emails.reply(eaccount=EMAIL, reply_to_uuid=original["id"], subject="Re: hello",
                                body={"text": "Thanks!"})
    assert reply.thread_id == original["thread_id"] and str(reply.id) != original["id"]
    with pytest.raises(instantlyai.NotFoundError):
        client.emails.reply(eaccount=EMAIL, reply_to_uuid="email-9999", subject="Re", body={"text": "x"})


def test_email_model(client: Any, sim: OutreachSimulator) -> None:
    """The email body is not shown: the simulator's carry what the library's Email requires."""
    emails = list(client.emails.list())
    assert [str(e.id) for e in emails] == list(sim.emails) and str(emails[0].id) == CREDS["REPLY_TO_UUID"]
    for email in emails:
        held = sim.emails[str(email.id)]
        assert (email.subject, email.to_address_email_list, email.body.text) == (
            held["subject"], held["to_address_email_list"], held["body"]["text"])
        assert str(email.organization_id) == sim.organization and email.eaccount in sim.accounts
        assert email.timestamp_email.tzinfo is not None and email.timestamp_created >= email.timestamp_email
        assert str(email.campaign_id) == CAMPAIGN_ID and str(email.lead_id) in sim.leads
    assert {e.thread_id for e in emails} == set(sim.threads)


def test_email_reply_model(client: Any, sim: OutreachSimulator) -> None:
    """The reply body is not shown: the simulator answers the email sent, the library's Email, and keeps it
    in the thread."""
    original = client.emails.list().items[0]
    reply = client.emails.reply(eaccount=EMAIL, reply_to_uuid=str(original.id), subject="Re: hello",
                                body={"text": "Thanks!", "html": "<p>Thanks!</p>"})
    assert (reply.eaccount, reply.from_address_email, reply.to_address_email_list) == (
        EMAIL, EMAIL, original.from_address_email)
    assert (reply.subject, reply.body.text, reply.body.html) == ("Re: hello", "Thanks!", "<p>Thanks!</p>")
    assert (reply.thread_id, reply.campaign_id, reply.lead_id) == (original.thread_id, original.campaign_id,
                                                                   original.lead_id)
    assert reply.timestamp_email >= original.timestamp_email and reply.message_id != original.message_id
    assert [e.id for e in client.emails.list()][-1] == reply.id and str(reply.id) in sim.emails


# -- custom tags ------------------------------------------------------------------------------------
def test_custom_tags(client: Any, sim: OutreachSimulator, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded = [(t.id, t.label) for t in client.custom_tags.list()]  # the tags TAG_ID and DELETABLE_TAG_ID name
    assert len(seeded) == 2
    tag = client.custom_tags.create(label="VIP")
    assert tag.label == "VIP" == sim.tags[str(tag.id)]["label"]
    assert [(t.id, t.label) for t in client.custom_tags.list()] == [*seeded, (tag.id, "VIP")]
    assert client.custom_tags.retrieve(tag.id).label == "VIP"
    assert client.custom_tags.update(tag.id, label="Key account").label == "Key account"
    assert sim.tags[str(tag.id)]["label"] == "Key account"
    assert client.custom_tags.toggle_resource(tag_ids=[str(tag.id)], resource_type=1, assign=True,
                                              resource_ids=[EMAIL]) == {}
    assert client.custom_tags.delete(tag.id).label == "Key account"
    assert str(tag.id) not in sim.tags
    with pytest.raises(instantlyai.NotFoundError):
        client.custom_tags.retrieve(tag.id)


def test_custom_tag_model(client: Any) -> None:
    """The tag body is not shown: the simulator's carries what the library's CustomTag requires."""
    assert client.custom_tags.create(label="VIP").label == "VIP"


# -- verification and mailbox OAuth -----------------------------------------------------------------
def test_email_verification(client: Any, sim: OutreachSimulator) -> None:
    started = client.email_verification.create(email="lead@example.com")
    assert started.email == "lead@example.com"
    assert started.verification_status.value == sim.verifications["lead@example.com"]["verification_status"]
    assert client.email_verification.retrieve("lead@example.com") == started
    with pytest.raises(instantlyai.NotFoundError):
        client.email_verification.retrieve("unknown@example.com")
    with pytest.raises(instantlyai.ValidationError):
        client.email_verification.create(email="not-an-address")


def test_oauth_sessions(client: Any, sim: OutreachSimulator) -> None:
    google = client.oauth.init_google()
    microsoft = client.oauth.init_microsoft()
    assert google["session_id"] != microsoft["session_id"]
    assert google["session_id"] in sim.sessions and google["auth_url"]
    status = client.oauth.session_status(microsoft["session_id"])
    assert status == sim.sessions[microsoft["session_id"]]
    with pytest.raises(instantlyai.NotFoundError):
        client.oauth.session_status("session-unknown")
