"""Faults of the presentation-generation simulator: each makes it break one documented rule."""

from __future__ import annotations

import json
from typing import Any

from conformance.faults.base import Fault, fault, on_response
from conformance.faults.toolkit import operation, path, request_body, response_body, status
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["FAULTS"]

_CREATE = operation("POST", "/v1.0/generations")
_GENERATION = path(r"^/v1\.0/generations/")  # the status endpoint, by any method
_STATUS_READ = path(r"^/v1\.0/generations/", "GET")
_ANY_POST = path("", "POST")


def _drop(key: str, when_status: str | None = None) -> Any:
    def edit(body: Any) -> Any:
        if isinstance(body, dict) and (when_status is None or body.get("status") == when_status):
            body.pop(key, None)
        return body
    return edit


def _unknown_status(body: Any) -> Any:
    if isinstance(body, dict) and body.get("status") == "pending":
        body["status"] = "running"
    return body


def _coerce_num_cards(body: dict[str, Any]) -> dict[str, Any]:
    value = body.get("numCards")
    if isinstance(value, (bool, float)) or (isinstance(value, str) and value.isdigit()):
        body["numCards"] = int(value)
    return body


def _failed_becomes_pending(sim: Simulator) -> Simulator:
    failed: set[str] = set()

    def edit(body: Any) -> Any:
        if body.get("generationId") in failed:
            return {"generationId": body["generationId"], "status": "pending"}
        if body.get("status") == "failed":
            failed.add(body["generationId"])
        return body
    return response_body(_GENERATION, edit)(sim)


def _forgets_finished(request: Request, response: Response) -> Response:
    if request.path.startswith("/v1.0/generations/") and response.status == 200 and (
            json.loads(response.body).get("status") != "pending"):
        return Response.json_response(404, {"message": "no such generation"})
    return response


def _web_source_refused(body: dict[str, Any]) -> dict[str, Any]:
    image = body.get("imageOptions")
    if isinstance(image, dict) and image.get("source") == "webAllImages":
        image["source"] = "unknown-source"
    return body


def _theme_id_renamed(body: Any) -> Any:
    body["data"] = [{"themeId": i["id"], "name": i["name"]} for i in body["data"]]
    return body


FAULTS: list[Fault] = [
    fault("forgets-finished",
          "a generation that ended is answered 404 on the status endpoint")(on_response(_forgets_finished)),
    fault("omits-credits",
          "a completed generation has no credits object")(
        response_body(_STATUS_READ, _drop("credits", "completed"))),
    fault("no-web-source-warning",
          "the create response never carries warnings")(
        response_body(_ANY_POST, _drop("warnings"))),
    fault("unknown-status-value",
          "a running generation reports status 'running', outside the enum")(
        response_body(_STATUS_READ, _unknown_status)),
    # From the second review: wrong servers that weaker checks once let pass.
    fault("coerces-num-cards-string",
          'numCards "7" (a string) is quietly read as 7')(request_body(_CREATE, _coerce_num_cards)),
    fault("failed-becomes-pending",
          "a failed generation reads as pending on the next poll")(_failed_becomes_pending),
    # From the fidelity review (issue 15): deviations the stronger checks see.
    fault("web-source-refused",
          "the web image source is refused with 400 instead of ignoring the model with a warning")(
        request_body(_CREATE, _web_source_refused)),
    fault("theme-items-without-id",
          "theme items carry their id as 'themeId', not 'id'")(
        response_body(operation(None, "/v1.0/themes"), _theme_id_renamed)),
    fault("created-201-garbage",
          "generations are created with 201 and a body that is not {generationId}")(
        status(_CREATE, 201, when=200, body={"id": 42})),
]
