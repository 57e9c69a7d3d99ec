"""The one toolkit hand-written faults and variants are built from.

A fault or a variant is a wrapper around a simulator that rewrites its traffic. What services
need of it is always one of four things: pick the requests of an operation, edit a request's
JSON body, edit an answer's JSON body, answer another status, or drop a header. They are here
once, so a service package says only *what* its fault changes, never *how* traffic is edited
(services had written seven "edit the JSON body" and five "remap a status" helpers of their own).

    fault("accepts-anything", "...")(status(operation("POST", "/v1/things"), 200, when=400))
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote

from conformance.faults.base import on_request, on_response, path_pattern
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["Edit", "Match", "Wrap", "any_request", "drop_header", "operation", "operations", "path", "request_body",
           "response_body", "sent_json", "status"]

Match = Callable[[Request], bool]
Edit = Callable[[Any], Any]
Wrap = Callable[[Simulator], Simulator]


def any_request(request: Request) -> bool:
    """Every request: for a change to all answers of some status, whatever was asked."""
    return True


def operation(method: str | None, template: str) -> Match:
    """Requests to an operation: ``method`` (None: any) on the path ``template`` (``{id}`` matches
    one segment), matched at the end of the request path, as server prefixes vary."""
    pattern = path_pattern(template)
    return lambda request: (method is None or request.method == method) and bool(pattern.search(unquote(request.path)))


def operations(listed: Iterable[str]) -> Match:
    """Requests to any of the ``listed`` operations (``"POST /v1/things/{id}"``), as ``operation``."""
    matches = [operation(*op.split(" ", 1)) for op in listed]
    return lambda request: any(match(request) for match in matches)


def sent_json(request: Request) -> dict[str, Any]:
    """The JSON object a request sent ({} for an empty body or anything that is not one)."""
    try:
        data = json.loads(request.body or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def path(regex: str, method: str | None = None) -> Match:
    """Requests whose path ``regex`` finds (``re.search``), with ``method`` (None: any)."""
    compiled = re.compile(regex)
    return lambda request: (method is None or request.method == method) and bool(compiled.search(request.path))


def request_body(match: Match, edit: Edit, empty: bytes = b"") -> Wrap:
    """Edit the JSON object body of the requests ``match`` picks before the simulator sees them
    (an empty body reads as ``empty``); a body that is not a JSON object passes unchanged."""

    def before(request: Request) -> Request:
        if match(request):
            try:
                body = json.loads(request.body or empty)
            except ValueError:
                return request
            if isinstance(body, dict):
                request.body = json.dumps(edit(body)).encode()
        return request

    return on_request(before)


def response_body(match: Match, edit: Callable[..., Any], statuses: Iterable[int] = (200,), *,
                  with_request: bool = False) -> Wrap:
    """Edit the JSON answer to the requests ``match`` picks, when its status is one of
    ``statuses``; an answer that is not JSON passes unchanged. ``with_request``: ``edit`` takes
    the request too, when what it writes depends on what was asked."""
    wanted = frozenset(statuses)

    def after(request: Request, response: Response) -> Response:
        if response.status in wanted and match(request):
            try:
                body = json.loads(response.body)
            except ValueError:
                return response
            edited = edit(request, body) if with_request else edit(body)
            response.body = json.dumps(edited).encode()
        return response

    return on_response(after)


def status(match: Match, new: int, *, when: int | Iterable[int] | None = None, body: Any = None) -> Wrap:
    """Answer the requests ``match`` picks with ``new`` (only those answered ``when``, if given),
    keeping the answer's body unless ``body`` (JSON) replaces it."""
    whens = None if when is None else frozenset([when] if isinstance(when, int) else when)

    def after(request: Request, response: Response) -> Response:
        if match(request) and (whens is None or response.status in whens):
            response.status = new
            if body is not None:
                response.body = json.dumps(body).encode()
                response.headers = {**response.headers, "content-type": "application/json"}
        return response

    return on_response(after)


def drop_header(match: Match, name: str) -> Wrap:
    """Leave the header ``name`` out of the answers to the requests ``match`` picks."""
    lowered = name.lower()

    def after(request: Request, response: Response) -> Response:
        if match(request):
            response.headers = {k: v for k, v in response.headers.items() if k.lower() != lowered}
        return response

    return on_response(after)

