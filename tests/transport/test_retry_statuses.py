"""Statuses a document tells clients to retry (``x-retry-statuses``; social: 202, 500, 503) are
retried, bounded, and an answer still of one is never read as a violation of a rule that wanted a
success: a storm leaves every rule unchecked (``target-transient``), not failed, and a server that
answers one first and the real answer when asked again passes every rule (issue 35 item 7)."""

from __future__ import annotations

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
        status = next(answers)
        return httpx.Response(status, headers={"retry-after": "5"} if status == 429 else None, json={})

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


def test_a_429_after_a_retried_status_is_backed_off_and_a_retry_status_after_it_retried() -> None:
    slept: list[float] = []
    exchange = _session([503, 429, 503, 200], slept).send_with_backoff(Request.build("GET", "/a"))
    assert exchange.response.status == 200 and not exchange.transient
    assert slept == [1.0, 5.0, 1.0]  # each kind waited as it asks: the retry status, then Retry-After


def test_sent_without_back_off_a_retry_status_is_retried_at_once_and_a_429_handed_back() -> None:
    slept: list[float] = []
    session = _session([503, 503, 200, 429], slept)
    assert session.send_settled(Request.build("GET", "/a")).response.status == 200
    assert session.send_settled(Request.build("GET", "/a")).response.status == 429
    assert slept == []  # a rate check's window is not moved


def test_a_status_not_listed_is_not_retried() -> None:
    slept: list[float] = []
    exchange = _session([500, 200], slept).send_with_backoff(Request.build("GET", "/a"))
    assert exchange.response.status == 500 and not exchange.transient and slept == []


def test_social_lists_what_its_document_says_to_retry() -> None:
    assert set(load_contract("social").retry_statuses()) == {202, 500, 503}
    assert load_contract("presentations").retry_statuses() == {}


@pytest.mark.parametrize("status", [503, 202])
def test_a_storm_on_social_leaves_every_rule_unchecked(status: int) -> None:
    """Against a social simulator answering a retry status to everything, no rule is failed or
    passed: 74 failed here before the session retried, 18 before every check path did (route
    crashes, derived controls, rate checks); under 202, 24 failed and 18 passed on nothing."""
    from conformance.faults.base import on_response
    from conformance.runner import collect_cases, run_case
    from conformance.services import target_for
    from conformance.settings import RunSettings

    def storm(request: Request, response: Response) -> Response:
        kept = {k: v for k, v in response.headers.items() if k.startswith("x-svc-")}
        return Response(status, {**kept, "content-type": "application/json"}, b'{"data": [], "error": "retry"}')

    contract = load_contract("social")
    target = target_for(contract, RunSettings(target="sim"), decorate=on_response(storm))
    outcomes = [run_case(case, target) for case in collect_cases(contract)]
    assert {(o.status, o.skip_kind) for o in outcomes} == {("skipped", SkipKind.TARGET_TRANSIENT)}


def test_a_server_answering_a_retry_status_first_passes_every_rule() -> None:
    """Social's allowed variant retry-then-answer (gap retry-statuses): one request in two answered
    503, 202 or 500 unserved, the next served. It failed the rate window before (a retry's wait moved
    it) and left a paging walk rate-limited (a 429 after a retry went unretried)."""
    from conformance.runner import collect_cases, run_case
    from conformance.services import target_for
    from conformance.settings import RunSettings

    contract = load_contract("social")
    target = target_for(contract, RunSettings(target="sim", fault="retry-then-answer"))
    outcomes = [run_case(case, target) for case in collect_cases(contract)]
    assert [(o.case_id, o.status) for o in outcomes if o.status != "passed"] == []
