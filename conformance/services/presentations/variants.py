"""Allowed variants of the presentation-generation simulator: choices the document leaves open.

Every rule must pass (or honestly skip) under each: they prove the checks do not fail a
conforming server that chose differently where volume 1, part B is silent or allows two readings.
"""

from __future__ import annotations

import uuid
from typing import Any

from conformance.faults.base import Variant, on_response, variant
from conformance.faults.toolkit import operation, path, request_body, response_body
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]

_CREATES = ("/v1.0/generations", "/v1.0/generations/from-template")
_LISTS = ("/v1.0/themes", "/v1.0/folders")
_ANY_POST = path("", "POST")


def _create(request: Request) -> bool:
    return request.method == "POST" and request.path in _CREATES


def _list(request: Request) -> bool:
    return request.path in _LISTS


def _attribute(name: str, value: Any) -> Any:
    def apply(sim: Simulator) -> Simulator:
        setattr(sim, name, value)
        return sim
    return apply


def _bodiless_201(request: Request, response: Response) -> Response:
    # Conflict create-status: "a 201 is also listed without body".
    if request.method == "POST" and request.path in _CREATES and response.status == 200:
        return Response(201, {k: v for k, v in response.headers.items() if k != "content-type"}, b"")
    return response


def _uuid_id(n: int) -> str:
    # The id format is not shown: a UUID instead of gen_000001.
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"generation/{n}"))


def _null_cursor_at_end(body: Any) -> Any:
    # Gap next-cursor-on-last-page: the last page says nextCursor: null.
    return body if body.get("hasMore") else {**body, "nextCursor": None}


def _other_warning_text(body: Any) -> Any:
    # The wording of warnings is not shown: one sentence naming the parameter another way.
    if isinstance(body, dict) and "warnings" in body:
        return {**body, "warnings": "Parameter 'imageOptions.model' was ignored because of the web image source."}
    return body


def _refuse_unlisted_themes(sim: Simulator) -> Simulator:
    # "themeId: id from GET /themes": a server may refuse any other id (gap lookup-ids-validated).
    themes = set(sim.themes)  # type: ignore[attr-defined]

    def refuse(body: dict[str, Any]) -> dict[str, Any]:
        if isinstance(body.get("themeId"), str) and body["themeId"] not in themes:
            body["textMode"] = {"unlisted themeId": body["themeId"]}  # the simulator refuses this with 400
        return body
    return request_body(_create, refuse)(sim)


def _refuse_unlisted_folders(sim: Simulator) -> Simulator:
    # "folderIds: ids from GET /folders": a server may refuse any other id (gap lookup-ids-validated).
    folders = set(sim.folders)  # type: ignore[attr-defined]

    def refuse(body: dict[str, Any]) -> dict[str, Any]:
        ids = body.get("folderIds")
        if isinstance(ids, list) and any(isinstance(i, str) and i not in folders for i in ids):
            body["textMode"] = {"unlisted folderIds": ids}  # the simulator refuses this with 400
        return body
    return request_body(_create, refuse)(sim)


_POLLS = [0]


def _re_signed_export_url(body: dict[str, Any]) -> dict[str, Any]:
    # Only "completed and failed are final" is said: a final Generation may carry a freshly signed
    # exportUrl (and the account's current remaining credits) on every poll.
    _POLLS[0] += 1
    n = _POLLS[0]
    if isinstance(body.get("exportUrl"), str):
        body["exportUrl"] = body["exportUrl"].split("?", 1)[0] + f"?signature=s{n}"
    if isinstance(body.get("credits"), dict) and isinstance(body["credits"].get("remaining"), (int, float)):
        body["credits"] = {**body["credits"], "remaining": body["credits"]["remaining"] - n % 2}
    return body


def _whole_cards_only(sim: Simulator) -> Simulator:
    # Gap num-cards-per-plan: whether a fractional numCards is accepted is not shown; refused here.
    def refuse(body: dict[str, Any]) -> dict[str, Any]:
        cards = body.get("numCards")
        if isinstance(cards, float) and not cards.is_integer():
            body["numCards"] = "fractional"  # the simulator refuses a non-number with 400
        return body
    return request_body(operation("POST", _CREATES[0]), refuse)(sim)


def _few_folders(sim: Simulator) -> Simulator:
    # A workspace with three folders: one page, so a cursor walk has nothing to show.
    sim.folders = sim.folders[:3]  # type: ignore[attr-defined]
    return sim


def _slow(sim: Simulator) -> Simulator:
    # "most generations finish within 2 to 3 minutes": this one takes four, within the advice.
    sim.processing_seconds = 240.0  # type: ignore[attr-defined]
    return sim


def _queued_at(body: Any) -> Any:
    # Unused members of a JSON answer are not excluded: a create also says when it was queued.
    return {**body, "queuedAt": "2026-01-01T00:00:00Z"}


VARIANTS: list[Variant] = [
    variant("bodiless-201", "creates answer the documented 201 without a body")(on_response(_bodiless_201)),
    variant("uuid-generation-ids", "generationIds are UUIDs")(_attribute("new_id", _uuid_id)),
    variant("slow-generations", "generations take four minutes (inside the suggested ceiling)")(_slow),
    variant("null-cursor-at-end", "the last page carries nextCursor: null")(
        response_body(_list, _null_cursor_at_end)),
    variant("other-warning-text", "warnings word the ignored model differently")(
        response_body(_ANY_POST, _other_warning_text)),
    variant("refuses-unlisted-theme", "a themeId GET /themes did not list is refused with 400")(
        _refuse_unlisted_themes),
    variant("refuses-unlisted-folders", "a folderIds entry GET /folders did not list is refused with 400")(
        _refuse_unlisted_folders),
    variant("re-signed-export-url", "every poll of a final generation signs its exportUrl afresh and reports "
            "the current remaining credits")(
        response_body(path(r"^/v1\.0/generations/", "GET"), _re_signed_export_url)),
    variant("whole-cards-only", "a fractional numCards is refused with 400")(_whole_cards_only),
    variant("unknown-members-ignored", "unknown body members are ignored, not refused")(
        _attribute("refuse_unknown_members", False)),
    variant("three-folders", "the workspace has three folders (one page)")(_few_folders),
    variant("extra-create-member", "the create answer carries a member beyond generationId")(
        response_body(_ANY_POST, _queued_at)),
]
