"""The request/response model at the boundary: what ``Response.json`` promises its readers."""

from __future__ import annotations

from conformance.transport.model import Response


def test_a_body_is_parsed_once_and_every_reader_gets_that_parse() -> None:
    response = Response(200, {"content-type": "application/json"}, b'{"data": [1, 2]}')
    assert response.json() is response.json()
    assert response.json() == {"data": [1, 2]}


def test_a_body_assigned_later_is_parsed_afresh() -> None:
    # A fault that edits an answer in place assigns a new body (faults/counters.py): never the old parse.
    response = Response(200, {}, b'{"count": 3}')
    assert response.json() == {"count": 3}
    response.body = b'{"count": 2}'
    assert response.json() == {"count": 2}


def test_a_body_that_is_not_json_stays_none_and_says_why() -> None:
    response = Response(200, {}, b"<html>")
    assert response.json() is None and response.json() is None
    assert response.json_problem() is not None and response.json_problem().startswith("not JSON")
