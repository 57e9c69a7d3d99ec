"""Allowed variants of the social simulator: choices the document leaves open (gaps and the
posts-limit conflict). Every rule must pass under each; the generic variants apply as well."""

from __future__ import annotations

import re
from typing import Any

from conformance.faults.base import Variant, on_response, variant
from conformance.faults.toolkit import path, request_body, response_body
from conformance.services.social.faults import MESSAGES, attr, filters
from conformance.services.social.filters import Reading
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]


# Another cursor format: the simulator's cursors hex-encoded (cursors are opaque).
def _cursor_out(data: dict[str, Any]) -> dict[str, Any]:
    if isinstance(data.get("paging"), dict) and isinstance(data["paging"].get("next_cursor"), str):
        data["paging"]["next_cursor"] = "h" + data["paging"]["next_cursor"].encode().hex()
    return data


def _cursor_in(body: dict[str, Any]) -> dict[str, Any]:
    cursor = body.get("page_cursor")
    if isinstance(cursor, str) and cursor.startswith("h"):
        try:
            body["page_cursor"] = bytes.fromhex(cursor[1:]).decode()
        except ValueError:
            pass  # not one of ours: the simulator refuses it
    return body


def _hex_cursors(sim: Simulator) -> Simulator:
    return response_body(path(MESSAGES), _cursor_out)(request_body(path(MESSAGES, "POST"), _cursor_in)(sim))


def _page_ignored(body: dict[str, Any]) -> dict[str, Any]:
    # gap index-paging-messages: a page member ignored rather than refused.
    body.pop("page", None)
    return body


def _created_optional(body: dict[str, Any]) -> dict[str, Any]:
    # gap required-filters: messages without created_time read the whole history.
    filters = body.get("filters")
    if isinstance(filters, list) and all(isinstance(f, str) for f in filters) and filters \
            and not any(f.startswith(("created_time.", "message_id.")) for f in filters):
        body["filters"] = [*filters, "created_time.in(2000-01-01..2100-01-01)"]
    return body


def _newest_first(body: dict[str, Any]) -> dict[str, Any]:
    # gap default-order: listening rows newest first when no sort is sent.
    body.setdefault("sort", ["created_time:desc"])
    return body


def _upper_ids(request: Request, response: Response) -> Response:
    # The request id is a UUID; its hex digits may be upper case.
    if "x-svc-request-id" in response.headers:
        response.headers["x-svc-request-id"] = response.headers["x-svc-request-id"].upper()
    return response


def _tags_reversed(data: dict[str, Any]) -> dict[str, Any]:
    # The order of metadata lists is not shown.
    return {**data, "data": list(reversed(data["data"]))}


_BARE = re.compile(r"(?<![\dT:-])(\d{4}-\d{2}-\d{2})(?![\dT])")


def _bare_dates_pacific(fs: list[str]) -> list[str]:
    # gap listening-bare-dates: a bare date in a listening filter is midnight US Pacific (PST).
    return [_BARE.sub(r"\1T08:00:00Z", f) for f in fs]


def _reading(**choices: Any) -> Any:
    return attr("filter_reading", Reading(**choices))


def _empty_media(sim: Simulator) -> Simulator:
    # gap filter-values: messages without media carry visual_media [] and it counts as existing.
    sim = attr("empty_media", True)(sim)
    return attr("filter_reading", Reading(empty_exists=True))(sim)


VARIANTS: tuple[Variant, ...] = (
    variant("analytics-ends-inclusive", "'...' inclusive like '..' in analytics ranges (gap analytics-range-dots)")(
        request_body(path(r"/analytics/(profiles|posts)$", "POST"),
                     filters(lambda fs: [f.replace("...", "..") for f in fs]))),
    variant("hex-cursors", "next_cursor in another opaque format")(_hex_cursors),
    variant("messages-page-ignored", "a page member on messages ignored (gap index-paging-messages)")(
        request_body(path(MESSAGES, "POST"), _page_ignored)),
    variant("messages-created-time-optional", "created_time not required on messages (gap required-filters)")(
        request_body(path(MESSAGES, "POST"), _created_optional)),
    variant("posts-limit-default", "a posts limit above 50 honoured: 50 is a default (conflict posts-limit)")(
        attr("post_limit_caps", False)),
    variant("listening-newest-first", "listening rows newest first by default (gap default-order)")(
        request_body(path(r"/topics/t-brand/messages$", "POST"), _newest_first)),
    variant("request-id-upper-case", "X-Svc-Request-ID in upper-case hex")(on_response(_upper_ids)),
    variant("tags-reversed", "tags listed in another order")(
        response_body(path(r"/metadata/customer/tags$"), _tags_reversed)),
    variant("match-substrings", "match terms found as case-insensitive substrings (gap match-terms)")(
        _reading(match_substrings=True)),
    variant("match-or-pipe", "OR between match terms written | (gap match-terms)")(_reading(match_or=r"\s*\|\s*")),
    variant("exists-empty-array", "visual_media [] on messages without media, counted as existing (gap "
            "filter-values)")(_empty_media),
    variant("listening-bare-dates-pacific", "a bare date in a listening filter is midnight US Pacific (gap "
            "listening-bare-dates)")(
        request_body(path("/listening/topics/", "POST"), filters(_bare_dates_pacific))),
    variant("messages-bare-dates-pacific", "a bare date in a messages filter is midnight at UTC-8 (the zone of a "
            "bare date's midnight is not said)")(
        request_body(path(MESSAGES, "POST"), filters(_bare_dates_pacific))),
    variant("listening-long-topic", "a topic of 1200 messages: page 1 states 24 pages (walks read what the target "
            "states; the filter checks narrow their window)")(attr("topic_scale", 3)),
    variant("cap-states-uncut-pages", "total_pages of a cut profiles answer counts the uncut results, the pages "
            "past the cap empty (what total_pages says of a cut answer is not shown)")(attr("cap_states_uncut", True)),
)

