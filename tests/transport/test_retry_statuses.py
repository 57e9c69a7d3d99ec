"""Statuses a document tells clients to retry (``x-retry-statuses``; social: 202, 500, 503) are
retried, bounded, and an answer still of one is never read as a violation of a rule that wanted a
success: a 503 storm leaves those rules unchecked (``target-transient``), not failed."""

from __future__ import annotations

from collections import Counter

import httpx
import pytest

from conformance.contract import load_contract
from conformance.contract.expect import expect_status
from conformance.errors import ContractFailure, RuleSkipped, SkipKind
from conformance.transport.model import Request, Response
from conformance.transport.session import Session


def _session(statuses: list[int], slept: list[float]) -> Session:
    answers = iter(statuses)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(next(answers), json={})

    client = httpx.Client(base_url="http://t.invalid", transport=httpx.MockTransport(handler))
    return Session(client, base_url="http://t.invalid", sleep=slept.append,
                   retry_statuses={503: "overloaded; retry"})


def test_a_retry_status_is_retried_until_an_answer() -> None:
    slept: list[float] = []
    exchange = _session([503, 503, 200], slept).send_with_backoff(Request.build("GET", "/a"))
    assert exchange.response.status == 200 and not exchange.transient
    assert slept == [1.0, 2.0]  # the target's clock: a simulator's is simulated


def test_a_storm_comes_back_transient_and_skips_what_wanted_a_success() -> None:
    slept: list[float] = []
    exchange = _session([503] * 4, slept).send_with_backoff(Request.build("GET", "/a"))
    assert exchange.response.status == 503 and exchange.transient.startswith("503 (overloaded; retry)")
    assert slept == [1.0, 2.0, 4.0]
    with pytest.raises(RuleSkipped) as skipped:
        expect_status("svc.rule", exchange, {200}, "the list")
    assert skipped.value.kind == SkipKind.TARGET_TRANSIENT
    with pytest.raises(ContractFailure):  # a refusal wanted: a 5xx is never one
        expect_status("svc.rule", exchange, {400}, "the refusal")


def test_a_status_not_listed_is_not_retried() -> None:
    slept: list[float] = []
    exchange = _session([500, 200], slept).send_with_backoff(Request.build("GET", "/a"))
    assert exchange.response.status == 500 and not exchange.transient and slept == []


def test_social_lists_what_its_document_says_to_retry() -> None:
    assert set(load_contract("social").retry_statuses()) == {202, 500, 503}
    assert load_contract("presentations").retry_statuses() == {}


def test_a_503_storm_on_social_is_not_read_as_a_broken_contract() -> None:
    """Against a social simulator answering 503 to everything, the rules that wanted an answer
    are unchecked; only those a 5xx breaks whatever the document says (a route that crashes, a
    refusal answered 5xx with no control to show the target is up) still fail."""
    from conformance.faults.base import on_response
    from conformance.runner import collect_cases, run_case
    from conformance.services import target_for
    from conformance.settings import RunSettings

    def storm(request: Request, response: Response) -> Response:
        return Response(503, {"content-type": "application/json"}, b'{"error": "overloaded"}')

    contract = load_contract("social")
    target = target_for(contract, RunSettings(target="sim"), decorate=on_response(storm))
    outcomes = [run_case(case, target) for case in collect_cases(contract)]
    kinds = Counter(o.skip_kind for o in outcomes if o.status == "skipped")
    failed = [o.case_id for o in outcomes if o.status == "failed"]
    assert kinds[SkipKind.TARGET_TRANSIENT] >= 60, kinds  # 74 rules failed here before
    assert len(failed) <= 25, failed
