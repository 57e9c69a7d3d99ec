"""The variant families over what a request body may hold (faults/request_families.py) and
``null-members``, built from an allows entry as the core builds it: what each changes, what it
leaves alone, and the one-line error a bad entry gets."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.errors import ContractFileError
from conformance.transport.model import Request, Response
from tests.faults.gap_entry import Stub, answering, built

NOW = datetime(2027, 1, 15, 8, 0, tzinfo=UTC)


def _stub() -> Stub:
    stub = Stub(lambda request: Response.json_response(200, {"ok": True}))
    stub.clock = SimpleNamespace(now=NOW.timestamp)  # type: ignore[attr-defined]
    return stub


def _post(path: str, body: dict[str, Any]) -> Request:
    return Request.build("POST", path, json_body=body)


def test_values_refused_answers_before_the_server_sees_the_request() -> None:
    stub = _stub()
    sim = built({"family": "values-refused", "members": ["$.options.language"], "accepted": ["en"],
                 "paths": "^/v1/"})(stub)
    refused = sim.handle(_post("/v1/gen", {"options": {"language": "xx-klingon"}}))
    assert refused.status == 400 and "xx-klingon" in refused.json()["message"] and not stub.seen
    assert sim.handle(_post("/v1/gen", {"options": {"language": "en"}})).status == 200
    assert sim.handle(_post("/v1/gen", {"text": "no options"})).status == 200  # nothing picked
    assert sim.handle(_post("/v2/gen", {"options": {"language": "xx"}})).status == 200  # out of scope


def test_values_refused_by_a_list_of_refused_values_and_status() -> None:
    sim = built({"family": "values-refused", "members": ["campaign_status"], "refused": ["deleted"],
                 "status": 422})(_stub())
    assert sim.handle(_post("/links", {"campaign_status": "deleted"})).status == 422
    assert sim.handle(_post("/links", {"campaign_status": "paused"})).status == 200


def test_the_refusal_is_the_simulators_own_error_with_its_headers() -> None:
    class Headed(Stub):
        def error_response(self, err: Any) -> Response:
            return Response.json_response(err.status, {"error": err.message})

        def finish(self, request: Request, response: Response) -> Response:
            response.headers = {**response.headers, "x-ratelimit-remaining": "9"}
            return response

    sim = built({"family": "values-refused", "members": ["prompt"], "refused": [""]})(
        Headed(lambda request: Response.json_response(200, {})))
    answer = sim.handle(_post("/t", {"prompt": ""}))
    assert (answer.status, answer.header("x-ratelimit-remaining"), list(answer.json())) == (400, "9", ["error"])


@pytest.mark.parametrize(("entry", "message"), [
    ({"members": ["a"]}, "exactly one of 'accepted'"),
    ({"members": ["a"], "accepted": ["x"], "refused": ["y"]}, "exactly one of 'accepted'"),
    ({"members": ["a"], "accepted": []}, "'accepted' must be a non-empty list"),
    ({"members": ["a"], "refused": ["x"], "status": 500}, "'status' must be a 4xx status"),
])
def test_values_refused_entry_mistakes_are_one_line(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(ContractFileError, match=message):
        built({"family": "values-refused", **entry})


@pytest.mark.parametrize(("to", "status"), [
    ("2027-01-15 12:30:00", 400),  # later today
    ("2027-01-16", 400),  # tomorrow
    ("2027-01-15T09:00:00+02:00", 200),  # 07:00 UTC, past
    ("2027-01-15", 200),  # today, a bare date
    ("2027-01-14 23:59:59", 200),
    ("not a date", 200),  # the server's own validation answers it
])
def test_future_dates_refused_reads_the_servers_clock(to: str, status: int) -> None:
    sim = built({"family": "future-dates-refused", "members": ["$.to"]})(_stub())
    assert sim.handle(_post("/report", {"from": "2027-01-01", "to": to})).status == status


def test_members_taken_leaves_out_values_of_the_named_types() -> None:
    stub = _stub()
    sim = built({"family": "members-taken", "members": ["$.redirects.*.ruleset"], "types": ["string", "integer"]})(stub)
    sim.handle(_post("/links", {"redirects": [{"ruleset": "17", "v": 1}, {"ruleset": {"countries": []}},
                                              {"ruleset": 3}]}))
    assert json.loads(stub.seen[0].body) == {"redirects": [{"v": 1}, {"ruleset": {"countries": []}}, {}]}
    with pytest.raises(ContractFileError, match="'types' are JSON type names"):
        built({"family": "members-taken", "members": ["a"], "types": ["text"]})


def test_zoned_request_times_hand_the_server_the_same_instants_in_utc() -> None:
    stub = _stub()
    sim = built({"family": "zoned-request-times", "members": ["$.from", "$.to"], "offset_hours": -5})(stub)
    sim.handle(_post("/clicks", {"from": "2027-01-01 00:00:00", "to": "2027-01-02T22:00:00", "day": "2027-01-01"}))
    sim.handle(_post("/clicks", {"from": "2027-01-01", "to": "0000-01-01 00:00:00"}))  # bare date, no such year
    assert json.loads(stub.seen[0].body) == {"from": "2027-01-01 05:00:00", "to": "2027-01-03T03:00:00",
                                             "day": "2027-01-01"}
    assert json.loads(stub.seen[1].body) == {"from": "2027-01-01", "to": "0000-01-01 00:00:00"}
    with pytest.raises(ContractFileError, match="'offset_hours' must be a number from -12 to 14"):
        built({"family": "zoned-request-times", "members": ["a"], "offset_hours": 20})


def test_null_members_answer_null_for_each_key_picked() -> None:
    after = answering({"family": "null-members", "members": ["$.*"], "paths": "^/dns/resolve$"})
    resolve = Request.build("GET", "/dns/resolve")
    assert after(resolve, Response.json_response(200, {"a.example": "192.0.2.1"})).json() == {"a.example": None}
    assert after(resolve, Response.json_response(404, {"error": "x"})).json() == {"error": "x"}  # not a 200
    other = Request.build("GET", "/dns/reverse")
    assert after(other, Response.json_response(200, {"192.0.2.1": ["a"]})).json() == {"192.0.2.1": ["a"]}
