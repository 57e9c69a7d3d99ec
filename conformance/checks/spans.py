"""Date spans, report windows and id lengths: boundaries on a pair of dates, and on the length of a
real id (issue 30).

``date-span``: "a span of at most N days": the request (members placed as ``checks/paging.py``
places them) with ``members`` (the from and to members) ``days`` apart, ending
``end_days_back`` days before the target's today (the TODAY setting), is accepted (a documented
success, valid under its schema), and the same request one day longer is refused (the rule's
status, else any 4xx; never a 5xx). ``format`` is how a date is written (``strftime``); a negative
``end_days_back`` ends the span after today, and a refused control then skips (not exercised):
whether a date after today is taken is not the bound's question. With ``year: true`` the bound is also written as one
year (a conflict the rule ``observes``): where the span one day longer is exactly one calendar year
(a year holding 29 February), a refusal reads "days" (0) and a success "one year" (1), and a span
longer still is refused either way; elsewhere the two readings coincide.

``window-start``: "only the previous ``days`` days can be reported": a window of ``span_days``
starting ``days`` back is accepted (a documented success valid under its schema); one starting
``probe_days`` earlier and ending at that edge is refused (any 4xx) or answered without rows
from before the edge (``stamp_member`` of the rows at ``items_field``: unix seconds or ISO 8601,
with ``slack_hours`` of slack, default 14, as the answer's time zone is not shown). With ``year:
true`` (the bound also written as one year, a conflict the rule ``observes``), where one year back
is a day further (a year holding 29 February) a window from that day reads "days" when refused
(0); served, it must hold no rows from before it, and the earlier probe ends there.

``id-length``: the rule's operation looks one thing up by a path parameter (``param``) whose
schema bounds its length (minLength, maxLength). The ``read`` step (``checks/steps.py``) gives a
real id (``id``, a ``{$read.answer...}`` template); its length is within the bounds, and the
same id one character short of the minimum and one past the maximum is refused after the real
id was served (the control).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import today
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.paging import PLACEMENT_PARAMS, dig, sender
from conformance.checks.refusal import expect_refused, refused_statuses
from conformance.checks.registry import named
from conformance.checks.steps import STEP_SCHEMA, Steps, Unresolved
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__ = ["SPAN_PARAMS", "date_span", "id_length", "span_dates", "window_start"]

_NAME = {"type": "string"}
SPAN_PARAMS: dict[str, Any] = {
    **PLACEMENT_PARAMS,
    "members": {"type": "array", "items": _NAME, "minItems": 2, "maxItems": 2},
    "days": {"type": "integer", "minimum": 1},
    "end_days_back": {"type": "integer"},
    "format": _NAME,
    "year": {"type": "boolean"},
}


# Answers that are no refusal of a value: a route or method not served, a credential not taken.
_NOT_REFUSALS = frozenset({401, 403, 404, 405})


def span_dates(ctx: CheckContext, params: dict[str, Any], days: int) -> dict[str, str]:
    """The from and to members ``days`` apart, ending ``end_days_back`` days before today."""
    end = today(ctx) - timedelta(days=int(params.get("end_days_back", 0)))
    first, last = params["members"]
    form = params.get("format", "%Y-%m-%d")
    return {first: (end - timedelta(days=days)).strftime(form), last: end.strftime(form)}


def _year_back(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year - 1, day=28)


def _accepted(ctx: CheckContext, exchange: Exchange, operation: str, why: str) -> None:
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation) or set(range(200, 300)), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    if schema:
        expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why)


@named("date-span", params=SPAN_PARAMS, required=("members", "days"))
def date_span(ctx: CheckContext) -> None:
    params, days = ctx.rule.params, ctx.rule.params["days"]
    send = sender(ctx, params)
    control = partial(send, span_dates(ctx, params, days))
    operation = str(ctx.rule.operation)
    first = control()
    ahead = -int(params.get("end_days_back", 0))
    if ahead > 0 and 400 <= first.response.status < 500 and first.response.status not in _NOT_REFUSALS:
        # A span ending after today: whether a date ahead of the target's today is taken is a
        # document's silence, so a refusal says nothing about the span's bound.
        ctx.skip(f"a span of {days} days ending {ahead} days after today was refused ({first.response.status}): "
                 "whether a date after today is taken is not shown, so the bound is not exercised")
    _accepted(ctx, first, operation, f"a span of {days} days")
    if params.get("year"):
        end = today(ctx) - timedelta(days=int(params.get("end_days_back", 0)))
        if _year_back(end) != end - timedelta(days=days + 1):
            ctx.observed(0, 1)  # the two readings coincide at this date
        else:
            probe = send(span_dates(ctx, params, days + 1))
            success = success_statuses(ctx.contract, operation) or set(range(200, 300))
            refusal = refused_statuses(ctx)
            expect_status(ctx.rule.id, probe, refusal | success, f"a span of {days + 1} days, exactly one year")
            ctx.observed(0 if probe.response.status in refusal else 1)
            days += 1  # a span longer than one year is refused under both readings
    expect_refused(ctx, f"a span of {days + 1} days", partial(send, span_dates(ctx, params, days + 1)),
                   control=control)


def _before(ctx: CheckContext, params: dict[str, Any], exchange: Exchange, edge: date, why: str) -> None:
    """Refused (any 4xx; never a 5xx), or served without rows from before ``edge``."""
    if 400 <= exchange.response.status < 500:
        return
    _accepted(ctx, exchange, str(ctx.rule.operation), why)
    limit = datetime.combine(edge, time(), UTC).timestamp() - 3600 * float(params.get("slack_hours", 14))
    rows = dig(exchange.response.json(), params["items_field"]) or []
    stamps = [_seconds(dig(row, params["stamp_member"])) for row in rows if isinstance(row, dict)]
    older = [stamp for stamp in stamps if stamp is not None and stamp < limit]
    expect(not older, ctx.rule.id, f"{why}: answered with {len(older)} rows from before {edge}", exchange=exchange,
           expected=f"a refusal, or only rows of the previous {params['days']} days")


def _seconds(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


@named("window-start", params={**SPAN_PARAMS, "span_days": {"type": "integer", "minimum": 0},
                               "probe_days": {"type": "integer", "minimum": 1}, "items_field": _NAME,
                               "stamp_member": _NAME, "slack_hours": {"type": "number", "minimum": 0}},
       required=("members", "days", "span_days", "probe_days", "items_field", "stamp_member"))
def window_start(ctx: CheckContext) -> None:
    params, days, span = ctx.rule.params, ctx.rule.params["days"], ctx.rule.params["span_days"]
    send = sender(ctx, params)
    first, last = params["members"]
    form = params.get("format", "%Y-%m-%d")

    def window(start: date, end: date) -> Exchange:
        return send({first: start.strftime(form), last: end.strftime(form)})

    end = today(ctx)
    edge = end - timedelta(days=days)
    _accepted(ctx, window(edge, edge + timedelta(days=span)), str(ctx.rule.operation),
              f"from {days} days back (the edge)")
    past = edge - timedelta(days=1)
    if params.get("year") and _year_back(end) == past:  # one year back is a day further: the readings differ
        probe = window(past, past + timedelta(days=span))
        if 400 <= probe.response.status < 500:
            ctx.observed(0)
        else:  # served: whether that day's rows come too cannot be told apart from clipping
            _before(ctx, params, probe, past, f"from {days + 1} days back, exactly one year")
        edge = past
    elif params.get("year"):
        ctx.observed(0, 1)  # the two readings coincide at this date
    start = edge - timedelta(days=params["probe_days"])
    _before(ctx, params, window(start, edge), edge, f"from {params['probe_days']} days before the previous {days} "
            "days")


@named("id-length", params={"read": STEP_SCHEMA, "id": _NAME, "param": _NAME}, required=("read", "id", "param"))
def id_length(ctx: CheckContext) -> None:
    params, operation = ctx.rule.params, str(ctx.rule.operation)
    schema = ctx.contract.where_schema(operation, f"path.{params['param']}")
    low, high = schema.get("minLength"), schema.get("maxLength")
    if low is None and high is None:
        raise ContractFileError(f"{ctx.rule.id}: path.{params['param']} of {operation} bounds no length")
    steps = Steps(ctx)
    read = steps.send({**params["read"], "name": params["read"].get("name", "read")})
    expect_status(ctx.rule.id, read.exchange, set(range(200, 300)), f"{read.step['call']} (where a real id comes from)")
    try:
        real = str(steps.resolve(params["id"]))
    except Unresolved as exc:
        ctx.skip(f"no real id to look up: {exc}")
    bounds = f"{low if low is not None else 0} to {high if high is not None else 'any'} characters"
    expect((low is None or len(real) >= low) and (high is None or len(real) <= high), ctx.rule.id,
           f"the real id {real!r} has {len(real)} characters", exchange=read.exchange, expected=bounds)

    def fetch(value: str) -> Exchange:
        return ctx.call(operation, path_values={params["param"]: value})

    probes = []
    if low is not None and low > 1:
        probes.append(real[:low - 1])
    if high is not None:
        probes.append((real * (high // max(len(real), 1) + 2))[:high + 1])
    for probe in probes:
        expect_refused(ctx, f"an id of {len(probe)} characters ({bounds} documented)", partial(fetch, probe),
                       control=partial(fetch, real))
