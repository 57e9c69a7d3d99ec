"""The core ``lifecycle`` check against a tiny job server: a create starts a job, its status is
polled to a final state. It passes a server that conforms (and one that chose differently where
nothing is said: a job final on the first poll, members beyond the documented ones); it fails a
job that leaves its final state, a poll carrying a member only the create may carry, a poll
naming another job, a final answer without a member its case needs, a failing input that
completes; a job never final within the ceiling, and a create answered without a body, are skipped,
never passed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.checks.lifecycle import lifecycle
from conformance.contract import Conflict, Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped, SkipKind
from conformance.faults.lifecycle import lifecycle_faults
from conformance.transport.model import Request, Response
from tests.checks.server import context

JOB = {"type": "object", "required": ["id", "state"],
       "properties": {"id": {"type": "string"}, "state": {"enum": ["pending", "done", "failed"]},
                      "url": {"type": "string"}, "error": {"type": "object"}}}
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/jobs": {"post": {
            "requestBody": {"content": {"application/json": {
                "schema": {"type": "object", "properties": {"input": {"type": "string"},
                                                            "format": {"enum": ["a", "b"]}}},
                "example": {"input": "hello"}}}},
            "responses": {"200": {"description": "started", "content": {"application/json": {"schema": {
                "type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}}},
                "201": {"description": "started, no body"}}}},
        "/jobs/{id}": {"get": {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "the job",
                                  "content": {"application/json": {"schema": JOB}}}}}},
    },
}
CONFLICT = Conflict("demo.conflict.create-status", "s", None, ("200", "201"))  # type: ignore[arg-type]
BASE = {"check": "lifecycle", "poll_seconds": 5, "ceiling_seconds": 30,
        "start": {"call": "POST /jobs", "body": "example"},
        "poll": {"call": "GET /jobs/{id}", "path": {"id": "{$start.answer.id}"}},
        "state": "state", "final": ["done", "failed"]}
FAILING = {"edits": {"input": "{FAIL_INPUT} probe"}, "ends": "failed"}


class Jobs:
    """Jobs pending for ``polls`` polls, then done (failed when the input starts with FAIL);
    ``break_`` names one deviation, ``choice`` one conforming choice."""

    def __init__(self, break_: str = "", choice: str = "", polls: int = 2) -> None:
        self.break_, self.choice, self.polls = break_, choice, polls
        self.jobs: dict[str, dict[str, Any]] = {}

    def handle(self, request: Request) -> Response:
        if request.method == "POST":
            sent = json.loads(request.body)
            job_id = f"j{len(self.jobs) + 1}"
            self.jobs[job_id] = {"sent": sent, "seen": 0}
            if self.break_ == "bodiless":
                return Response(201, {}, b"")
            start: dict[str, Any] = {"id": job_id}
            if self.choice == "extra":
                start["warnings"] = "none"
            return Response.json_response(200, start)
        job_id = request.path.rsplit("/", 1)[1]
        job = self.jobs[job_id]
        job["seen"] += 1
        pending = self.polls if self.choice != "instant" else 0
        failing = str(job["sent"].get("input", "")).startswith("FAIL") and self.break_ != "fail-completes"
        answer: dict[str, Any] = {"id": job_id, "state": "pending"}
        if self.break_ == "never-ends":
            pass
        elif job["seen"] > pending:
            answer = {"id": job_id, "state": "failed", "error": {"code": 1}} if failing else {
                "id": job_id, "state": "done", "url": "https://jobs.example/" + job_id}
            if self.break_ == "reverts" and job["seen"] > pending + 1:
                answer = {"id": job_id, "state": "pending"}
            if self.break_ == "no-url":
                answer.pop("url", None)
        if self.break_ == "warnings-on-poll":
            answer["warnings"] = "ignored"
        if self.break_ == "other-id":
            answer["id"] = "j999"
        if self.choice == "extra":
            answer["progress"] = 1.0
        return Response.json_response(200, answer)


def run(server: Jobs, **params: Any) -> None:
    rule = Rule(id="demo.jobs.lifecycle", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /jobs/{id}", params={**BASE, **params})
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [CONFLICT], {})
    lifecycle(context(contract, rule, server.handle, {"FAIL_INPUT": "FAIL"}))


@pytest.mark.parametrize("choice", ["", "instant", "extra"])
def test_a_conforming_job_server_passes(choice: str) -> None:
    run(Jobs(choice=choice))
    run(Jobs(choice=choice), then_polls=2, cases=[{"ends": "done"}, FAILING])
    run(Jobs(choice=choice), cases=[{"ends": "done", "present": ["url"]}], shows={"id": "{$start.answer.id}"})
    run(Jobs(choice=choice), each_value_of="body.format", cases=[{"ends": "done", "present": ["url"]}])


def test_each_listed_value_starts_its_own_job() -> None:
    server = Jobs()
    run(server, each_value_of="body.format", cases=[{"ends": "done"}])
    assert [j["sent"]["format"] for j in server.jobs.values()] == ["a", "b"]


@pytest.mark.parametrize(("break_", "params", "message"), [
    ("reverts", {"then_polls": 2}, "left its final state"),
    ("warnings-on-poll", {"absent": ["warnings"]}, "carries warnings"),
    ("other-id", {"shows": {"id": "{$start.answer.id}"}}, "shows id 'j999'"),
    ("no-url", {"cases": [{"ends": "done", "present": ["url"]}]}, "without url"),
    ("fail-completes", {"cases": [FAILING]}, "ended 'done'"),
])
def test_a_deviating_job_server_fails(break_: str, params: dict[str, Any], message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Jobs(break_=break_), **params)


def test_an_ill_typed_poll_fails_on_the_documented_schema() -> None:
    class Bad(Jobs):
        def handle(self, request: Request) -> Response:
            answer = super().handle(request)
            if request.method == "GET":
                return Response.json_response(200, {**json.loads(answer.body), "state": "running"})
            return answer

    with pytest.raises(ContractFailure, match="state"):
        run(Bad())


def test_a_job_never_final_within_the_ceiling_is_skipped() -> None:
    with pytest.raises(RuleSkipped, match="30 s ceiling") as skipped:
        run(Jobs(break_="never-ends"))
    assert skipped.value.kind is SkipKind.NOT_EXERCISED


def test_a_create_without_a_body_leaves_nothing_to_poll() -> None:
    with pytest.raises(RuleSkipped, match="answered 201 naming no job"):
        run(Jobs(break_="bodiless"), observes="demo.conflict.create-status", observe_start=True)


def test_a_failing_case_without_its_setting_is_skipped() -> None:
    rule = Rule(id="demo.jobs.lifecycle", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /jobs/{id}", params={**BASE, "cases": [FAILING]})
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {})
    with pytest.raises(RuleSkipped) as skipped:
        lifecycle(context(contract, rule, Jobs().handle))
    assert skipped.value.kind is SkipKind.CREDENTIAL_MISSING


# -- the derived faults (faults/lifecycle.py): each one caught on the same server ------------
FAULTED = {"then_polls": 2, "cases": [{"ends": "done", "present": ["url"]}, FAILING], "absent": ["warnings"],
           "shows": {"id": "{$start.answer.id}"}}


def _rule(**params: Any) -> Rule:
    return Rule(id="demo.jobs.lifecycle", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation="GET /jobs/{id}", params={**BASE, **params})


def test_every_derived_fault_is_caught_and_the_clean_server_passes() -> None:
    rule = _rule(**FAULTED)
    contract = Contract("demo", "demo", OPENAPI, [rule], [], [], {})
    faults = lifecycle_faults(contract)
    assert sorted(f.name.split(":")[0] for f in faults) == [
        "final-member-dropped", "final-state-left", "member-on-poll", "shown-member-changed"]
    lifecycle(context(contract, rule, Jobs().handle, {"FAIL_INPUT": "FAIL"}))
    for fault in faults:
        assert fault.breaks == rule.id
        with pytest.raises(ContractFailure):
            lifecycle(context(contract, rule, fault.apply(Jobs()).handle, {"FAIL_INPUT": "FAIL"}))  # type: ignore[arg-type]


def test_a_job_left_final_reads_as_the_first_state_that_is_not_final() -> None:
    rule = _rule(then_polls=1)
    (fault,) = lifecycle_faults(Contract("demo", "demo", OPENAPI, [rule], [], [], {}))
    with pytest.raises(ContractFailure, match="left its final state 'done'") as failed:
        lifecycle(context(Contract("demo", "demo", OPENAPI, [rule], [], [], {}), rule,
                          fault.apply(Jobs()).handle))  # type: ignore[arg-type]
    assert failed.value.exchange is not None and b'"pending"' in failed.value.exchange.response.body
