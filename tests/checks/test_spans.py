"""The core checks ``date-span`` and ``id-length`` against tiny in-test servers.

date-span passes a server taking a span of N days and refusing N + 1 (the documented status, or
any 4xx where none is documented), fails one taking N + 1, answering it 5xx, or refusing N.
id-length passes a server serving its real ids and refusing ids one character short or long,
fails one serving a prefix or crashing on a long id, and a real id of another length; it is not
exercised without a real id. The derived faults ``span-clamped`` and ``id-length-ignored`` make
the conforming servers fail. With ``year``, a 366-day span that is exactly one calendar year is
either reading (observed which), a longer one refused; elsewhere both readings are observed.
window-start passes a report refusing a window reaching before the previous 365 days or clipping
it (under either reading of one year, observed which), and fails one serving older rows or
answering 5xx."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from typing import Any

import pytest

from conformance.checks.spans import date_span, id_length, window_start
from conformance.contract import Conflict, Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/clicks": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"type": "object"}, "example": {"from": "x", "to": "y", "tz": 1}}}},
        "responses": {"200": {"description": "clicks"}, "400": {"description": "refused"}}}},
    "/report": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"type": "object"}, "example": {"days": 3}}}}, "responses": {"200": {"description": "rows"}}}},
    "/things/{thingId}": {"get": {"parameters": [
        {"name": "thingId", "in": "path", "required": True, "schema": {"type": "string", "minLength": 8,
                                                                       "maxLength": 8}}],
        "responses": {"200": {"description": "one"}}}},
}}
SPAN = {"check": "date-span", "in": "body", "members": ["from", "to"], "days": 14, "end_days_back": 30,
        "format": "%Y-%m-%d %H:%M:%S"}
LENGTH = {"check": "id-length", "param": "thingId", "id": "{$read.answer.rows.0.id}",
          "read": {"call": "POST /report", "body": "example"}}
IDS = ["abcdefgh", "ijklmnop"]


class Server:
    """POST /clicks {from, to}: at most ``most`` days, else ``refusal``; POST /report: rows with
    ids; GET /things/{id}: the ids of the report, 404 for another of 8 characters, else 400."""

    def __init__(self, *, most: int = 14, refusal: int = 400, break_: str = "", ids: list[str] = IDS) -> None:
        self.most, self.refusal, self.break_, self.ids = most, refusal, break_, ids

    def handle(self, request: Request) -> Response:
        if request.path == "/clicks":
            body = json.loads(request.body)
            start, end = (datetime.strptime(body[m], "%Y-%m-%d %H:%M:%S") for m in ("from", "to"))
            return Response.json_response(200 if (end - start).days <= self.most else self.refusal, {"clicks": []})
        if request.path == "/report":
            return Response.json_response(200, {"rows": [{"id": i} for i in self.ids]})
        wanted = request.path.rsplit("/", 1)[-1]
        if self.break_ == "prefix" and any(i.startswith(wanted) for i in self.ids):
            return Response.json_response(200, {"id": wanted})
        if self.break_ == "crash" and len(wanted) > 8:
            return Response.json_response(500, {"message": "boom"})
        if wanted in self.ids:
            return Response.json_response(200, {"id": wanted})
        return Response.json_response(404 if len(wanted) == 8 else self.refusal, {"message": "no"})


def rule_of(params: dict[str, Any], violation: dict[str, Any] | None = None) -> Rule:
    operation = "GET /things/{thingId}" if params["check"] == "id-length" else "POST /clicks"
    return Rule(id="demo.things.bound", kind="limit", statement="s", source=None,  # type: ignore[arg-type]
                operation=operation, violation=violation, params=params)


def run(server: Any, params: dict[str, Any], violation: dict[str, Any] | None = None) -> None:
    rule = rule_of(params, violation)
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {"today": "2026-03-10"})
    (date_span if params["check"] == "date-span" else id_length)(context(contract, rule, server.handle))


@pytest.mark.parametrize(("refusal", "violation"), [(400, {"status": 400}), (422, None)])
def test_a_server_refusing_a_day_past_the_span_passes(refusal: int, violation: dict[str, Any] | None) -> None:
    run(Server(refusal=refusal), SPAN, violation)


@pytest.mark.parametrize(("server", "violation", "message"), [
    (Server(most=15), {"status": 400}, "a span of 15 days: got status 200"),
    (Server(refusal=500), None, "got status 500"),
    (Server(refusal=422), {"status": 400}, "got status 422"),
    (Server(most=13), {"status": 400}, "a span of 14 days: got status 400"),
])
def test_a_server_off_the_span_fails(server: Server, violation: dict[str, Any] | None, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(server, SPAN, violation)


@pytest.mark.parametrize("refusal", [400, 422])
def test_a_server_refusing_ids_of_another_length_passes(refusal: int) -> None:
    run(Server(refusal=refusal), LENGTH)


@pytest.mark.parametrize(("server", "message"), [
    (Server(break_="prefix"), "an id of 7 characters .*got status 200"),
    (Server(break_="crash"), "an id of 9 characters .*got status 500"),
    (Server(ids=["abcdefghi"]), "the real id 'abcdefghi' has 9 characters"),
])
def test_a_server_off_the_id_length_fails(server: Server, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(server, LENGTH)


def test_no_real_id_leaves_id_length_unexercised() -> None:
    with pytest.raises(RuleSkipped, match="no real id"):
        run(Server(ids=[]), LENGTH)


@pytest.mark.parametrize(("params", "violation", "family", "message"), [
    (SPAN, {"status": 400}, "span-clamped", "a span of 15 days: got status 200"),
    (LENGTH, None, "id-length-ignored", "an id of 7 characters .*got status 200"),
])
def test_the_derived_faults_make_a_conforming_server_fail(params: dict[str, Any], violation: dict[str, Any] | None,
                                                          family: str, message: str) -> None:
    rule = rule_of(params, violation)
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == (f"{family}:things.bound", rule.id)
    with pytest.raises(ContractFailure, match=message):
        run(fault.apply(Server()), params, violation)  # type: ignore[arg-type]


YEAR = {"check": "date-span", "in": "body", "members": ["from", "to"], "days": 365, "end_days_back": 0, "year": True,
        "observes": "demo.conflict.range"}
RANGE = Conflict("demo.conflict.range", "s", None, ("365 days", "one year"))  # type: ignore[arg-type]


def year_server(reading: str, extra: int = 0) -> Any:
    """Spans of at most 365 days (``days``) or one calendar year (``year``), ``extra`` days more."""
    def handle(request: Request) -> Response:
        body = json.loads(request.body)
        start, end = (date.fromisoformat(body[m]) for m in ("from", "to"))
        first = end.replace(year=end.year - 1) if reading == "year" else end - timedelta(days=365)
        return Response.json_response(200 if start >= first - timedelta(days=extra) else 400, {"clicks": []})

    return handle


@pytest.mark.parametrize(("today", "reading", "shown"), [("2028-03-01", "days", "365 days"),
                                                         ("2028-03-01", "year", "one year"),
                                                         ("2027-01-15", "days", "365 days and one year")])
def test_a_span_of_one_year_shows_which_reading(today: str, reading: str, shown: str) -> None:
    rule = rule_of(YEAR, {"status": 400})
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [RANGE], {"today": today}), rule,
                  year_server(reading))
    date_span(ctx)
    assert ctx.observations == {"demo.conflict.range": shown}


def test_a_span_past_one_year_is_refused_under_either_reading() -> None:
    rule = rule_of(YEAR, {"status": 400})
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [RANGE], {"today": "2028-03-01"}), rule,
                  year_server("year", extra=1))
    with pytest.raises(ContractFailure, match="a span of 367 days: got status 200"):
        date_span(ctx)


WINDOW = {"check": "window-start", "in": "body", "members": ["from", "to"], "days": 365, "span_days": 7,
          "probe_days": 10, "year": True, "observes": "demo.conflict.range", "items_field": "rows",
          "stamp_member": "at"}


def report(today: date, *, how: str = "refuse", reading: str = "days") -> Any:
    """Rows one a day for two years before ``today`` (unix seconds at noon UTC); a window from
    before the previous 365 days (or one year, ``reading``) is refused, clipped, or served whole."""
    def handle(request: Request) -> Response:
        body = json.loads(request.body)
        start, end = (date.fromisoformat(body[m]) for m in ("from", "to"))
        edge = today.replace(year=today.year - 1) if reading == "year" else today - timedelta(days=365)
        if start < edge and how in ("refuse", "crash"):
            return Response.json_response(400 if how == "refuse" else 500, {"message": "too old"})
        low = max(start, edge) if how == "clip" else start
        days = [low + timedelta(days=n) for n in range((end - low).days + 1)]
        return Response.json_response(200, {"rows": [
            {"at": datetime(d.year, d.month, d.day, 12).timestamp()} for d in days]})

    return handle


def run_window(today: str, handle: Any) -> Any:
    rule = rule_of(WINDOW)
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [RANGE], {"today": today}), rule, handle)
    window_start(ctx)
    return ctx.observations


@pytest.mark.parametrize("how", ["refuse", "clip"])
def test_a_window_refused_or_clipped_before_its_start_passes(how: str) -> None:
    assert run_window("2027-01-15", report(date(2027, 1, 15), how=how)) == {"demo.conflict.range":
                                                                               "365 days and one year"}


@pytest.mark.parametrize(("how", "reading", "shown"), [("refuse", "days", "365 days"), ("refuse", "year", None),
                                                       ("clip", "year", None)])
def test_a_window_of_exactly_one_year_shows_which_reading(how: str, reading: str, shown: str | None) -> None:
    observed = run_window("2028-03-01", report(date(2028, 3, 1), how=how, reading=reading))
    assert observed == ({"demo.conflict.range": shown} if shown else {})


@pytest.mark.parametrize(("how", "message"), [("whole", "answered with [0-9]+ rows from before"),
                                              ("crash", "got status 500")])
def test_a_window_serving_older_rows_fails(how: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run_window("2027-01-15", report(date(2027, 1, 15), how=how))


class FutureRefused(Server):
    """Refuses a span whose to lies after today (2026-03-10), as the document leaves open."""

    def handle(self, request: Request) -> Response:
        if request.path == "/clicks" and json.loads(request.body)["to"] > "2026-03-11":
            return Response.json_response(400, {"message": "to lies in the future"})
        return super().handle(request)


def test_a_span_ending_after_today_refused_is_not_exercised() -> None:
    # Whether a date after today is taken is not the bound's question: skipped, never passed.
    with pytest.raises(RuleSkipped, match="ending 5 days after today was refused"):
        run(FutureRefused(), {**SPAN, "end_days_back": -5})
    run(FutureRefused(), SPAN)  # a span in the past: judged as before
    with pytest.raises(ContractFailure, match="a span of 14 days"):  # ending in the past, a refusal still fails
        run(Server(most=13), {**SPAN, "end_days_back": 2})


def test_a_span_ending_after_today_answered_404_fails() -> None:
    # A 404 is a route not served, never a refusal of the date: the rule fails, not skips.
    class Missing(Server):
        def handle(self, request: Request) -> Response:
            return Response.json_response(404, {"message": "no such route"})

    with pytest.raises(ContractFailure, match="a span of 14 days"):
        run(Missing(), {**SPAN, "end_days_back": -5})
