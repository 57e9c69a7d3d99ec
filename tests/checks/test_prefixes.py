"""The core check ``member-prefixed`` against a tiny message server: it passes rows whose member is
upper case and prefixed by the other member in upper case (whatever that member's own case), fails
a value in lower case or prefixed otherwise, and is not exercised where no row carries both. The
derived fault ``prefix-lowered`` makes the conforming server fail."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.prefixes import member_prefixed
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.reads import read_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/messages": {"post": {
    "requestBody": {"content": {"application/json": {"schema": {"type": "object"}, "example": {"q": "all"}}}},
    "responses": {"200": {"description": "messages"}}}}}}
PARAMS = {"check": "member-prefixed", "in": "body", "items_field": "data", "member": "kind", "prefix_member": "net",
          "set": {"fields": ["kind", "net"]}}
ROWS = [{"kind": "TWITTER_TWEET", "net": "twitter"}, {"kind": "FACEBOOK_POST", "net": "FACEBOOK"}, {"kind": "X"}]


class Messages:
    def __init__(self, rows: list[dict[str, Any]] = ROWS) -> None:
        self.rows = rows

    def handle(self, request: Request) -> Response:
        return Response.json_response(200, {"data": self.rows})


def rule() -> Rule:
    return Rule(id="demo.messages.kind", kind="format", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /messages", params=PARAMS)


def run(server: Any) -> None:
    member_prefixed(context(Contract("demo", "demo", OPENAPI, [rule()], [], [], {}), rule(), server.handle))


def test_values_upper_case_and_prefixed_pass() -> None:
    run(Messages())


@pytest.mark.parametrize("row", [{"kind": "twitter_tweet", "net": "twitter"}, {"kind": "TWEET", "net": "twitter"}])
def test_a_value_off_the_form_fails(row: dict[str, Any]) -> None:
    with pytest.raises(ContractFailure, match="upper case, prefixed by TWITTER"):
        run(Messages([*ROWS, row]))


def test_no_row_with_both_members_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="no row carried kind and net"):
        run(Messages([{"kind": "X"}]))


def test_the_derived_prefix_lowered_fault_makes_a_conforming_server_fail() -> None:
    [fault] = read_faults(Contract("demo", "demo", OPENAPI, [rule()], [], [], {}))
    assert (fault.name, fault.breaks) == ("prefix-lowered:messages.kind", rule().id)
    with pytest.raises(ContractFailure, match="'twitter_tweet'"):
        run(fault.apply(Messages()))  # type: ignore[arg-type]
