"""Limit, enum and required checks for a create whose identifier must be new on every request.

Proposed generic building block (see the outreach report): ``conformance.checks.boundary``
resends the contract's example, but an account's email is its identifier and what a second
create with the same email gets is not shown. ``params.fresh`` names the member made unique
per request (``email``: ``local+<rule>-<n>@domain``), deterministic so cassettes replay.
Number enums are probed with the unlisted integers around the listed ones (a string outside
a number enum is a type error and shows nothing about the list).
"""

from __future__ import annotations

from itertools import count
from typing import Any

from conformance.checks.boundary import MISSING, bound_values, with_member
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect_status, success_statuses
from conformance.checks.refusal import refused_statuses
from conformance.checks.registry import named
from conformance.transport.model import Exchange

__all__ = ["FRESH_PARAMS", "Fresh", "unique"]

FRESH_PARAMS: dict[str, Any] = {"fresh": {"type": "string"}}


def unique(ctx: CheckContext, value: Any, label: str) -> str:
    tag = ctx.rule.id.split(".", 1)[-1].replace(".", "-") + "-" + label
    local, at, domain = str(value).partition("@")
    return f"{local}+{tag}@{domain}" if at else f"{value}-{tag}"


class Fresh:
    """Sends the operation's example with ``params.fresh`` unique on every request."""

    def __init__(self, ctx: CheckContext, operation: str | None = None) -> None:
        self.ctx = ctx
        self.operation = operation or ctx.rule.operation or ""
        self.member = str(ctx.rule.params["fresh"])
        self._serial = count(1)
        self.last: dict[str, Any] = {}

    def body(self, edits: dict[str, Any] | None = None) -> dict[str, Any]:
        body = self.ctx.contract.request_example(self.operation)
        body[self.member] = unique(self.ctx, body.get(self.member, "x"), str(next(self._serial)))
        for dotted, value in (edits or {}).items():
            body = with_member(body, dotted, value)
        return body

    def send(self, edits: dict[str, Any] | None = None, **kwargs: Any) -> Exchange:
        self.last = self.body(edits)
        return self.ctx.call(self.operation, json_body=self.last, **kwargs)


def _member(ctx: CheckContext) -> str:
    if not (ctx.rule.operation and ctx.rule.where and ctx.rule.where.startswith("body.")):
        ctx.skip("a fresh check needs an operation and a body member (where)")
    return str(ctx.rule.where).partition(".")[2]


def _control(ctx: CheckContext, fresh: Fresh, ok: set[int]) -> None:
    expect_status(ctx.rule.id, fresh.send(), ok, f"{fresh.operation}: the contract's example with a fresh "
                  f"{fresh.member} (the control) was refused")


@named("fresh-required", params=FRESH_PARAMS, required=("fresh",))
def fresh_required(ctx: CheckContext) -> None:
    member = _member(ctx)
    fresh = Fresh(ctx)
    _control(ctx, fresh, success_statuses(ctx.contract, fresh.operation))
    expect_status(ctx.rule.id, fresh.send({member: MISSING}), refused_statuses(ctx),
                  f"{fresh.operation}: {member} is required; a request without it must be refused")


@named("fresh-limit", params=FRESH_PARAMS, required=("fresh",))
def fresh_limit(ctx: CheckContext) -> None:
    member = _member(ctx)
    fresh = Fresh(ctx)
    values = bound_values(ctx.contract.where_schema(fresh.operation, ctx.rule.where or ""))
    if not values:
        ctx.skip(f"{ctx.rule.where} has no bound in the contract's schema")
    ok = success_statuses(ctx.contract, fresh.operation)
    _control(ctx, fresh, ok)
    for label, value, accepted in values:
        why = f"{fresh.operation}: {member} at {label} must be {'accepted' if accepted else 'refused'}"
        expect_status(ctx.rule.id, fresh.send({member: value}), ok if accepted else refused_statuses(ctx), why)


def outside(schema: dict[str, Any]) -> list[Any]:
    """Values just outside an enum: unlisted integers from below the least to above the most
    listed number, or one unlisted string."""
    listed = schema["enum"]
    numbers = [v for v in listed if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if numbers and len(numbers) == len(listed):
        low, high = int(min(numbers)) - 1, int(max(numbers)) + 1
        return [n for n in range(low, high + 1) if n not in listed]
    return ["zz-not-listed"]


@named("fresh-enum", params=FRESH_PARAMS, required=("fresh",))
def fresh_enum(ctx: CheckContext) -> None:
    member = _member(ctx)
    fresh = Fresh(ctx)
    schema = ctx.contract.where_schema(fresh.operation, ctx.rule.where or "")
    if not schema.get("enum"):
        ctx.skip(f"{ctx.rule.where} has no enum in the contract's schema")
    ok = success_statuses(ctx.contract, fresh.operation)
    # The listed values are the control: each accepted before any unlisted one counts.
    for value in schema["enum"]:
        expect_status(ctx.rule.id, fresh.send({member: value}), ok,
                      f"{fresh.operation}: {member}={value!r} is listed and must be accepted")
    for value in outside(schema):
        expect_status(ctx.rule.id, fresh.send({member: value}), refused_statuses(ctx),
                      f"{fresh.operation}: {member}={value!r} is not listed and must be refused")
