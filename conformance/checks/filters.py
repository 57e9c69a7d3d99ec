"""Filters checked on data where they change the answer (issue 35, item 5).

``filter-applies`` reads the rule's ``read`` step (``checks/steps.py``) unfiltered, finds a value
of the rows' ``member`` that some rows carry and some do not (from the rows themselves, from a
target setting, or from another documented read listing candidates), then sends the same read
with the filter added and holds its answer to: accepted, not empty (rows with the value exist),
and every row carrying the value, so the answer changed. Where the unfiltered answer says it is
complete (its ``exact.more`` member absent or empty) the filtered rows are exactly the rows that
carry the value. Where no value splits the rows, the rule is skipped (not exercised) saying so:
a filter that cannot change the answer shows nothing. A server that ignores the filter (derived
fault family ``filter-ignored``) answers every row and fails.

``filter-values-accepted``: every value the contract lists for a filter member is taken in a
filter (the answer, not its rows, is judged; a value matching nothing is fine).

Where the filter goes is params: ``{query: name}`` (a query parameter), ``{member: dotted}`` (a
body member) or ``{append: dotted, entry: template}`` (one more entry of a body array, e.g.
``"post_type.eq({$value})"``); ``{$value}`` in a template is the value. With ``replaces`` (a text
prefix) the read's own entries starting with it are taken out first: the filter narrows an entry
the read must send (``customer_profile_id.eq(a, b)`` to ``customer_profile_id.eq(a)``). A
``member`` with an ``entry`` template replaces the member's whole value (``filters:
["message_id.eq({$value})"]``, a filter that cannot be combined with the read's others).
"""

from __future__ import annotations

import copy
from typing import Any

from conformance.checks.boundary import with_member
from conformance.checks.context import CheckContext
from conformance.checks.examples import setting_param
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.registry import named
from conformance.checks.steps import STEP_SCHEMA, Steps, dig
from conformance.contract import Contract
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__ = ["FILTER_SCHEMA", "filtered_step", "listed_values", "with_value"]

_STRING = {"type": "string"}
FILTER_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {"type": "object", "properties": {"query": _STRING}, "required": ["query"], "additionalProperties": False},
        {"type": "object", "properties": {"member": _STRING, "entry": {}}, "required": ["member"],
         "additionalProperties": False},
        {"type": "object", "properties": {"append": _STRING, "entry": {}, "replaces": _STRING},
         "required": ["append", "entry"], "additionalProperties": False},
    ],
}
_CANDIDATES = {"type": "object", "properties": {"read": STEP_SCHEMA, "at": _STRING, "member": _STRING},
               "required": ["read", "at", "member"], "additionalProperties": False}


def with_value(node: Any, value: Any) -> Any:
    """``node`` with ``{$value}`` replaced (a whole ``"{$value}"`` keeps the value's type)."""
    if node == "{$value}":
        return value
    if isinstance(node, str):
        return node.replace("{$value}", str(value))
    if isinstance(node, list):
        return [with_value(item, value) for item in node]
    if isinstance(node, dict):
        return {key: with_value(item, value) for key, item in node.items()}
    return node


def filtered_step(step: dict[str, Any], body: Any, where: dict[str, Any], value: Any) -> tuple[dict[str, Any], Any]:
    """The read ``step`` (whose body, resolved, is ``body``) with the filter by ``value`` added."""
    step = copy.deepcopy(step)
    if "query" in where:
        step["query"] = {**(step.get("query") or {}), where["query"]: value}
        return step, body
    if "member" in where:
        made = with_value(where["entry"], value) if "entry" in where else value
        return step, with_member(body, where["member"], made)
    try:
        entries = list(dig(body, where["append"]) or [])
    except KeyError:
        entries = []
    if "replaces" in where:  # a narrowing of an entry the read sends: that entry goes
        entries = [e for e in entries if not (isinstance(e, str) and e.startswith(where["replaces"]))]
    return step, with_member(body, where["append"], [*entries, with_value(where["entry"], value)])


def _normal(value: Any) -> str:
    # A filter value travels as text (a query string, a filter string): 2, 2.0 and "2" are one value.
    text = str(value)
    return text[:-2] if isinstance(value, float) and text.endswith(".0") else text


def _carries(row: Any, member: str, value: Any) -> bool:
    try:
        got = dig(row, member)
    except KeyError:
        return False
    if isinstance(got, list):
        return any(_normal(item) == _normal(value) for item in got)
    return _normal(got) == _normal(value)


def _success(ctx: CheckContext, operation: str) -> set[int]:
    """The documented 2xx statuses; any 2xx where none is listed."""
    return success_statuses(ctx.contract, operation) or set(range(200, 300))


def _rows(ctx: CheckContext, exchange: Exchange, operation: str, at: str, why: str) -> list[Any]:
    expect_status(ctx.rule.id, exchange, _success(ctx, operation), why)
    try:
        rows = dig(exchange.response.json(), at)
    except (KeyError, ValueError):
        rows = None
    expect(isinstance(rows, list), ctx.rule.id, f"{why}: no array of rows at {at}", exchange=exchange,
           expected=f"the rows at {at}")
    return list(rows)


