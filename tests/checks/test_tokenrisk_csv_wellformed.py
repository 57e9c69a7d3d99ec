"""The CSV judgement tokenrisk's data.csv rules use (conformance/checks/wellformed.py): RFC 4180's
grammar fails, its SHOULDs (equal record widths, a declared or ASCII charset) do not."""

from __future__ import annotations

import pytest

from conformance.checks.wellformed import csv_problem, csv_records, ill_formed
from conformance.transport.model import Response


def _csv(body: bytes, ctype: str = "text/csv") -> Response:
    return Response(200, {"content-type": ctype}, body)


@pytest.mark.parametrize(("body", "ctype"), [
    (b"name,owner\nsim.token,Ownr1,extra\nb.token\n", "text/csv"),  # ragged records (a SHOULD)
    ("name,owner\ncaf\u00e9.token,Ownr3\n".encode("cp1252"), "text/csv"),  # no charset, not UTF-8
    (b"\xef\xbb\xbfname,owner\r\n\"two, ltd.token\",Ownr2\r\n", "text/csv; header=present"),  # BOM, CRLF
    ("name\ncaf\u00e9\n".encode("utf-16"), "text/csv; charset=utf-16"),  # the declared charset
])
def test_rfc_4180_shoulds_are_not_failures(body: bytes, ctype: str) -> None:
    response = _csv(body, ctype)
    assert csv_problem(response) is None and ill_formed(response) is None
    assert isinstance(csv_records(response), list)


@pytest.mark.parametrize(("body", "ctype", "why"), [
    (b'name,owner\n"sim.token,Ownr1\n', "text/csv", "unexpected end of data"),
    (b'name,owner\n"two, ltd".token,Ownr2\n', "text/csv", "expected after"),
    ("caf\u00e9,x\n".encode("cp1252"), "text/csv; charset=utf-8", "declared charset"),
])
def test_grammar_and_declared_charset_still_fail(body: bytes, ctype: str, why: str) -> None:
    problem = csv_problem(_csv(body, ctype))
    assert problem is not None and why in problem
