"""The core enum check with ``array_items`` (checks/boundary.py): a member that is an array whose
items the enum lists gets each listed value sent as a one-item array (accepted) and values off
the list (refused, after the listed ones). Social's metrics dimensions carry it; the social
simulator is the server, edited per test.
"""

from __future__ import annotations

import json

import pytest

from conformance.contract import load_contract
from conformance.faults.base import on_request, on_response
from conformance.runner import FAILED, PASSED, collect_cases, run_case
from conformance.services import target_for
from conformance.settings import RunSettings
from conformance.transport.model import Request, Response

RULE = "social.listening.dimensions"


def _metrics(request: Request) -> bool:
    return request.method == "POST" and request.path.endswith("/metrics")


def _dimensions(request: Request) -> list[str]:
    return list(json.loads(request.body or b"{}").get("dimensions") or [])


def _unlisted_dropped(request: Request) -> Request:
    # A lenient server: dimensions it does not know are left out, not refused.
    if _metrics(request):
        body = json.loads(request.body)
        body["dimensions"] = [d for d in _dimensions(request) if d in ("network", "language")] or ["network"]
        request.body = json.dumps(body).encode()
    return request


def _listed_refused(request: Request, response: Response) -> Response:
    # A server refusing one listed dimension.
    if _metrics(request) and "sentiment" in _dimensions(request):
        return Response(400, response.headers, b'{"data": [], "error": "unknown dimension"}')
    return response


def _refused_as_422(request: Request, response: Response) -> Response:
    # The document names no status for an unlisted dimension: 422 is a refusal as 400 is.
    if _metrics(request) and response.status == 400:
        return Response(422, response.headers, response.body)
    return response


def _verdict(decorate: object = None) -> str:
    contract = load_contract("social")
    case = next(c for c in collect_cases(contract) if c.rule.id == RULE)
    target = target_for(contract, RunSettings(), decorate=decorate)  # type: ignore[arg-type]
    return run_case(case, target).status


def _sent() -> list[list[str]]:
    seen: list[list[str]] = []

    def record(request: Request) -> Request:
        if _metrics(request):
            seen.append(_dimensions(request))
        return request

    assert _verdict(on_request(record)) == PASSED
    return seen


def test_the_case_is_the_core_enum_check_with_array_items() -> None:
    case = next(c for c in collect_cases(load_contract("social")) if c.rule.id == RULE)
    assert case.check is not None and case.check.core
    assert case.rule.params.get("array_items") is True


def test_each_value_goes_as_a_one_item_array() -> None:
    sent = _sent()
    listed = load_contract("social").where_schema("POST /{customer_id}/listening/topics/{topic_id}/metrics",
                                                  "body.dimensions")["items"]["enum"]
    assert all(len(dims) == 1 for dims in sent)
    assert [d[0] for d in sent[:len(listed)]] == listed  # the listed values first: the controls
    assert "zz-not-listed" in [d[0] for d in sent[len(listed):]]


@pytest.mark.parametrize(("decorate", "verdict"), [
    (None, PASSED),
    (on_response(_refused_as_422), PASSED),
    (on_request(_unlisted_dropped), FAILED),
    (on_response(_listed_refused), FAILED),
])
def test_verdicts(decorate: object, verdict: str) -> None:
    assert _verdict(decorate) == verdict
