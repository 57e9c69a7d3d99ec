"""Each variant family a gap may allow (faults/families.py), built from an allows entry as the core
builds it: what it changes, what it leaves alone, and the one-line error a bad entry gets."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.errors import ContractFileError
from conformance.transport.model import Request, Response
from tests.faults.gap_entry import Stub, answering, built


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
    return Response.json_response(status, body, headers)


GET_X = Request.build("GET", "/v1/x/7")


def test_other_status_remaps_only_the_named_status_in_scope() -> None:
    after = answering({"family": "other-status", "status": 403, "instead_of": 401, "paths": "^/v1/", "method": "GET"})
    assert after(GET_X, _json(401, {})).status == 403
    assert after(GET_X, _json(404, {})).status == 404  # another status
    assert after(Request.build("POST", "/v1/x/7"), _json(401, {})).status == 401  # another method
    assert after(Request.build("GET", "/oauth"), _json(401, {})).status == 401  # outside paths


def test_other_status_narrowed_by_the_answer_body_and_with_a_body() -> None:
    after = answering({"family": "other-status", "status": 401, "instead_of": [403], "body_matches": "provisioned",
                       "body": {"message": "no"}})
    changed = after(GET_X, _json(403, {"message": "not provisioned"}))
    assert (changed.status, changed.json()) == (401, {"message": "no"})
    assert after(GET_X, _json(403, {"message": "other data"})).status == 403


def test_other_status_by_operation_template() -> None:
    after = answering({"family": "other-status", "status": 400, "instead_of": 404,
                       "operations": ["GET /x/{id}"]})
    assert after(GET_X, _json(404, {})).status == 400
    assert after(Request.build("GET", "/v1/x/7/parts"), _json(404, {})).status == 404


def test_bodiless_answers_drop_body_and_content_type() -> None:
    after = answering({"family": "bodiless-answers", "status": 204, "method": "DELETE"})
    gone = after(Request.build("DELETE", "/v1/x/7"), _json(200, {"deleted": True}, {"x-trace": "1"}))
    assert (gone.status, gone.body, gone.headers) == (204, b"", {"x-trace": "1"})
    assert after(GET_X, _json(200, {"id": 7})).json() == {"id": 7}
    assert after(Request.build("DELETE", "/v1/x/7"), _json(404, {})).status == 404  # not a success


def test_bodiless_answers_add_the_headers_pointing_at_the_answer() -> None:
    after = answering({"family": "bodiless-answers", "status": 202, "method": "POST",
                       "headers": {"Location": "/jobs/1"}})
    job = after(Request.build("POST", "/v1/jobs"), _json(200, {"id": 1}))
    assert (job.status, job.body, job.header("location")) == (202, b"", "/jobs/1")
    with pytest.raises(ContractFileError, match="'headers' must map header names to text values"):
        answering({"family": "bodiless-answers", "status": 202, "headers": ["Location"]})


def test_other_media_type_keeps_the_body() -> None:
    after = answering({"family": "other-media-type", "content_type": "application/json",
                       "instead_of": "^application/x-ndjson"})
    answer = after(GET_X, Response(200, {"content-type": "application/x-ndjson"}, b'{"a":1}\n'))
    assert (answer.header("content-type"), answer.body) == ("application/json", b'{"a":1}\n')
    assert after(GET_X, Response(200, {"content-type": "text/csv"}, b"a")).header("content-type") == "text/csv"


def test_text_members_in_answers_and_taken_back_in_requests() -> None:
    wrap = built({"family": "text-members", "members": ["*_id"], "taken_back": True, "paths": "^/v1/"})
    sim = wrap(Stub(lambda r: _json(200, {"link_id": 7, "name": 3, "redirects": [{"offer_id": 2, "on": True}]})))
    answer = sim.handle(Request.build("POST", "/v1/x", json_body={"link_id": "7", "name": "3"}))
    assert answer.json() == {"link_id": "7", "name": 3, "redirects": [{"offer_id": "2", "on": True}]}
    assert json.loads(sim.seen[0].body) == {"link_id": 7, "name": "3"}  # only the named members read back
    other = sim.handle(Request.build("POST", "/v2/x", json_body={"link_id": "7"}))
    assert other.json()["link_id"] == 7 and json.loads(sim.seen[1].body) == {"link_id": "7"}


def test_text_members_with_a_format_at_an_anchored_path() -> None:
    after = answering({"family": "text-members", "members": ["$.*.*"], "format": "{:.2f}"})
    assert after(GET_X, _json(200, {"card": {"a": 1, "b": 2.5}, "n": 4})).json() == {
        "card": {"a": "1.00", "b": "2.50"}, "n": 4}
    assert after(GET_X, _json(201, {"card": {"a": 1}})).json() == {"card": {"a": 1}}  # statuses default 200


def test_whole_numbers_as_integers() -> None:
    after = answering({"family": "whole-numbers-as-integers", "members": ["$.*.*"]})
    assert after(GET_X, Response(200, {}, b'{"c": {"a": 2.0, "b": 2.5}}')).body == b'{"c": {"a": 2, "b": 2.5}}'


def test_extra_absent_and_reversed_members() -> None:
    body = {"data": [{"port": 1, "cpe": "x"}, {"port": 2}], "next": "c"}
    extra = answering({"family": "extra-members", "members": {"vulns": {}}, "at": ["$.data.*"]})
    assert extra(GET_X, _json(200, body)).json() == {"data": [{"port": 1, "cpe": "x", "vulns": {}},
                                                              {"port": 2, "vulns": {}}], "next": "c"}
    root = answering({"family": "extra-members", "members": {"queuedAt": "t"}})
    assert root(GET_X, _json(200, {"id": 1})).json() == {"id": 1, "queuedAt": "t"}
    absent = answering({"family": "absent-members", "members": ["cpe", "$.next"]})
    assert absent(GET_X, _json(200, body)).json() == {"data": [{"port": 1}, {"port": 2}]}
    reverse = answering({"family": "reversed-items", "members": ["$.data"]})
    assert [d["port"] for d in reverse(GET_X, _json(200, body)).json()["data"]] == [2, 1]


@pytest.mark.parametrize(("spelling", "naive", "stamp", "expected"), [
    ("zero-offset", False, "2027-01-15T08:00:00Z", "2027-01-15T08:00:00+00:00"),
    ("zero-offset", False, "2027-01-15T08:00:00.5Z", "2027-01-15T08:00:00.5+00:00"),
    ("zero-offset", False, "2027-01-15T08:00:00", "2027-01-15T08:00:00"),  # no offset: not known to be UTC
    ("zero-offset", True, "2027-01-15T08:00:00.123", "2027-01-15T08:00:00.123+00:00"),
    ("fraction-zero-offset", False, "2027-01-15T08:00:00Z", "2027-01-15T08:00:00.250+00:00"),
    ("basic", False, "2027-01-15T08:00:00Z", "20270115T080000Z"),
    ("comma-fraction-basic-offset", False, "2027-01-15T08:00:00Z", "2027-01-15T08:00:00,5+0000"),
    ("basic", False, "2027-01-15T08:00:00+02:00", "2027-01-15T08:00:00+02:00"),  # not UTC: left alone
])
def test_timestamp_spellings(spelling: str, naive: bool, stamp: str, expected: str) -> None:
    after = answering({"family": "timestamp-spelling", "spelling": spelling, "naive_utc": naive})
    assert after(GET_X, _json(200, {"at": stamp, "name": "2027"})).json() == {"at": expected, "name": "2027"}


def test_timestamp_spelling_of_named_members_only() -> None:
    after = answering({"family": "timestamp-spelling", "spelling": "basic", "members": ["createDate"]})
    answer = after(GET_X, _json(200, {"createDate": "2027-01-15T08:00:00Z", "updateDate": "2027-01-15T08:00:00Z"}))
    assert answer.json() == {"createDate": "20270115T080000Z", "updateDate": "2027-01-15T08:00:00Z"}


def test_header_families() -> None:
    echo = answering({"family": "echoed-header", "header": "X-Request-Id"})
    asked = Request.build("GET", "/v1/x", headers={"x-request-id": "abc"})
    assert echo(asked, _json(200, {})).header("x-request-id") == "abc"
    assert echo(GET_X, _json(200, {})).header("x-request-id") is None


def test_plain_text_errors_leave_successes_alone() -> None:
    after = answering({"family": "plain-text-errors"})
    assert after(GET_X, _json(404, {"m": 1})).body == b"error 404"
    assert after(GET_X, _json(200, {"m": 1})).json() == {"m": 1}


@pytest.mark.parametrize(("entry", "says"), [
    ({"family": "other-status", "status": 403}, "needs the param 'instead_of'"),
    ({"family": "other-status", "status": "403", "instead_of": 401}, "'status' must be an HTTP status"),
    ({"family": "other-status", "status": 403, "instead_of": 401, "path": "^/v1"}, "unknown param path"),
    ({"family": "other-status", "status": 403, "instead_of": 401, "paths": "(["}, "'paths' is not a regular"),
    ({"family": "other-status", "status": 403, "instead_of": 401, "operations": ["/x"]}, "'METHOD /path'"),
    ({"family": "text-members", "members": ["a..b"]}, "not a member pattern"),
    ({"family": "text-members", "members": ["a"], "format": "id-{}", "taken_back": True}, "'taken_back' needs"),
    ({"family": "text-members", "members": ["a"], "format": "{:q}"}, "'format' is not a format"),
    ({"family": "timestamp-spelling", "spelling": "roman"}, "'spelling' must be one of"),
    ({"family": "extra-members", "members": ["a"]}, "'members' must be a non-empty mapping"),
])
def test_a_bad_entry_is_one_line_naming_the_gap(entry: dict[str, Any], says: str) -> None:
    with pytest.raises(ContractFileError, match="^test.gap.entry: allows\\[0\\]") as raised:
        built(entry)
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_letter_case_of_named_members() -> None:
    after = answering({"family": "letter-case", "members": ["txHash", "address"], "case": "mixed"})
    answer = after(GET_X, _json(200, {"txHash": "0xabcdef", "address": 7, "name": "abc"}))
    assert answer.json() == {"txHash": "0xaBcDeF", "address": 7, "name": "abc"}


def test_statuses_take_a_class() -> None:
    after = answering({"family": "reversed-items", "members": ["$"], "statuses": ["2xx", 404]})
    assert after(GET_X, _json(201, [1, 2])).json() == [2, 1]
    assert after(GET_X, _json(404, [1, 2])).json() == [2, 1]
    assert after(GET_X, _json(400, [1, 2])).json() == [1, 2]
    with pytest.raises(ContractFileError, match="a class such as"):
        built({"family": "reversed-items", "members": ["$"], "statuses": ["2XX"]})


def test_other_values_rename_listed_values_and_optionally_the_rest() -> None:
    after = answering({"family": "other-values", "members": ["$.status"], "values": {0: "draft", 1: "running"},
                       "otherwise": "other"})
    assert after(GET_X, _json(200, {"status": 1, "n": 1})).json() == {"status": "running", "n": 1}
    assert after(GET_X, _json(200, {"status": 7})).json() == {"status": "other"}
    assert after(GET_X, _json(200, {"status": True})).json() == {"status": True}  # not the number 1
    kept = answering({"family": "other-values", "members": ["$.status"], "values": {0: "draft"}})
    assert kept(GET_X, _json(200, {"status": 7})).json() == {"status": 7}


def test_renamed_members_keep_their_place() -> None:
    after = answering({"family": "renamed-members", "names": {"data": "items"}, "paths": "^/v1/x/"})
    assert list(after(GET_X, _json(200, {"data": [{"data": 1}], "next": None})).json()) == ["items", "next"]
    assert after(GET_X, _json(200, {"data": [{"data": 1}]})).json() == {"items": [{"data": 1}]}  # root only
    assert after(Request.build("GET", "/v2"), _json(200, {"data": []})).json() == {"data": []}


def test_other_member_values_replace_only_members_present() -> None:
    after = answering({"family": "other-member-values", "members": {"limits": {"a": -1}, "extra": 1}})
    assert after(GET_X, _json(200, {"limits": {"a": 5}, "n": 1})).json() == {"limits": {"a": -1}, "n": 1}
    assert after(GET_X, _json(404, {"limits": {"a": 5}})).json() == {"limits": {"a": 5}}


def test_enveloped_answers() -> None:
    after = answering({"family": "enveloped-answers", "beside": {"meta": {"version": 1}}, "statuses": "2xx"})
    assert after(GET_X, _json(201, [1])).json() == {"data": [1], "meta": {"version": 1}}
    assert after(GET_X, _json(400, {"message": "m"})).json() == {"message": "m"}
    assert after(GET_X, Response(200, {"content-type": "text/csv"}, b"a,b")).body == b"a,b"  # not JSON


def test_request_defaults_fill_only_missing_members_of_the_named_operations() -> None:
    wrap = built({"family": "request-defaults", "defaults": {"POST /v1/mail": {"email": "x@y", "n": 1}}})
    sim = wrap(Stub(lambda r: _json(200, {})))
    sim.handle(Request.build("POST", "/v1/mail", json_body={"n": 2}))
    sim.handle(Request.build("POST", "/v1/mail"))
    sim.handle(Request.build("POST", "/v1/other", json_body={"n": 2}))
    assert [json.loads(r.body or b"null") for r in sim.seen] == [{"email": "x@y", "n": 2}, {"email": "x@y", "n": 1},
                                                                 {"n": 2}]
    with pytest.raises(ContractFileError, match="'defaults' keys are 'METHOD /path'"):
        built({"family": "request-defaults", "defaults": {"/v1/mail": {"email": "x"}}})


def test_members_taken_without_types_are_not_read_in_scope_only() -> None:
    # No types: the members are left out whatever they hold (a metrics endpoint that ignores fields).
    wrap = built({"family": "members-taken", "members": ["$.fields"], "paths": "/metrics$", "method": "POST"})
    sim = wrap(Stub(lambda r: _json(200, {})))
    sim.handle(Request.build("POST", "/v1/t/metrics", json_body={"fields": 7, "metrics": ["likes"]}))
    sim.handle(Request.build("POST", "/v1/t/messages", json_body={"fields": 7}))
    sim.handle(Request.build("POST", "/v1/t/metrics", content=b"not json"))
    assert [r.body for r in sim.seen][1:] == [b'{"fields":7}', b"not json"]  # out of scope, not JSON: as sent
    assert json.loads(sim.seen[0].body) == {"metrics": ["likes"]}
    with pytest.raises(ContractFileError, match="'members' must be a string or a non-empty list"):
        built({"family": "members-taken", "members": []})


def test_extra_columns_widen_csv_and_json_lines_of_successes_in_scope() -> None:
    after = answering({"family": "extra-columns", "columns": {"revenue": "0", "id": "never"}, "paths": "/export$"})
    export = Request.build("POST", "/v1/export")
    csv_answer = after(export, Response(200, {"content-type": "text/csv"}, b"id,status\nc1,ok\n"))
    assert csv_answer.body == b"id,status,revenue\nc1,ok,0\n"
    lines = after(export, Response(200, {"content-type": "application/x-ndjson"}, b'{"id": "c1"}\n'))
    assert [json.loads(line) for line in lines.body.splitlines()] == [{"id": "c1", "revenue": "0"}]
    assert after(GET_X, Response(200, {}, b"id\nc1\n")).body == b"id\nc1\n"
    assert after(export, Response(400, {}, b"id\n")).body == b"id\n"
