"""Focused tests of the outreach simulator: scopes, account validation, read-only fields,
campaign paging and states, the creation rate limit on the simulated clock."""

from __future__ import annotations

import json
from typing import Any

from conformance.services.outreach.simulator import CREATE_LIMIT, CREATE_WINDOW_SECONDS, OutreachSimulator
from conformance.simulators.base import Clock
from conformance.transport.model import Request, Response

KEYS = OutreachSimulator.credentials
BODY: dict[str, Any] = {
    "email": "new@outreach.example", "first_name": "Ada", "last_name": "L", "provider_code": 1,
    "imap_username": "u", "imap_password": "p", "imap_host": "imap", "imap_port": 993,
    "smtp_username": "u", "smtp_password": "p", "smtp_host": "smtp", "smtp_port": 587,
}


def call(sim: OutreachSimulator, method: str, path: str, body: Any = None, key: str = "API_KEY",
         query: list[tuple[str, str]] | None = None) -> Response:
    headers = {"authorization": f"Bearer {KEYS[key]}"} if key else {}
    content = b""
    if body is not None:
        headers["content-type"] = "application/json"
        content = json.dumps(body).encode()
    return sim.handle(Request(method, "/api/v2" + path, query or [], headers, content))


def test_scopes_decide_who_creates() -> None:
    sim = OutreachSimulator()
    for i, key in enumerate(("ACCOUNTS_CREATE_API_KEY", "ACCOUNTS_ALL_API_KEY", "ALL_CREATE_API_KEY")):
        assert call(sim, "POST", "/accounts", {**BODY, "email": f"k{i}@o.example"}, key).status == 200
    assert call(sim, "POST", "/accounts", BODY, "NO_CREATE_API_KEY").status == 403
    assert call(sim, "POST", "/accounts", BODY, "").status == 401
    assert call(sim, "GET", "/accounts", key="ACCOUNTS_ALL_API_KEY").status == 200
    assert call(sim, "GET", "/accounts", key="ACCOUNTS_CREATE_API_KEY").status == 403


def test_account_create_validation_and_read_only() -> None:
    sim = OutreachSimulator()
    assert call(sim, "POST", "/accounts", {**BODY, "sending_gap": 1441}).status == 400
    assert call(sim, "POST", "/accounts", {**BODY, "provider_code": 5}).status == 400
    assert call(sim, "POST", "/accounts", {k: v for k, v in BODY.items() if k != "smtp_port"}).status == 400
    assert call(sim, "POST", "/accounts", {**BODY, "warmup_status": 1}).status == 400
    created = call(sim, "POST", "/accounts", {**BODY, "sending_gap": 1440, "provider_code": 8})
    assert created.status == 200 and created.json()["warmup_status"] == 0
    assert "imap_password" not in created.json()
    # The email exists: replaced by default (SIM-CHOICE, gap duplicate-email), refused by the variant's switch.
    again = call(sim, "POST", "/accounts", {**BODY, "first_name": "Grace"})
    assert again.status == 200 and again.json()["first_name"] == "Grace" and len(sim.accounts) == 4
    sim.refuse_duplicates = True
    assert call(sim, "POST", "/accounts", BODY).status == 400
    sim.refuse_read_only = False
    answer = call(sim, "PATCH", "/accounts/new@outreach.example", {"status": -3, "daily_limit": None})
    assert answer.status == 200 and answer.json()["status"] == 1


def test_campaign_walk_and_states() -> None:
    sim = OutreachSimulator()
    seen: list[str] = []
    query: list[tuple[str, str]] = []
    while True:
        items = call(sim, "GET", "/campaigns", query=query).json()["items"]
        if not items:
            break
        seen += [c["id"] for c in items]
        query = [("starting_after", items[-1]["id"])]
    assert len(seen) == len(set(seen)) == len(sim.campaigns)
    cid = KEYS["CAMPAIGN_ID"]
    call(sim, "POST", f"/campaigns/{cid}/activate")
    active = call(sim, "GET", f"/campaigns/{cid}").json()["status"]
    call(sim, "POST", f"/campaigns/{cid}/pause")
    assert call(sim, "GET", f"/campaigns/{cid}").json()["status"] != active


def test_mark_as_read_served_by_post_only() -> None:
    sim = OutreachSimulator()
    path = f"/emails/threads/{KEYS['THREAD_ID']}/mark-as-read"
    assert call(sim, "POST", path).status == 200
    assert call(sim, "PATCH", path).status == 405


