"""Allowed variants of the internet-scanning simulator: choices volume 2, part B leaves open.

Every rule must pass (or honestly skip) under each: they prove the checks do not fail a
conforming server that chose differently where the document is silent or allows two readings.
"""

from __future__ import annotations

from typing import Any

from conformance.faults.base import FaultySimulator, Variant, json_edit, on_response, variant
from conformance.faults.toolkit import path, request_body, response_body, status
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]

_SCAN = path(r"/scan$", "POST")


def _ips_object_refused(body: dict[str, Any]) -> dict[str, Any]:
    # Conflict ips-object, second reading: the mapping is the whole body; {ips: {...}} is refused.
    if isinstance(body.get("ips"), dict):
        return {"ips": "not-an-ip"}  # the simulator refuses it with {error}
    return body


def _error_detail(request: Request, response: Response) -> Response:
    # Errors: "{error: string}"; members beside error are not excluded.
    # (Not the toolkit's response_body(): what is written is the answer's own status.)
    if response.status != 200 and response.body:
        response.body = json_edit(response.body, lambda b: {**b, "code": response.status}
                                  if isinstance(b, dict) else b)
    return response


_BOOLEANS = ("history", "minify", "notify")


def _worded_boolean(request: Request) -> bool:
    # Gap boolean-spelling: a target that spells booleans 1/0 and refuses true/false.
    return any(k in _BOOLEANS and v in ("true", "false") for k, v in request.query)


def _booleans_as_digits(sim: Simulator) -> Simulator:
    wrapped = status(_worded_boolean, 400, body={"error": "booleans are 1 or 0"})(sim)
    # The target's setting says so, as a user would set CONFORMANCE_SCANNING_BOOLEAN_TRUE=1.
    wrapped.credentials = {**sim.credentials, "BOOLEAN_TRUE": "1"}  # type: ignore[misc]
    return wrapped


def _credits_left_before(body: Any) -> Any:
    # Gap credits-left-meaning: credits_left counted before the scan's own cost.
    return {**body, "credits_left": body["credits_left"] + body["count"]}


def _refused_scans_charged(sim: Simulator) -> Simulator:
    # Gap refused-scan-cost: a refused scan of a paid account still costs one scan credit.
    def after(request: Request, response: Response) -> Response:
        account = sim.accounts.get(request.params.get("key", ""))  # type: ignore[attr-defined]
        if (_SCAN(request) and 400 <= response.status < 500
                and account is not None and account.plan.paid and account.scan_credits > 0):
            account.scan_credits -= 1
        return response
    return FaultySimulator(sim, after=after)  # type: ignore[return-value]


VARIANTS: list[Variant] = [
    variant("booleans-as-digits", "boolean query parameters are spelled 1/0; true/false are refused (400)")(
        _booleans_as_digits),
    variant("ips-object-as-body", "the scan mapping is only accepted as the whole body")(
        request_body(_SCAN, _ips_object_refused)),
    variant("error-with-code", "error bodies carry a code beside error")(on_response(_error_detail)),
    variant("credits-left-before-scan", "a scan's credits_left counts the credits before the scan (gap "
            "credits-left-meaning)")(response_body(_SCAN, _credits_left_before)),
    variant("refused-scans-charged", "a refused scan of a paid account costs one scan credit (gap "
            "refused-scan-cost)")(_refused_scans_charged),
]
