"""Allowed variants of the outreach simulator: choices the document leaves open. Every rule
must still pass under each."""

from __future__ import annotations

import base64
import json
from typing import Any

from conformance.faults.base import Variant, on_request, variant
from conformance.faults.toolkit import operation, path, request_body, response_body, sent_json, status
from conformance.simulators import Simulator
from conformance.transport.model import Request

__all__ = ["VARIANTS"]


def _attribute(name: str, value: Any) -> Any:
    def apply(sim: Simulator) -> Simulator:
        setattr(sim, name, value)
        return sim
    return apply


def _mark_read_by_patch(sim: Simulator) -> Simulator:
    # The method column's reading: PATCH serves mark-as-read, POST is answered 405.
    for route in sim._routes:
        if route.method == "POST" and route.pattern.pattern.endswith("mark-as-read$"):
            route.method = "PATCH"
    return sim


def _all_not_wildcard(sim: Simulator) -> Simulator:
    # What `all` grants is not shown (gap scope-list): only all:all is a wildcard here, so an
    # accounts:all or all:create key is refused account creation.
    def grants(granted: str, needed: tuple[str, str]) -> bool:
        return granted in ("all:all", f"{needed[0]}:{needed[1]}")
    setattr(sim, "_grants", grants)
    return sim


_LIST = operation(None, "/api/v2/campaigns")


def _opaque_cursor(sim: Simulator) -> Simulator:
    # What starting_after takes is not shown (gap list-shapes): an opaque token the page names
    # in next_starting_after; a bare id is refused.
    def key(token: str) -> str:  # a token this server did not issue names nothing to start after
        return base64.urlsafe_b64decode(token[3:].encode()).decode() if token.startswith("c1.") else "\uffff"

    def before(request: Request) -> Request:
        if request.method == "GET" and _LIST(request):
            request.query = [(n, key(v) if n == "starting_after" else v) for n, v in request.query]
        return request

    def after(body: Any) -> Any:
        if isinstance(body, dict) and body.get("next_starting_after"):
            cid = body["next_starting_after"].encode()
            body["next_starting_after"] = "c1." + base64.urlsafe_b64encode(cid).decode()
        return body

    return on_request(before)(response_body(_LIST, after)(sim))


def _ids_named_campaign_id(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("items"), list):
        body.pop("next_starting_after", None)  # no next cursor: clients pass the last item's id
        body["items"] = [{("campaign_id" if k == "id" else k): v for k, v in item.items()}
                         for item in body["items"]]
    return body


def _campaign_id_member(sim: Simulator) -> Simulator:
    # The member naming a campaign in a page is not shown (gap list-shapes): campaign_id here,
    # and no next cursor, so the walk passes the last item's campaign_id as starting_after.
    wrapped = response_body(_LIST, _ids_named_campaign_id)(sim)
    # The target's settings say so, as a user would set CONFORMANCE_OUTREACH_CAMPAIGN_ID_FIELD.
    wrapped.credentials = {**sim.credentials, "CAMPAIGN_ID_FIELD": "campaign_id"}  # type: ignore[misc]
    return wrapped


def _null_refused(body: dict[str, Any]) -> dict[str, Any]:
    # Gap null-on-update: the six "or null" fields are only ever null when the server sets them;
    # an update sending null is refused (400) and nothing is stored. Done by handing the
    # simulator an update it refuses for its own reason (a sending_gap out of range).
    return {"sending_gap": -1} if any(v is None for v in body.values()) else body


def _no_reactivation(sim: Simulator) -> Simulator:
    # Which campaign transitions exist is not shown (gap campaign-states): a paused campaign
    # cannot be activated again here.
    def before(request: Request) -> Request:
        if request.method == "POST" and request.path.endswith("/activate"):
            cid = request.path.split("/")[-2]
            if getattr(sim, "campaigns", {}).get(cid, {}).get("status") == 2:
                request.path = request.path[: -len("activate")] + "not-from-paused"
        return request

    refused = status(path("/not-from-paused$"), 409, when=(404, 405),
                     body={"message": "a paused campaign cannot be activated"})
    return on_request(before)(refused(sim))


def _job_as_id(job: Any) -> Any:
    # The job's representation is not shown (gap warmup-job): its id as a JSON string.
    return job["id"] if isinstance(job, dict) and job.get("id") else job


_GET_ONE = path(r"^/api/v2/(accounts/[^/]+@[^/]+|campaigns/[0-9a-f-]{36})$", "GET")


def _enveloped_reads(sim: Simulator) -> Simulator:
    # Gap read-bodies: a get answers {"data": <resource>}; the target says it does not answer the
    # resource itself (READS_ANSWER_RESOURCE empty), so the get-shape rules skip.
    wrapped = response_body(_GET_ONE, lambda body: {"data": body})(sim)
    wrapped.credentials = {**sim.credentials, "READS_ANSWER_RESOURCE": ""}  # type: ignore[misc]
    return wrapped


_CAMPAIGN = path(r"^/api/v2/campaigns/[0-9a-f-]{36}$", "PATCH")


def _email_list_appends(sim: Simulator) -> Simulator:
    # Gap email-list-update: an update's email_list adds its accounts to those the campaign
    # already lists (no account removed), instead of replacing them.
    def before(request: Request) -> Request:
        body = sent_json(request)
        if _CAMPAIGN(request) and isinstance(body.get("email_list"), list):
            listed = getattr(sim, "campaigns", {}).get(request.path.rsplit("/", 1)[-1], {}).get("email_list") or []
            body["email_list"] = listed + [e for e in body["email_list"] if e not in listed]
            request.body = json.dumps(body).encode()
        return request

    return on_request(before)(sim)


VARIANTS: tuple[Variant, ...] = (
    variant("read-only-ignored", "read-only fields on create and update are dropped, not refused")(
        _attribute("refuse_read_only", False)),
    variant("duplicate-create-refused", "creating an existing email is refused (400) instead of replacing it")(
        _attribute("refuse_duplicates", True)),
    variant("mark-as-read-by-patch", "mark-as-read is served by PATCH, as the method column says")(
        _mark_read_by_patch),
    variant("all-not-wildcard", "only all:all is a wildcard: accounts:all and all:create keys cannot create accounts")(
        _all_not_wildcard),
    variant("opaque-campaign-cursor", "GET /campaigns names the next starting_after as an opaque token")(
        _opaque_cursor),
    variant("enveloped-reads", "GET /accounts/{email} and GET /campaigns/{id} answer {\"data\": <resource>}")(
        _enveloped_reads),
    variant("warmup-job-as-id", "warm-up enable answers the job's id as a JSON string")(
        response_body(path("/warmup/enable$"), _job_as_id)),
    variant("no-reactivation", "a paused campaign cannot be activated again (409)")(_no_reactivation),
    variant("campaign-id-member", "GET /campaigns items name their id campaign_id and pages carry no next cursor "
            "(CAMPAIGN_ID_FIELD=campaign_id)")(_campaign_id_member),
    variant("null-refused-on-update", "an account update sending null for a field is refused (400)")(
        request_body(path("^/api/v2/accounts/", "PATCH"), _null_refused)),
    variant("email-list-appends", "a campaign update's email_list adds its accounts to those already listed")(
        _email_list_appends),
)
