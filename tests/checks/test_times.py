"""The core checks ``times-in-utc`` and ``date-forms`` against tiny in-test servers.

times-in-utc passes a server answering UTC whatever the request's zone (also spelled "+00:00"),
fails one writing the zone's offset (the same instant) or the zone's clock time as UTC (another
instant), and is not exercised without rows. date-forms passes a server taking every form and
fails one refusing one form. The derived faults ``time-offset`` and ``date-form-refused`` make the
conforming servers fail."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from conformance.checks.times import date_forms, in_utc, times_in_utc
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.faults.reads import read_faults, strftime_regex
from conformance.transport.model import Request, Response
from tests.checks.server import context


def _operation(example: dict[str, Any]) -> dict[str, Any]:
    return {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object"},
                                                                      "example": example}}},
                     "responses": {"200": {"description": "ok"}}}}


OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/posts": _operation({"q": "all"}),
                                                          "/report": _operation({"from": "x", "to": "y", "q": 1})}}
STAMPS = [datetime(2026, 3, 1, 7, n * 5, tzinfo=timezone.utc) for n in range(4)]
UTC_RULE = {"check": "times-in-utc", "in": "body", "items_field": "data", "member": "at", "id_field": "id",
            "zoned": {"timezone": "America/Los_Angeles"}}
FORMS = {"check": "date-forms", "in": "body", "days": {"from": -10, "to": 0},
         "forms": [{"from": "%Y-%m-%d", "to": "%Y-%m-%d"}, {"from": "%Y-%m-%d %H:%M:%S", "to": "%Y-%m-%d %H:%M:%S"}]}
_FORM = re.compile(r"^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$")


class Server:
    """POST /posts {timezone?}: rows with ``at``; POST /report {from, to} in either form."""

    def __init__(self, *, choice: str = "", break_: str = "", stamps: list[datetime] = STAMPS) -> None:
        self.choice, self.break_, self.stamps = choice, break_, stamps

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body)
        if request.path == "/report":
            ok = all(_FORM.match(str(body.get(m, ""))) for m in ("from", "to"))
            if self.break_ == "date-only" and " " in str(body.get("to")):
                ok = False
            return Response.json_response(200 if ok else 400, {"rows": []})
        zoned = "timezone" in body
        local = timezone(timedelta(hours=-7))
        rows = []
        for n, stamp in enumerate(self.stamps):
            text = stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
            if zoned and self.break_ == "offset":
                text = stamp.astimezone(local).isoformat()
            elif zoned and self.break_ == "local-clock":
                text = stamp.astimezone(local).strftime("%Y-%m-%dT%H:%M:%SZ")
            elif self.choice == "plus-zero":
                text = stamp.isoformat()
            rows.append({"id": f"p{n}", "at": text})
        return Response.json_response(200, {"data": rows})


def run(server: Server, params: dict[str, Any]) -> None:
    rule = Rule(id="demo.posts.times", kind="format", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /report" if params["check"] == "date-forms" else "POST /posts", params=params)
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {"today": "2026-03-10"})
    check = date_forms if params["check"] == "date-forms" else times_in_utc
    check(context(contract, rule, server.handle))


@pytest.mark.parametrize("choice", ["", "plus-zero"])
def test_a_server_answering_utc_whatever_the_zone_passes(choice: str) -> None:
    run(Server(choice=choice), UTC_RULE)


@pytest.mark.parametrize(("break_", "message"), [("offset", "-07:00"), ("local-clock", "changes with timezone")])
def test_a_server_answering_in_the_request_zone_fails(break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Server(break_=break_), UTC_RULE)


def test_no_rows_leave_times_in_utc_unexercised() -> None:
    with pytest.raises(RuleSkipped, match="no rows"):
        run(Server(stamps=[]), UTC_RULE)


def test_what_counts_as_utc() -> None:
    assert in_utc("2026-03-01T10:00:00Z") and in_utc("2026-03-01T10:00:00+00:00")
    assert not in_utc("2026-03-01T10:00:00+01:00") and not in_utc("2026-03-01") and not in_utc(None)
    assert not in_utc("2026-03-01T10:00:00")  # no offset: not said to be UTC


def test_a_server_taking_every_date_form_passes() -> None:
    run(Server(), FORMS)


def test_a_server_refusing_one_form_fails() -> None:
    with pytest.raises(ContractFailure, match="%Y-%m-%d %H:%M:%S: got status 400"):
        run(Server(break_="date-only"), FORMS)


def test_a_form_naming_an_undated_member_is_a_contract_error() -> None:
    with pytest.raises(ContractFileError, match="which days does not date"):
        run(Server(), {**FORMS, "forms": [{"since": "%Y"}]})


@pytest.mark.parametrize(("params", "family", "message"), [(UTC_RULE, "time-offset", r"\+01:00"),
                                                           (FORMS, "date-form-refused", "got status 400")])
def test_the_derived_faults_make_a_conforming_server_fail(params: dict[str, Any], family: str, message: str) -> None:
    rule = Rule(id="demo.posts.times", kind="format", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /report" if params["check"] == "date-forms" else "POST /posts", params=params)
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == (f"{family}:posts.times", rule.id)
    with pytest.raises(ContractFailure, match=message):
        run(fault.apply(Server()), params)  # type: ignore[arg-type]


def test_a_strftime_form_as_a_pattern() -> None:
    assert strftime_regex("%Y-%m-%d %H:%M:%S").fullmatch("2026-03-10 12:30:00")
    assert not strftime_regex("%Y-%m-%d").fullmatch("2026-03-10 12:30:00")
    assert strftime_regex("%Y-%m-%d 12:30:00").fullmatch("2026-03-10 12:30:00")
