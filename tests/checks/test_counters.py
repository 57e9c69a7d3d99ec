"""The core ``counter-delta`` check against a tiny metered server: a counter read reports two
balances, a search costs one credit with a filter and one more per later page, a scan one of the
other balance per IP. It passes a server charging what the params say (and one whose counter read
itself costs a credit, which nothing forbids); it fails a free search, a charge to the other
balance, a later page costing nothing more, a scan charged once for many IPs, a reading of a
conflict that is neither alternative; counters moving on their own are skipped, never passed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.counters import counter_delta
from conformance.contract import Conflict, Contract, Rule
from conformance.contract.model import Gap
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.counters import counter_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

COUNTS = {"type": "object", "required": ["query", "scan"],
          "properties": {"query": {"type": "number"}, "scan": {"type": "number"}}}
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/credits": {"get": {"responses": {"200": {"description": "balances", "content": {
            "application/json": {"schema": COUNTS}}}}}},
        "/search": {"get": {"responses": {"200": {"description": "found"}}}},
        "/scan": {"post": {"responses": {"200": {"description": "scanning"}}}},
    },
}
CONFLICT = Conflict("demo.conflict.page-cost", "s", None, ("2: both", "1: one"))  # type: ignore[arg-type]
COUNTER = {"check": "counter-delta", "counter": {"call": "GET /credits"}, "members": ["query", "scan"]}
FILTERED = {"charged": {"call": "GET /search", "query": {"query": "{FILTER_QUERY}", "page": 1}},
            "falls_by": {"query": 1}}
PAGED = {"less": {"call": "GET /search", "query": {"query": "plain", "page": 1}},
         "charged": {"call": "GET /search", "query": {"query": "plain", "page": 2}}, "falls_by": {"query": 1}}
SCAN = {"charged": {"call": "POST /scan", "body": {"ips": "192.0.2.1,192.0.2.2,192.0.2.3"}},
        "falls_by": {"scan": 1}, "per_item_of": "ips"}
BOTH = {"charged": {"call": "GET /search", "query": {"query": "{FILTER_QUERY}", "page": 2}},
        "readings": [{"query": [1, 1]}, {"query": 1}]}


class Metered:
    """``break_`` names one way to charge wrong, ``choice`` one way to charge where nothing is said."""

    def __init__(self, break_: str = "", choice: str = "") -> None:
        self.balance = {"query": 100, "scan": 50}
        self.break_, self.choice = break_, choice
        self.reads = 0

    def handle(self, request: Request) -> Response:
        params = request.params
        if request.path == "/credits":
            self.reads += 1
            if self.choice == "read-costs":
                self.balance["query"] -= 1
            if self.break_ == "shared" and self.reads == 2:
                self.balance["query"] -= 7  # another client spent between two reads
            return Response.json_response(200, dict(self.balance))
        if request.path == "/search":
            filtered, later = ":" in params.get("query", ""), int(params.get("page", "1")) > 1
            cost = (1 if filtered else 0) + (1 if later else 0)
            if self.choice == "one-per-request":
                cost = 1 if filtered or later else 0
            if self.break_ == "free":
                cost = 0
            if self.break_ == "later-pages-free":
                cost = 1 if filtered else 0
            if self.break_ == "costs-three":
                cost *= 3
            self.balance["scan" if self.break_ == "other-balance" else "query"] -= cost
            return Response.json_response(200, {"matches": []})
        ips = json.loads(request.body)["ips"].split(",")
        self.balance["scan"] -= 1 if self.break_ == "scan-once" else len(ips)
        return Response.json_response(200, {"count": len(ips)})


def run(server: Metered, *measures: dict[str, Any], **params: Any) -> None:
    rule = Rule(id="demo.credits.cost", kind="cost", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /search", params={**COUNTER, "measures": list(measures), **params})
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [CONFLICT], {})
    counter_delta(context(contract, rule, server.handle, {"FILTER_QUERY": "product:x"}))


@pytest.mark.parametrize("choice", ["", "read-costs"])
def test_a_server_charging_what_the_params_say_passes(choice: str) -> None:
    run(Metered(choice=choice), FILTERED)
    run(Metered(choice=choice), PAGED)
    run(Metered(choice=choice), SCAN)
    run(Metered(choice=choice), {"charged": {"call": "GET /search", "query": {"query": "plain"}}, "falls_by": {}})


@pytest.mark.parametrize(("choice", "shown"), [("", "2: both"), ("one-per-request", "1: one")])
def test_either_reading_of_a_conflict_passes_and_is_reported(choice: str, shown: str) -> None:
    rule = Rule(id="demo.credits.cost", kind="cost", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /search", params={**COUNTER, "observes": CONFLICT.id, "measures": [BOTH]})
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [CONFLICT], {})
    ctx = context(contract, rule, Metered(choice=choice).handle, {"FILTER_QUERY": "product:x"})
    counter_delta(ctx)
    assert ctx.observations[CONFLICT.id] == shown


@pytest.mark.parametrize(("break_", "measure", "message"), [
    ("free", FILTERED, "query fell by 0"),
    ("other-balance", FILTERED, "query fell by 0"),
    ("later-pages-free", PAGED, "query fell by 0"),
    ("scan-once", SCAN, "scan fell by 1"),
    ("costs-three", BOTH, "one of the documented readings"),
])
def test_a_server_charging_otherwise_fails(break_: str, measure: dict[str, Any], message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Metered(break_=break_), measure, observes=CONFLICT.id)


def test_a_free_call_charged_fails() -> None:
    with pytest.raises(ContractFailure, match="query fell by 1"):
        run(Metered(), {"charged": {"call": "GET /search", "query": {"query": "product:x"}}, "falls_by": {}})


def test_counters_moving_on_their_own_are_skipped() -> None:
    with pytest.raises(RuleSkipped, match="moved unevenly"):
        run(Metered(break_="shared"), FILTERED)


# -- the derived fault (faults/counters.py): caught on the same server ----------------------
@pytest.mark.parametrize("measure", [FILTERED, PAGED, SCAN, BOTH,
                                     {"charged": {"call": "GET /search", "query": {"query": "plain"}}, "falls_by": {}}])
def test_charge_off_by_one_is_caught_and_the_clean_server_passes(measure: dict[str, Any]) -> None:
    rule = Rule(id="demo.credits.cost", kind="cost", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /search", params={**COUNTER, "observes": CONFLICT.id, "measures": [measure]})
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [CONFLICT], {})
    (fault,) = counter_faults(contract)
    assert fault.name == "charge-off-by-one:credits.cost" and fault.breaks == rule.id
    counter_delta(context(contract, rule, Metered().handle, {"FILTER_QUERY": "product:x"}))
    with pytest.raises(ContractFailure):
        counter_delta(context(contract, rule, fault.apply(Metered()).handle,  # type: ignore[arg-type]
                              {"FILTER_QUERY": "product:x"}))


# -- refusals whose cost is observed, never judged ----------------------------------------------
GAP = Gap("demo.gap.refused-cost", "what a refused scan costs is not shown", None)  # type: ignore[arg-type]
OPENAPI_ERRORS: dict[str, Any] = {**OPENAPI, "components": {"schemas": {
    "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}}}}
REFUSED = {"control": {"call": "POST /scan", "body": {"ips": "192.0.2.1"}},
           "refused": [{"call": "POST /scan", "body": {"ips": "not-an-ip"}},
                       {"call": "POST /scan", "body": {"ips": 42}}]}


class Refusing(Metered):
    """Scans of what are not IPs refused with 400 {error}; ``break_`` names one deviation."""

    def handle(self, request: Request) -> Response:
        if request.path == "/scan":
            ips = json.loads(request.body)["ips"]
            valid = isinstance(ips, str) and ips[:1].isdigit() and ips.count(".") == 3
            if self.break_ == "control-refused" or (not valid and self.break_ != "accepts-anything"):
                if self.choice == "charges-refusals":
                    self.balance["scan"] -= 1
                if self.break_ == "crash":
                    return Response.json_response(500, {"error": "boom"})
                error = {"message": "bad ips"} if self.break_ == "bare" else {"error": "ips"}
                return Response.json_response(400, error)
        return super().handle(request)


def run_refused(server: Metered) -> dict[str, str]:
    rule = Rule(id="demo.scan.ips-invalid", kind="type", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /scan", params={**COUNTER, "observes": GAP.id, "measures": [REFUSED],
                                                "error_schema": "#/components/schemas/Error"})
    ctx = context(Contract("demo", "demo", OPENAPI_ERRORS, [rule], [GAP], [], {}), rule, server.handle)
    counter_delta(ctx)
    return ctx.observations


@pytest.mark.parametrize(("choice", "cost"), [("", "scan 0"), ("charges-refusals", "scan 2")])
def test_refusals_pass_and_what_they_cost_is_observed(choice: str, cost: str) -> None:
    assert run_refused(Refusing(choice=choice)) == {GAP.id: f"2 refused request(s) cost query 0, {cost}"}


@pytest.mark.parametrize(("break_", "message"), [("accepts-anything", "got status 200"), ("crash", "got status 500"),
                                                 ("bare", "the refusal's body")])
def test_a_refusal_not_made_fails(break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run_refused(Refusing(break_))


def test_a_control_refused_leaves_the_refusals_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="control request not accepted"):
        run_refused(Refusing("control-refused"))


def test_a_rule_of_refusals_only_gets_no_charge_fault() -> None:
    rule = Rule(id="demo.scan.ips-invalid", kind="type", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /scan", params={**COUNTER, "observes": GAP.id, "measures": [REFUSED, SCAN]})
    (fault,) = counter_faults(Contract("demo", "demo", OPENAPI_ERRORS, [rule], [GAP], [], {}))
    assert "POST /scan costs one scan more" in fault.description
    rule = Rule(id="demo.scan.ips-invalid", kind="type", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /scan", params={**COUNTER, "observes": GAP.id, "measures": [REFUSED]})
    assert counter_faults(Contract("demo", "demo", OPENAPI_ERRORS, [rule], [GAP], [], {})) == []
