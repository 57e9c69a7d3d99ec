"""Campaign analytics of the outreach simulator, counted from what it holds (its leads and emails).

The document names the operations ("summary; campaign id in query parameter id", "overview
counts") but shows no body: every member here is a SIM-CHOICE (client-shaped), the counters the
vendor's published client requires of CampaignAnalytics and CampaignAnalyticsOverview. No rule
reads them. What the simulator does not model (bounces, unsubscribes, opportunities, automatic
replies) counts zero; opens and clicks are the leads' own counters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from conformance.services.outreach.mailbox import RECEIVED, is_sent

__all__ = ["campaign_row", "overview"]

_ZERO = ("bounced_count", "unsubscribed_count", "completed_count", "total_opportunities")


def _counts(cid: str, leads: Iterable[dict[str, Any]], emails: Iterable[dict[str, Any]]) -> dict[str, Any]:
    mine = [lead for lead in leads if lead.get("campaign") == cid]
    thread = [e for e in emails if e.get("campaign_id") == cid]
    sent = [e for e in thread if is_sent(e)]
    replies = [e for e in thread if e.get("ue_type") == RECEIVED]
    contacted = {e["lead"] for e in sent if e.get("lead")}
    return {
        "leads_count": len(mine), "emails_sent_count": len(sent),
        # Every lead the simulator holds is new to the workspace, so each contacted lead is a new one.
        "contacted_count": len(contacted), "new_leads_contacted_count": len(contacted),
        "open_count": sum(int(lead.get("email_open_count", 0)) for lead in mine),
        "open_count_unique": sum(1 for lead in mine if lead.get("email_open_count")),
        "link_click_count": sum(int(lead.get("email_click_count", 0)) for lead in mine),
        "link_click_count_unique": sum(1 for lead in mine if lead.get("email_click_count")),
        "reply_count": len(replies), "reply_count_unique": len({e["lead"] for e in replies if e.get("lead")}),
        "reply_count_automatic": 0, **dict.fromkeys(_ZERO, 0), "total_opportunity_value": 0.0,
    }


def campaign_row(campaign: dict[str, Any], leads: Iterable[dict[str, Any]],
                 emails: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One row of GET /campaigns/analytics for ``campaign``."""
    return {"campaign_id": campaign["id"], "campaign_name": campaign["name"],
            "campaign_status": campaign.get("status", 0), "campaign_is_evergreen": False,
            **_counts(campaign["id"], leads, emails)}


def overview(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """GET /campaigns/analytics/overview: the rows' counters summed. The simulator keeps no steps, so a
    count by step is its count; interest and meetings are opportunities it does not hold (zero)."""
    # Every counter a row carries (those of a campaign of no leads or emails) but leads_count.
    counters = [name for name in _counts("", (), ()) if name != "leads_count"]
    total: dict[str, Any] = {name: sum(row[name] for row in rows) for name in counters}
    total["total_opportunity_value"] = float(total["total_opportunity_value"])
    for name in ("open_count", "link_click_count", "reply_count"):
        total[f"{name}_unique_by_step"] = total[f"{name}_unique"]
    total["reply_count_automatic_unique"] = total["reply_count_automatic_unique_by_step"] = 0
    total.update(dict.fromkeys(("total_interested", "total_meeting_booked", "total_meeting_completed",
                                "total_closed"), 0))
    return total