def test_analytics_count_what_the_simulator_holds() -> None:
    """Analytics and email bodies are SIM-CHOICEs (not shown): counted from the simulator's own state."""
    sim = OutreachSimulator()
    cid, query = KEYS["CAMPAIGN_ID"], [("id", KEYS["CAMPAIGN_ID"])]

    def row() -> dict[str, Any]:
        rows = call(sim, "GET", "/campaigns/analytics", query=query).json()
        assert [r["campaign_id"] for r in rows] == [cid]
        return rows[0]

    before = row()
    assert before["leads_count"] == sum(1 for lead in sim.leads.values() if lead.get("campaign") == cid) > 0
    assert call(sim, "POST", "/leads", {"email": "new@example.com", "campaign": cid}).status == 200
    reply = call(sim, "POST", "/emails/reply", {"reply_to_uuid": KEYS["REPLY_TO_UUID"], "eaccount": "x@y"}).json()
    assert reply["thread_id"] == KEYS["THREAD_ID"] and reply["id"] in sim.emails
    assert reply["eaccount"] == sim.emails[KEYS["REPLY_TO_UUID"]]["eaccount"]  # not an account: the thread's
    after = row()
    assert (after["leads_count"], after["emails_sent_count"]) == (before["leads_count"] + 1,
                                                                  before["emails_sent_count"] + 1)
    everything = call(sim, "GET", "/campaigns/analytics").json()
    total = call(sim, "GET", "/campaigns/analytics/overview").json()
    assert len(everything) == len(sim.campaigns)
    for name in ("emails_sent_count", "reply_count", "contacted_count"):
        assert total[name] == sum(r[name] for r in everything) > 0
    listed = call(sim, "GET", "/emails").json()["items"]
    assert listed[0]["id"] == KEYS["REPLY_TO_UUID"] and listed[-1]["id"] == reply["id"]


def test_rate_limit_runs_on_the_simulated_clock() -> None:
    clock = Clock()
    sim = OutreachSimulator(clock)
    statuses = [call(sim, "POST", "/accounts", {**BODY, "email": f"r{i}@o.example"}).status
                for i in range(CREATE_LIMIT + 1)]
    assert statuses[:-1] == [200] * CREATE_LIMIT and statuses[-1] == 429
    clock.advance(CREATE_WINDOW_SECONDS)
    assert call(sim, "POST", "/accounts", {**BODY, "email": "later@o.example"}).status == 200


def test_hostile_bodies_are_4xx() -> None:
    sim = OutreachSimulator()
    for raw in (b"{oops", b"[1]", b"\xff", b"[" * 5000 + b"]" * 5000):
        request = Request("POST", "/api/v2/accounts", [], {"authorization": f"Bearer {KEYS['API_KEY']}",
                                                           "content-type": "application/json"}, raw)
        assert 400 <= sim.handle(request).status < 500
    assert call(sim, "POST", "/accounts", {**BODY, "provider_code": True}).status == 400


def _variant(name: str) -> OutreachSimulator:
    from conformance.services.outreach.variants import VARIANTS
    return next(v for v in VARIANTS if v.name == name).apply(OutreachSimulator())  # type: ignore[return-value]


def test_variant_all_not_wildcard_refuses_partial_all_keys() -> None:
    sim = _variant("all-not-wildcard")
    assert call(sim, "POST", "/accounts", BODY, "ACCOUNTS_ALL_API_KEY").status == 403
    assert call(sim, "POST", "/accounts", BODY, "ALL_CREATE_API_KEY").status == 403
    assert call(sim, "POST", "/accounts", BODY, "ACCOUNTS_CREATE_API_KEY").status == 200


def test_variant_opaque_cursor_walks_by_token_only() -> None:
    sim = _variant("opaque-campaign-cursor")
    first = call(sim, "GET", "/campaigns").json()
    token = first["next_starting_after"]
    assert token.startswith("c1.") and token != first["items"][-1]["id"]
    second = call(sim, "GET", "/campaigns", query=[("starting_after", token)]).json()
    assert second["items"][0]["id"] > first["items"][-1]["id"]
    bare = call(sim, "GET", "/campaigns", query=[("starting_after", first["items"][-1]["id"])]).json()
    assert bare["items"] == []


def test_variant_no_reactivation_refuses_activating_a_paused_campaign() -> None:
    sim = _variant("no-reactivation")
    cid = KEYS["CAMPAIGN_ID"]
    assert call(sim, "POST", f"/campaigns/{cid}/activate").status == 200
    assert call(sim, "POST", f"/campaigns/{cid}/pause").status == 200
    assert call(sim, "POST", f"/campaigns/{cid}/activate").status == 409
