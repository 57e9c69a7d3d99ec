"""Wrappers the social faults and variants are built from (paths are regular expressions)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from conformance.faults.base import json_edit, on_response, request_json_edit
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = ["MESSAGES_PATH", "Edit", "attr", "body_of", "default", "drop", "filters", "on_path", "rows_edit"]

MESSAGES_PATH = r"^/v1/[^/]+/messages"  # inbox messages, not a topic's

Edit = Callable[[dict[str, Any]], dict[str, Any]]


def on_path(suffix: str, edit: Edit) -> Callable[[Simulator], Simulator]:
    """Rewrite the JSON body of POSTs whose path ends with ``suffix`` (a regular expression)."""
    return request_json_edit(lambda r: r.method == "POST" and re.search(suffix + "$", r.path) is not None, edit)


def attr(name: str, value: Any) -> Callable[[Simulator], Simulator]:
    def apply(sim: Simulator) -> Simulator:
        setattr(sim, name, value)
        return sim
    return apply


def body_of(request: Request) -> dict[str, Any]:
    try:
        data = json.loads(request.body or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def rows_edit(suffix: str, edit: Callable[[Request, dict[str, Any]], dict[str, Any]],
              statuses: tuple[int, ...] = (200,)) -> Callable[[Simulator], Simulator]:
    """Rewrite the JSON answer of requests whose path ends with ``suffix`` (a regular expression)."""
    def after(request: Request, response: Response) -> Response:
        if re.search(suffix + "$", request.path) and response.status in statuses:
            response.body = json_edit(response.body, lambda data: edit(request, data))
        return response
    return on_response(after)


def filters(edit: Callable[[list[str]], list[str]]) -> Edit:
    def apply(body: dict[str, Any]) -> dict[str, Any]:
        if isinstance(body.get("filters"), list) and all(isinstance(f, str) for f in body["filters"]):
            body["filters"] = edit(body["filters"])
        return body
    return apply


def default(member: str, value: Any) -> Edit:
    def apply(body: dict[str, Any]) -> dict[str, Any]:
        body.setdefault(member, value)
        return body
    return apply


def drop(member: str) -> Edit:
    def apply(body: dict[str, Any]) -> dict[str, Any]:
        body.pop(member, None)
        return body
    return apply
