"""Time formats and zones of a read (issue 30).

``times-in-utc``: the rule's operation is read twice (members placed as ``checks/paging.py``
places them), without and with the ``zoned`` members (a request time zone); every ``member`` of
the rows read with them is an ISO 8601 timestamp in UTC (``Z`` or a zero offset: "ISO 8601 UTC"
names no spelling), and a row (named by ``id_field``) read both ways shows the same instant.

``date-forms``: the operation's request with each of ``forms`` (member -> ``strftime`` pattern,
e.g. ``{from: "%Y-%m-%d", to: "%Y-%m-%d %H:%M:%S"}``) is accepted: a documented success valid
under its schema. The dates are ``days`` (member -> days from the target's today, the TODAY
setting), so a report window stays inside what the target serves.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import fill, today
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.paging import PLACEMENT_PARAMS, dig, sender
from conformance.checks.registry import named
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__ = ["date_forms", "in_utc", "times_in_utc"]

_NAME = {"type": "string"}


def in_utc(text: Any) -> bool:
    """An ISO 8601 timestamp (a date and a time) whose offset is zero."""
    if not isinstance(text, str) or "T" not in text:
        return False
    try:
        offset = datetime.fromisoformat(text.replace("Z", "+00:00")).utcoffset()
    except ValueError:
        return False
    return offset is not None and not offset


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _answer(ctx: CheckContext, exchange: Exchange, why: str) -> Any:
    """A success (documented, else any 2xx) valid under its documented schema; its JSON."""
    operation = str(ctx.rule.operation)
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation) or set(range(200, 300)), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    return expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why) if schema else exchange.response.json()


def _rows(ctx: CheckContext, exchange: Exchange, at: str, why: str) -> list[dict[str, Any]]:
    rows = dig(_answer(ctx, exchange, why), at)
    expect(isinstance(rows, list), ctx.rule.id, f"{why}: no rows at {at}", exchange=exchange,
           expected=f"an array of rows at {at}")
    return [r for r in rows if isinstance(r, dict)]


@named("times-in-utc", params={**PLACEMENT_PARAMS, "items_field": _NAME, "member": _NAME, "id_field": _NAME,
                               "zoned": {"type": "object", "minProperties": 1}},
       required=("items_field", "member", "id_field", "zoned"))
def times_in_utc(ctx: CheckContext) -> None:
    params = ctx.rule.params
    member, key = params["member"], params["id_field"]
    send = sender(ctx, params)
    zoned_members = fill(ctx, params["zoned"])
    shown = ", ".join(f"{k}={v}" for k, v in zoned_members.items())
    plain = _rows(ctx, send({}), params["items_field"], f"without {', '.join(zoned_members)}")
    exchange = send(zoned_members)
    zoned = _rows(ctx, exchange, params["items_field"], f"with {shown}")
    times = [dig(r, member) for r in zoned]
    if not times:
        ctx.skip(f"with {shown}: no rows to read {member} from")
    wrong = [t for t in times if not in_utc(t)]
    expect(not wrong, ctx.rule.id, f"with {shown}: {member} {wrong[:3]}", exchange=exchange,
           expected="ISO 8601 UTC: Z or a zero offset (the document does not say which spelling)")
    before = {r.get(key): dig(r, member) for r in plain if isinstance(dig(r, member), str)}
    moved = [r.get(key) for r in zoned if r.get(key) in before and _instant(before[r.get(key)]) != _instant(
        dig(r, member))]
    expect(not moved, ctx.rule.id, f"{member} of {moved[:3]} changes with {shown}", exchange=exchange,
           expected="the same instant whatever the request's zone")


_FORM = {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}


@named("date-forms", params={**PLACEMENT_PARAMS,
                             "days": {"type": "object", "minProperties": 1,
                                      "additionalProperties": {"type": "integer"}},
                             "forms": {"type": "array", "minItems": 1, "items": _FORM}},
       required=("days", "forms"))
def date_forms(ctx: CheckContext) -> None:
    params = ctx.rule.params
    send = sender(ctx, params)
    base = today(ctx)
    undated = sorted({m for form in params["forms"] for m in form} - set(params["days"]))
    if undated:
        raise ContractFileError(f"{ctx.rule.id}: forms name {undated}, which days does not date")
    for form in params["forms"]:
        members = {m: (base + timedelta(days=params["days"][m])).strftime(pattern) for m, pattern in form.items()}
        shown = ", ".join(f"{m} as {pattern}" for m, pattern in form.items())
        _answer(ctx, send(members), shown)
