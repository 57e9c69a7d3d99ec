"""Helpers and paths shared by the marketplace faults (plain and OAuth)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from conformance.faults.base import FaultySimulator, json_edit, on_response
from conformance.simulators import Simulator
from conformance.transport.model import Request, Response

__all__ = [
    "APP",
    "LISTINGS",
    "TOKEN",
    "CONNECT",
    "_RECEIPTS",
    "_CREATE",
    "_IMAGE",
    "_FOREVER",
    "_query",
    "_form",
    "_ok_json",
    "_results",
    "_is_listings",
    "_is_token",
    "_grants",
]


APP = "/v3/application"
LISTINGS = APP + "/listings"
TOKEN = "/v3/public/oauth/token"
CONNECT = "/oauth/connect"
_RECEIPTS = re.compile(r"^/v3/application/shop/[^/]+/receipts$")
_CREATE = re.compile(r"^/v3/application/shop/[^/]+/listings$")
_IMAGE = re.compile(r"^/v3/application/shop/[^/]+/listings/[^/]+/images/[^/]+$")
_FOREVER = 10.0 ** 12


def _query(request: Request, edit: Callable[[dict[str, str]], dict[str, str]]) -> Request:
    request.query = list(edit(dict(request.query)).items())
    return request


def _form(request: Request) -> dict[str, str]:
    try:
        return dict(parse_qsl(request.body.decode("utf-8"), keep_blank_values=True))
    except UnicodeDecodeError:
        return {}


def _ok_json(pred: Callable[[Request], bool], edit: Callable[[Any], Any]) -> Callable[[Simulator], Simulator]:
    """Edit the JSON body of 2xx responses to requests ``pred`` selects."""
    def after(request: Request, response: Response) -> Response:
        if pred(request) and 200 <= response.status < 300:
            response.body = json_edit(response.body, edit)
        return response
    return on_response(after)


def _results(edit: Callable[[dict[str, Any]], None]) -> Callable[[Any], Any]:
    def run(body: Any) -> Any:
        for item in body.get("results", []) if isinstance(body, dict) else []:
            edit(item)
        return body
    return run


def _is_listings(request: Request) -> bool:
    return request.method == "GET" and request.path == LISTINGS


def _is_token(request: Request, grant: str | None = None) -> bool:
    return request.path == TOKEN and (grant is None or _form(request).get("grant_type") == grant)


def _grants(attr: str, pred: Callable[[Request], bool]) -> Callable[[Simulator], Simulator]:
    """After matching requests, every grant in ``sim.oauth.<attr>`` lives (practically) forever."""
    def apply(sim: Simulator) -> Simulator:
        def after(request: Request, response: Response) -> Response:
            table = getattr(sim.oauth, attr)  # type: ignore[attr-defined]
            for key, grant in table.items():
                table[key] = dataclasses.replace(grant, expires=_FOREVER)
            return response
        return FaultySimulator(sim, after=lambda req, resp: after(req, resp) if pred(req) else resp)  # type: ignore[return-value]
    return apply
