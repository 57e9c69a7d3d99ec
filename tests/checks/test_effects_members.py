"""``read-after-write`` steps holding members of an answer (``has``, ``lacks``, ``needs``), against a
tiny host server: a record read by an id an earlier read listed carries the members a step names,
and not those it must lack; an answer without what a step ``needs`` (a host without banners) is
skipped, never passed; a server answering without a member it must have, or with one it must not,
fails."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.effects import read_after_write
from conformance.contract import Contract, Rule
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped, SkipKind
from conformance.transport.model import Request, Response
from tests.checks.server import context

IP = {"name": "ip", "in": "path", "required": True, "schema": {"type": "string"}}
OPENAPI: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/hosts": {"get": {"responses": {"200": {"description": "hosts"}}}},
    "/hosts/{ip}": {"get": {"parameters": [IP], "responses": {"200": {"description": "a host"}}}},
}}
SEARCH = {"call": "GET /hosts", "name": "search", "expect": 200, "needs": ["matches.0.ip"]}
HOST = {"call": "GET /hosts/{ip}", "path": {"ip": "{$search.answer.matches.0.ip}"}, "expect": 200}


class Hosts:
    """One host with banners; ``minify`` drops them. ``break_`` names one deviation."""

    def __init__(self, break_: str = "", banners: int = 2, hosts: int = 1) -> None:
        self.break_, self.banners, self.hosts = break_, banners, hosts

    def handle(self, request: Request) -> Response:
        if request.path == "/hosts":
            return Response.json_response(200, {"matches": [{"ip": "192.0.2.1"}][: self.hosts]})
        host: dict[str, Any] = {"ip": request.path.rsplit("/", 1)[1], "ports": [80],
                                "data": [{"port": 80}] * self.banners}
        if request.params.get("minify") == "true" and self.break_ != "minify-ignored":
            host.pop("data")
        if self.break_ == "no-ports":
            host.pop("ports")
        return Response.json_response(200, host)


def run(server: Hosts, *steps: dict[str, Any]) -> None:
    rule = Rule(id="demo.hosts.minify", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /hosts/{ip}", params={"check": "read-after-write", "steps": [SEARCH, *steps]})
    read_after_write(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, server.handle))


MINIFY = [{**HOST, "has": ["data.0"]}, {**HOST, "query": {"minify": "true"}, "has": ["ports"], "lacks": ["data.0"]}]


def test_a_host_with_the_members_passes() -> None:
    run(Hosts(), *MINIFY)
    run(Hosts(), {**HOST, "needs": ["data.0"], "has": ["ip", "ports", "data"]})


@pytest.mark.parametrize(("break_", "message"), [("minify-ignored", "holds data.0"), ("no-ports", "lacks ports")])
def test_a_host_without_what_it_must_have_or_with_what_it_must_lack_fails(break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Hosts(break_), *MINIFY)


def test_a_default_answer_without_banners_fails_where_a_step_must_have_them() -> None:
    with pytest.raises(ContractFailure, match="lacks data.0"):
        run(Hosts(banners=0), *MINIFY)


@pytest.mark.parametrize("server", [Hosts(banners=0), Hosts(hosts=0)], ids=["no-banners", "no-hosts"])
def test_what_a_step_needs_missing_is_not_exercised(server: Hosts) -> None:
    with pytest.raises(RuleSkipped, match="nothing to judge") as skipped:
        run(server, {**HOST, "needs": ["data.0"]})
    assert skipped.value.kind is SkipKind.NOT_EXERCISED


def test_members_named_by_an_earlier_answer_are_held() -> None:
    # The host's first port, as listed by the search, must key an entry of the answer's "by_port".
    class Keyed(Hosts):
        def handle(self, request: Request) -> Response:
            if request.path == "/hosts":
                return Response.json_response(200, {"matches": [{"ip": "192.0.2.1", "port": "80"}]})
            by_port = {} if self.break_ == "unkeyed" else {"80": ["http"]}
            return Response.json_response(200, {"by_port": by_port})

    step = {**HOST, "has": ["by_port.{$search.answer.matches.0.port}"]}
    run(Keyed(), step)
    with pytest.raises(ContractFailure, match="lacks by_port.80"):
        run(Keyed("unkeyed"), step)


def test_a_listed_member_name_holding_dots_is_one_member() -> None:
    # A facet the target lists as "bitcoin.ip" keys one entry, not a path two deep.
    class Facets(Hosts):
        def handle(self, request: Request) -> Response:
            if request.path == "/hosts":
                return Response.json_response(200, {"matches": [{"ip": "192.0.2.1", "facet": "bitcoin.ip"}]})
            facets = {} if self.break_ == "missing" else {"bitcoin.ip": [{"count": 1, "value": "x"}]}
            return Response.json_response(200, {"facets": facets})

    step = {**HOST, "has": ["facets.{$search.answer.matches.0.facet}"]}
    run(Facets(), step)
    with pytest.raises(ContractFailure, match="lacks facets.bitcoin.ip"):
        run(Facets("missing"), step)


def _refusal_rule(violation: dict[str, Any] | None) -> Rule:
    return Rule(id="demo.hosts.invalid-ip", kind="error", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /hosts/{ip}", violation=violation,
                params={"check": "read-after-write",
                        "steps": [{"call": "GET /hosts/{ip}", "path": {"ip": "not-an-ip"}, "expect": "refused"}]})


@pytest.mark.parametrize(("status", "message"), [(404, ""), (410, "got status 410"), (400, "got status 400"),
                                               (500, "crashed")])
def test_expect_refused_is_exactly_the_documented_status(status: int, message: str) -> None:
    rule = _refusal_rule({"status": 404})
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule,
                  lambda request: Response.json_response(status, {"error": "not an IP"}))
    if not message:
        read_after_write(ctx)
        return
    with pytest.raises(ContractFailure, match=message):
        read_after_write(ctx)


def test_expect_refused_without_a_documented_status_is_a_contract_file_error() -> None:
    rule = _refusal_rule(None)
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule,
                  lambda request: Response.json_response(400, {"error": "not an IP"}))
    with pytest.raises(ContractFileError, match="documents no violation.status"):
        read_after_write(ctx)


# -- a state a write changes, read before and after; a state that does not allow the scenario ----
class Campaign:
    def __init__(self, break_: str = "", state: int = 0) -> None:
        self.break_, self.state = break_, state

    def handle(self, request: Request) -> Response:
        if request.path.endswith("/activate"):
            if self.break_ == "cannot-activate":
                return Response.json_response(409, {"error": "not from this state"})
            self.state = 1
            return Response(204, {}, b"")
        if request.path.endswith("/pause"):
            self.state = 1 if self.break_ == "pause-ignored" else 2
            return Response(204, {}, b"")
        return Response.json_response(200, {"id": "c1", "status": self.state})


CAMPAIGN_API: dict[str, Any] = {"openapi": "3.1.0", "paths": {
    "/c/{id}": {"get": {"parameters": [IP], "responses": {"200": {"description": "it"}}}},
    "/c/{id}/activate": {"post": {"responses": {"2XX": {"description": "done"}}}},
    "/c/{id}/pause": {"post": {"responses": {"2XX": {"description": "done"}}}}}}
ACTIVATE_PAUSE = [
    {"call": "POST /c/{id}/activate", "path": {"id": "c1"}, "expect": "success", "skip_if_refused": True},
    {"call": "GET /c/{id}", "name": "active", "path": {"id": "c1"}, "expect": 200, "has": ["{FIELD}"]},
    {"call": "POST /c/{id}/pause", "path": {"id": "c1"}, "expect": "success"},
    {"call": "GET /c/{id}", "path": {"id": "c1"}, "expect": 200, "differs": {"of": "active", "member": "{FIELD}"}},
]


def run_campaign(server: Campaign) -> None:
    rule = Rule(id="demo.c.activate-pause", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="POST /c/{id}/activate", params={"check": "read-after-write", "steps": ACTIVATE_PAUSE})
    read_after_write(context(Contract("demo", "demo", CAMPAIGN_API, [rule], [], [], {}), rule, server.handle,
                             {"FIELD": "status"}))


def test_a_state_the_write_changes_passes() -> None:
    run_campaign(Campaign())


def test_a_state_the_write_leaves_fails() -> None:
    with pytest.raises(ContractFailure, match="status is still 1"):
        run_campaign(Campaign("pause-ignored"))


def test_a_refused_precondition_is_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="answered 409: the target's present state") as skipped:
        run_campaign(Campaign("cannot-activate"))
    assert skipped.value.kind is SkipKind.NOT_EXERCISED


# -- text that must name a value (a warning naming the parameter it is about) ---------------------
@pytest.mark.parametrize(("warnings", "message"), [("imageOptions.model is ignored", ""),
                                                   ("Parameter 'model' was ignored.", ""),
                                                   ("the source was ignored", "missing from warnings"),
                                                   (None, "missing from warnings")])
def test_text_contains_the_value(warnings: str | None, message: str) -> None:
    step = {"call": "GET /hosts", "expect": 200, "needs": ["id"], "contains": {"at": "warnings", "value": "model"}}
    rule = Rule(id="demo.hosts.warning", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /hosts", params={"check": "read-after-write", "steps": [step]})
    answer: dict[str, Any] = {"id": "g1"} if warnings is None else {"id": "g1", "warnings": warnings}
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule,
                  lambda request: Response.json_response(200, answer))
    if not message:
        read_after_write(ctx)
        return
    with pytest.raises(ContractFailure, match=message):
        read_after_write(ctx)


def test_an_answer_naming_nothing_is_not_judged() -> None:
    step = {"call": "GET /hosts", "expect": "success", "needs": ["id"], "contains": {"at": "warnings", "value": "m"}}
    rule = Rule(id="demo.hosts.warning", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /hosts", params={"check": "read-after-write", "steps": [step]})
    api = {"openapi": "3.1.0", "paths": {"/hosts": {"get": {"responses": {"201": {"description": "no body"}}}}}}
    ctx = context(Contract("demo", "demo", api, [rule], [], [], {}), rule, lambda request: Response(201, {}, b""))
    with pytest.raises(RuleSkipped, match="without id"):
        read_after_write(ctx)


# -- a header sent, echoed back under a name of any case (RFC 9110: names are case-insensitive) --
@pytest.mark.parametrize(("echo", "message"), [("X-Probe", ""), ("x-probe", ""), ("X-PROBE", ""),
                                               (None, "X-Probe is '\\(absent\\)'")])
def test_a_header_sent_comes_back_under_any_case(echo: str | None, message: str) -> None:
    def handle(request: Request) -> Response:
        sent = request.header("x-probe")
        return Response.json_response(200, {"Host": "demo"} if echo is None else {echo: sent})

    step = {"call": "GET /hosts", "headers": {"X-Probe": "probe-value"}, "expect": 200, "any_case": True,
            "shows": {"X-Probe": "probe-value"}}
    rule = Rule(id="demo.tools.echo", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /hosts", params={"check": "read-after-write", "steps": [step]})
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, handle)
    if not message:
        read_after_write(ctx)
        return
    with pytest.raises(ContractFailure, match=message):
        read_after_write(ctx)


# -- an answer keyed by what was asked holds nothing else; strays are judged before `needs` -------
@pytest.mark.parametrize(("answer", "outcome"), [
    ({"192.0.2.1": ["a.example"]}, "pass"),
    ({}, "skip"),  # nothing known about the IP asked: not exercised
    ({"192.0.2.1": ["a.example"], "192.0.2.9": ["b.example"]}, "fail"),
    ({"192.0.2.9": ["b.example"]}, "fail"),  # only a stray: a failure, not "nothing to judge"
])
def test_only_what_was_asked(answer: dict[str, Any], outcome: str) -> None:
    asked = "{$search.answer.matches.0.ip}"
    step = {"call": "GET /hosts/{ip}", "path": {"ip": asked}, "expect": 200, "only": [asked], "needs": [asked]}

    def handle(request: Request) -> Response:
        if request.path == "/hosts":
            return Response.json_response(200, {"matches": [{"ip": "192.0.2.1"}]})
        return Response.json_response(200, answer)

    rule = Rule(id="demo.dns.reverse", kind="schema", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /hosts/{ip}", params={"check": "read-after-write", "steps": [SEARCH, step]})
    ctx = context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule, handle)
    if outcome == "pass":
        read_after_write(ctx)
    elif outcome == "skip":
        with pytest.raises(RuleSkipped, match="answered without 192.0.2.1"):
            read_after_write(ctx)
    else:
        with pytest.raises(ContractFailure, match=r"holds \['192.0.2.9'\], which were not asked"):
            read_after_write(ctx)


# -- a refusal without a documented status: any 4xx, after a control step was accepted -----------
ORG_API: dict[str, Any] = {"openapi": "3.1.0",
                           "security": [{"key": []}],
                           "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "key",
                                                                      "x-credential": "{API_KEY}"}}},
                           "paths": {"/org": {"get": {"responses": {"200": {"description": "the org"}}}}}}
GATED = [{"call": "GET /org", "as": {"swap": {"API_KEY": "BIG_KEY"}}, "control": True},
         {"call": "GET /org", "expect": "refused"}]


def run_gated(handle: Any, steps: list[dict[str, Any]]) -> None:
    rule = Rule(id="demo.plan.org-needs-big", kind="error", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /org", params={"check": "read-after-write", "steps": steps})
    read_after_write(context(Contract("demo", "demo", ORG_API, [rule], [], [], {}), rule, handle,
                             {"API_KEY": "small", "BIG_KEY": "big"}))


def gate(small: int, big: int = 200) -> Any:
    def handle(request: Request) -> Response:
        status = big if request.params.get("key") == "big" else small
        return Response.json_response(status, {"org": "o"} if status == 200 else {"error": "plan"})

    return handle


@pytest.mark.parametrize(("small", "message"), [(403, ""), (401, ""), (404, ""), (200, "got status 200"),
                                                (500, "crashed")])
def test_a_refusal_after_an_accepted_control(small: int, message: str) -> None:
    if not message:
        run_gated(gate(small), GATED)
        return
    with pytest.raises(ContractFailure, match=message):
        run_gated(gate(small), GATED)


def test_a_control_not_accepted_leaves_the_refusal_not_exercised() -> None:
    with pytest.raises(RuleSkipped, match="control request not accepted"):
        run_gated(gate(403, big=403), GATED)


def test_a_refusal_without_a_control_or_a_documented_status_is_a_contract_file_error() -> None:
    with pytest.raises(ContractFileError, match="no control step was accepted before it"):
        run_gated(gate(403), GATED[1:])


def test_a_needed_member_answered_null_is_not_exercised() -> None:
    # A "no data" answer (a DNS lookup's name answered null) leaves as little to judge as none.
    class Nulls(Hosts):
        def handle(self, request: Request) -> Response:
            if request.path == "/hosts":
                return Response.json_response(200, {"matches": [{"ip": "192.0.2.1"}]})
            return Response.json_response(200, {"data": None if self.break_ == "null" else [{"port": 80}]})

    run(Nulls(), {**HOST, "needs": ["data"]})
    with pytest.raises(RuleSkipped, match="nothing to judge"):
        run(Nulls("null"), {**HOST, "needs": ["data"]})
