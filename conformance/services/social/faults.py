"""Faults of the social simulator: each makes it break one documented rule.

Most are wrappers rewriting a request before the simulator reads it or an answer after; a few
change one number on one simulator (its attributes). The fault module may know the simulator's
seeded values: they are part of the simulator's surface.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from conformance.faults.base import Fault, fault
from conformance.faults.toolkit import (
    Edit,
    Wrap,
    any_request,
    path,
    request_body,
    response_body,
    sent_json,
)
from conformance.services.social import reports
from conformance.services.social.simulator import OIDC_TOKEN
from conformance.simulators import Simulator
from conformance.transport.model import Request

__all__ = ["FAULTS", "MESSAGES", "attr", "filters"]

MESSAGES = r"^/v1/[^/]+/messages$"  # inbox messages, not a topic's
_POSTS_RE, _TOPIC_RE = r"/analytics/posts$", r"/topics/t-brand/messages$"
# Answers to these paths (any method), and the POSTs whose body a fault rewrites.
_POSTS = path(_POSTS_RE)
_METRICS, _TAGS = path(r"/metrics$"), path(r"/metadata/customer/tags$")
_TO_POSTS, _TO_TOPIC = path(_POSTS_RE, "POST"), path(_TOPIC_RE, "POST")
_TO_MESSAGES = path(MESSAGES, "POST")
_ERRORS = range(400, 600)


def attr(name: str, value: Any) -> Wrap:
    """Set one attribute of the simulator (a number or a choice it reads)."""
    def apply(sim: Simulator) -> Simulator:
        setattr(sim, name, value)
        return sim
    return apply


def filters(edit: Callable[[list[str]], list[str]]) -> Edit:
    """A request body edit of the filter strings (bodies whose filters are not strings pass)."""
    def apply(body: dict[str, Any]) -> dict[str, Any]:
        if isinstance(body.get("filters"), list) and all(isinstance(f, str) for f in body["filters"]):
            body["filters"] = edit(body["filters"])
        return body
    return apply


def _drop(member: str) -> Edit:
    def apply(body: dict[str, Any]) -> dict[str, Any]:
        body.pop(member, None)
        return body
    return apply


def _drop_token(name: str) -> Callable[[Simulator], Simulator]:
    def apply(sim: Simulator) -> Simulator:
        sim.tokens.pop(name, None)  # type: ignore[attr-defined]
        return sim
    return apply


def _bare_error(data: Any) -> Any:
    return {"message": data.get("error")} if isinstance(data, dict) else data


def _hide_archived(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "data": [t for t in data["data"] if t.get("active")]}


def _theme_ids(data: dict[str, Any]) -> dict[str, Any]:
    for topic in data["data"]:
        for group in topic.get("theme_groups", []):
            for theme in group.get("themes", []):
                theme["id"] = theme["id"].replace("-", "")
    return data


def _group_strings(data: dict[str, Any]) -> dict[str, Any]:
    for profile in data["data"]:
        profile["groups"] = [str(g) for g in profile.get("groups", [])]
    return data


def _flatten_internal(data: dict[str, Any]) -> dict[str, Any]:
    for row in data["data"]:
        internal = row.pop("internal", None)
        if isinstance(internal, dict):
            row["internal.tags.id"] = [t.get("id") for t in internal.get("tags", [])]
    return data


def _shift_output(request: Request, data: dict[str, Any]) -> dict[str, Any]:
    if sent_json(request).get("timezone"):
        for row in data["data"]:
            if isinstance(row.get("created_time"), str) and row["created_time"].endswith("Z"):
                row["created_time"] = row["created_time"][:-1] + "-07:00"
    return data




def _limit_short(body: dict[str, Any]) -> dict[str, Any]:
    if isinstance(body.get("limit"), int) and body["limit"] > reports.POST_PAGE:
        body["limit"] -= 5
    return body


def _metrics_paging(data: dict[str, Any]) -> dict[str, Any]:
    if data.get("paging"):
        data["paging"] = {"current_page": data["paging"]["current_page"]}
    return data


_bare = re.compile(r"(created_time\.in\()(\d{4}-\d{2}-\d{2})(\.\.)(\d{4}-\d{2}-\d{2})\)")

FAULTS: list[Fault] = [
    fault("oauth-token-refused", "only account-scoped tokens are accepted")(
        _drop_token(OIDC_TOKEN)),
    fault("error-body-bare", "errors answer {message} instead of the standard object")(
        response_body(any_request, _bare_error, _ERRORS)),
    fault("errors-as-array", "error bodies are JSON arrays")(
        response_body(any_request, lambda d: [d], _ERRORS)),
    fault("tags-paged", "the tag list carries a paging object")(
        response_body(_TAGS, lambda d: {**d, "paging": {"current_page": 1, "total_pages": 1}})),
    fault("archived-tags-hidden", "archived tags are left out")(
        response_body(_TAGS, _hide_archived)),
    fault("theme-id-not-uuid", "theme ids are UUIDs without hyphens")(
        response_body(path(r"/metadata/customer/topics$"), _theme_ids)),
    fault("profile-groups-strings", "profile groups are strings")(
        response_body(path(r"/metadata/customer$"), _group_strings)),
    fault("no-result-cap", "analytics answers are not cut at 10000")(
        attr("cap", 10**9)),
    fault("posts-limit-cut-short", "a limit above 50 gives 5 rows fewer than asked")(
        lambda sim: request_body(_TO_POSTS, _limit_short)(attr("post_limit_caps", False)(sim))),
    fault("internal-dotted", "internal.tags.id comes back as a dotted key")(
        response_body(_POSTS, _flatten_internal)),
    fault("timezone-ignored", "timezone does not move the date filters")(
        request_body(_TO_POSTS, _drop("timezone"))),
    fault("output-in-request-timezone", "created_time shifted into the request's zone")(
        response_body(_POSTS, _shift_output, with_request=True)),
    fault("guid-gt-inclusive", "guid.gt includes the cursor's own post")(
        request_body(_TO_POSTS, filters(lambda fs: [f.replace("guid.gt(", "guid.gte(") for f in fs]))),
    fault("message-ids-101", "101 message ids are accepted")(
        attr("max_message_ids", 101)),
    fault("bare-end-date-whole-day",
          "a bare end date means the end of that day, not its midnight")(
        request_body(_TO_MESSAGES, filters(
            lambda fs: [_bare.sub(r"\g<1>\g<2>T00:00:00Z\g<3>\g<4>T23:59:59Z)", f) for f in fs]))),
    fault("exclusive-as-inclusive", "'...' is treated as inclusive")(
        request_body(_TO_TOPIC, filters(lambda fs: [f.replace("...", "..") for f in fs]))),
    fault("match-any-term", "match terms are ORed, not all required")(
        request_body(_TO_TOPIC, filters(
            lambda fs: [re.sub(r"(?<=\w) (?=\w)", " OR ", f) if ".match(" in f else f for f in fs]))),
    fault("metrics-paging-without-total", "metrics paging lacks total_pages")(
        response_body(_METRICS, _metrics_paging)),
    fault("posts-not-cut", "post analytics answers are not cut at 10000")(
        attr("cap", 10**9)),
    fault("rate-limit-70", "70 requests a minute are served")(attr("per_minute", 70)),
    # The empty object the document allows only "when dimensions are used", given without them too.
    fault("metrics-paging-empty", "metrics paging is an empty object, dimensions or not")(
        response_body(_METRICS, lambda d: {**d, "paging": {}} if isinstance(d, dict) else d)),
    # Issue 35 item 5: a server that ignores the listening filters (all but the created_time window
    # the check narrows with) answers every message of the window; filter-language must fail it.
    fault("listening-filters-ignored", "listening filters other than created_time are ignored")(
        request_body(_TO_TOPIC, filters(lambda fs: [f for f in fs if f.startswith("created_time.")]))),
]
