"""The core check ``member-magnitude`` against a tiny in-test server.

A server writing epoch seconds passes, whole or with a fraction (a conforming server that chose
differently); one writing milliseconds, or the seconds as text, fails; answers carrying none of the
members leave the rule unexercised; the derived fault ``unit-scaled`` makes the conforming server
fail, and a milliseconds rule is held the other way round."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.units import edit_at, member_magnitude, values_at
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.faults.units import unit_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

_OK = {"200": {"description": "ok"}}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/links": {"get": {"responses": _OK},
               "post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object"},
                                                                         "example": {"name": "x"}}}},
                        "responses": _OK}},
    "/links/{id}": {"get": {"parameters": [{"name": "id", "in": "path", "required": True,
                                            "schema": {"type": "string"}, "x-setting": "LINK_ID"}],
                            "responses": _OK}}}}
SECONDS = {"GET /links/{id}": ["created"], "GET /links": ["links.*.created"], "POST /links": ["created"]}
NOW = 1_800_000_000


class Server:
    """Links whose ``created`` is written as ``write`` makes it (seconds by default)."""

    def __init__(self, write: Any = lambda s: s, *, carry: bool = True) -> None:
        self.write, self.carry = write, carry
        self.posted: list[dict[str, Any]] = []

    def link(self, n: int) -> dict[str, Any]:
        return {"id": str(n), **({"created": self.write(NOW + n)} if self.carry else {})}

    def handle(self, request: Request) -> Response:
        if request.method == "POST":
            self.posted.append(json.loads(request.body))
            return Response.json_response(200, self.link(9))
        if request.path == "/links":
            return Response.json_response(200, {"links": [self.link(n) for n in range(3)]})
        return Response.json_response(200, self.link(int(request.path.rsplit("/", 1)[1])))


def _rule(members: dict[str, list[str]] = SECONDS, unit: str = "epoch-seconds") -> Rule:
    return Rule(id="demo.links.times", kind="format", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /links/{id}", params={"check": "member-magnitude", "unit": unit, "members": members})


def run(server: Any, rule: Rule | None = None) -> None:
    rule = rule or _rule()
    member_magnitude(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle,
                             {"LINK_ID": "4"}))


@pytest.mark.parametrize("write", [lambda s: s, lambda s: s + 0.25], ids=["whole", "fraction"])
def test_a_server_writing_epoch_seconds_passes(write: Any) -> None:
    server = Server(write)
    run(server)
    assert server.posted == [{"name": "x"}]  # the write sends the operation's example


@pytest.mark.parametrize(("write", "message"), [(lambda s: s * 1000, "1800000004000"), (str, "'1800000004'")],
                         ids=["milliseconds", "text"])
def test_a_server_writing_another_unit_or_text_fails(write: Any, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Server(write))


def test_answers_without_the_members_leave_the_rule_unexercised() -> None:
    with pytest.raises(RuleSkipped, match="no answer carried"):
        run(Server(carry=False))


def test_an_operation_the_contract_lacks_is_a_contract_error() -> None:
    with pytest.raises(ContractFileError, match="GET /nowhere"):
        run(Server(), _rule({"GET /nowhere": ["created"]}))


def test_milliseconds_are_held_to_their_own_magnitude() -> None:
    rule = _rule(unit="epoch-milliseconds")
    run(Server(lambda s: s * 1000), rule)
    with pytest.raises(ContractFailure, match="epoch milliseconds"):
        run(Server(), rule)


@pytest.mark.parametrize(("unit", "write"), [("epoch-seconds", lambda s: s),
                                             ("epoch-milliseconds", lambda s: s * 1000)])
def test_the_derived_fault_makes_a_conforming_server_fail(unit: str, write: Any) -> None:
    rule = _rule(unit=unit)
    [fault] = unit_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    assert (fault.name, fault.breaks) == ("unit-scaled:links.times", rule.id)
    with pytest.raises(ContractFailure, match="epoch"):
        run(fault.apply(Server(write)), rule)  # type: ignore[arg-type]


def test_members_found_and_edited_at_any_array_depth() -> None:
    body = {"links": [{"created": 1}, {"other": 2}, {"created": 3}], "created": 4}
    assert list(values_at(body, "links.*.created")) == [("links.0.created", 1), ("links.2.created", 3)]
    edit_at(body, "links.*.created", lambda v: v * 10)
    edit_at(body, "created", lambda v: -v)
    assert body == {"links": [{"created": 10}, {"other": 2}, {"created": 30}], "created": -4}


def test_a_value_the_gap_leaves_unset_is_not_judged_and_others_still_are() -> None:
    # affiliate's time_saved of a link never saved: 0 is in the rule's unset list (gap unset-times).
    unset = Rule(id="demo.links.times", kind="format", statement="s", source=None,  # type: ignore[arg-type]
                 operation="GET /links/{id}", params={"check": "member-magnitude", "unit": "epoch-seconds",
                                                      "members": SECONDS, "unset": [0]})
    run(Server(lambda s: s if s % 2 else 0), unset)  # half the links unset, the others in seconds
    with pytest.raises(RuleSkipped):
        run(Server(lambda s: 0), unset)  # nothing but unset values: nothing shown
    with pytest.raises(ContractFailure, match="1800000004000"):
        run(Server(lambda s: s * 1000 if s % 2 == 0 else 0), unset)
    with pytest.raises(ContractFailure, match="is 0"):
        run(Server(lambda s: s if s % 2 else 0))  # without the gap's list, 0 is judged as before