def _candidates(ctx: CheckContext, steps: Steps, rows: list[Any], member: str) -> list[Any]:
    given = ctx.rule.params.get("values")
    if isinstance(given, str):
        return [setting_param(ctx, given, _STRING)]
    if isinstance(given, dict):
        call = given["read"]["call"]
        listed = _rows(ctx, steps.send(given["read"]).exchange, call, given["at"], call)
        return [dig(item, given["member"]) for item in listed if isinstance(item, dict) and given["member"] in item]
    seen: list[Any] = []
    for row in rows:
        try:
            value = dig(row, member)
        except KeyError:
            continue
        for item in value if isinstance(value, list) else [value]:
            if item not in (None, "") and item not in seen:
                seen.append(item)
    return seen


@named("filter-applies",
       params={"read": STEP_SCHEMA, "rows": _STRING, "member": _STRING, "filter": FILTER_SCHEMA,
               "values": {"oneOf": [_STRING, _CANDIDATES]},
               "exact": {"type": "object", "properties": {"id": _STRING, "more": _STRING},
                         "required": ["id", "more"], "additionalProperties": False}},
       required=("read", "rows", "member", "filter"))
def filter_applies(ctx: CheckContext) -> None:
    params = ctx.rule.params
    member = str(setting_param(ctx, params["member"], _STRING))
    steps = Steps(ctx)
    read = params["read"]
    body = steps.body(read)
    unfiltered = steps.send(read, body).exchange
    rows = _rows(ctx, unfiltered, read["call"], params["rows"], "the read without the filter")
    candidates = _candidates(ctx, steps, rows, member)
    value = next((v for v in candidates if any(_carries(r, member, v) for r in rows)
                  and not all(_carries(r, member, v) for r in rows)), None)
    if value is None:
        ctx.skip(f"no value of {member} ({len(candidates)} tried) is carried by some but not all of the "
                 f"{len(rows)} rows read without the filter: the filter cannot change this answer")
    step, filtered_body = filtered_step(read, body, params["filter"], value)
    exchange = steps.send(step, filtered_body).exchange
    got = _rows(ctx, exchange, read["call"], params["rows"], f"the read filtered by {member} {value!r}")
    expect(bool(got), ctx.rule.id, f"filtered by {value!r}: no rows, although rows without the filter carry it",
           exchange=exchange, expected=f"the rows whose {member} is {value!r}")
    stray = [r for r in got if not _carries(r, member, value)]
    expect(not stray, ctx.rule.id, f"filtered by {value!r}: {len(stray)} of {len(got)} rows do not carry it "
           f"(first: {member} = {_shown(stray[0], member) if stray else None!r}); the filter changed nothing "
           f"the rows show", exchange=exchange, expected=f"only rows whose {member} is {value!r}")
    exact = params.get("exact")
    if exact and not _more(unfiltered, exact["more"]) and not _more(exchange, exact["more"]):
        want = {_shown(r, exact["id"]) for r in rows if _carries(r, member, value)}
        have = {_shown(r, exact["id"]) for r in got}
        expect(have == want, ctx.rule.id, f"filtered by {value!r}: {len(have)} rows, {len(want)} of the complete "
               f"unfiltered answer carry it", exchange=exchange, expected=f"exactly the rows whose {member} is "
               f"{value!r}")


def _shown(row: Any, member: str) -> Any:
    try:
        return dig(row, member)
    except KeyError:
        return None


def _more(exchange: Exchange, member: str) -> bool:
    """The answer announces more rows (its ``member`` present and not empty)."""
    try:
        return bool(dig(exchange.response.json(), member))
    except (KeyError, ValueError):
        return False


def listed_values(contract: Contract, rule_id: str, operation: str, pointer: str) -> list[Any]:
    """The enum at ``pointer`` (``body.a.b[].c``: ``[]`` steps into array items) of the operation."""
    area, _, rest = pointer.partition(".")
    if area != "body":
        raise ContractFileError(f"{rule_id}: values_at {pointer!r} must point into the body")
    node: Any = contract.deref(contract.request_schema(operation))
    for part in rest.split("."):
        name, items = part.removesuffix("[]"), part.endswith("[]")
        node = contract.deref((node.get("properties") or {}).get(name) or {})
        if items:
            node = contract.deref(node.get("items") or {})
    listed = node.get("enum")
    if not listed:
        raise ContractFileError(f"{rule_id}: {operation} lists no enum at {pointer}")
    return list(listed)


@named("filter-values-accepted",
       params={"read": STEP_SCHEMA, "filter": FILTER_SCHEMA, "values_at": _STRING}, required=("read", "filter",
                                                                                            "values_at"))
def filter_values_accepted(ctx: CheckContext) -> None:
    params = ctx.rule.params
    read = params["read"]
    steps = Steps(ctx)
    refused: list[tuple[Any, Exchange]] = []
    last: Exchange | None = None
    for value in listed_values(ctx.contract, ctx.rule.id, read["call"], params["values_at"]):
        step, body = filtered_step(read, steps.body(read), params["filter"], value)
        last = steps.send(step, body).exchange
        if last.response.status not in _success(ctx, read["call"]):
            refused.append((value, last))
    expect(not refused, ctx.rule.id, f"{read['call']}: listed values refused in a filter: "
           + ", ".join(f"{v} ({e.response.status})" for v, e in refused),
           exchange=(refused[0][1] if refused else last), expected="every listed value accepted")
