"""Date filters read in a time zone: the rows a day range selects are those on those days there
(issue 30).

``zoned-days``: ``days`` is ``[first, last]`` (bare dates). The rule's operation (members placed as
``checks/paging.py`` places them; with a ``style``, walked to the end within ``max_pages``, else one
page, which ``total_pages_field`` may say is not all) is read twice, the entries of the top-level
body array ``append`` that filter ``member`` replaced by one entry: first ``wide`` with the day
before ``first`` and the day after ``last`` (as ``wide_form``: ``date`` or ``timestamp``, UTC
midnight), then ``narrow`` with the bare days and, where the rule gives ``zone``, that member set
(a request time zone). The narrow rows (named by ``id_field``) must be the wide rows whose
``member`` falls from midnight of ``first`` to midnight of ``last`` in the zone; a row at exactly
the end may come back either way (whether a range includes its end is another rule's). Without
``zone``, the document does not say which zone a bare date's midnight is in: the rows must be
those of some one UTC offset (-12:00 to +14:00, in quarter hours).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from conformance.checks.context import CheckContext
from conformance.checks.examples import example_request
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.paging import PAGING_PARAMS, dig, member_names, sender, walk
from conformance.checks.registry import named
from conformance.transport.model import Exchange

__all__ = ["zoned_days"]

_NAME = {"type": "string"}
_DAY = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}


def _moment(text: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _read(ctx: CheckContext, params: dict[str, Any], members: dict[str, Any], why: str) -> dict[str, datetime]:
    """id -> member instant of every row the request with ``members`` reads."""
    send, operation = sender(ctx, params), str(ctx.rule.operation)

    def fetch(query: dict[str, Any]) -> Exchange:
        return send({**members, **query})

    if "style" in params:
        result = walk(ctx, fetch, params)
        if not result.ended:
            ctx.skip(f"{why}: more than {len(result.pages)} pages (max_pages): not read to the end")
        rows = result.items
    else:
        exchange = fetch({})
        expect_status(ctx.rule.id, exchange, set(range(200, 300)), why)
        schema = ctx.contract.response_schema(operation, exchange.response.status)
        body = expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why) if schema \
            else exchange.response.json()
        rows = dig(body, params["items_field"]) or []
        pages = dig(body, params["total_pages_field"]) if "total_pages_field" in params else None
        if isinstance(pages, int) and pages > 1:
            ctx.skip(f"{why}: {pages} pages, one read: give the rule a paging style to read them all")
    out: dict[str, datetime] = {}
    for row in rows:
        moment = _moment(dig(row, params["member"])) if isinstance(row, dict) else None
        if moment is not None:
            out[str(row.get(params["id_field"]))] = moment
    return out


def _midnights(first: date, last: date, zone: tzinfo) -> tuple[datetime, datetime]:
    return datetime.combine(first, datetime.min.time(), zone), datetime.combine(last, datetime.min.time(), zone)


@named("zoned-days", params={**PAGING_PARAMS, "member": _NAME, "id_field": _NAME, "append": _NAME,
                             "days": {"type": "array", "items": _DAY, "minItems": 2, "maxItems": 2},
                             "wide": _NAME, "narrow": _NAME, "wide_form": {"enum": ["date", "timestamp"]},
                             "zone": {"type": "object", "properties": {"member": _NAME, "value": _NAME},
                                      "required": ["member", "value"], "additionalProperties": False}},
       required=("member", "id_field", "items_field", "append", "days", "wide", "narrow"))
def zoned_days(ctx: CheckContext) -> None:
    params = member_names(ctx, ctx.rule.params)
    first, last = (date.fromisoformat(d) for d in params["days"])
    spot, member = params["append"], params["member"]
    entries = [e for e in dig(example_request(ctx, str(ctx.rule.operation)).body or {}, spot) or []
               if not (isinstance(e, str) and e.startswith(member + "."))]

    def entry(template: str, low: str, high: str) -> list[Any]:
        return [*entries, template.replace("{$from}", low).replace("{$to}", high)]

    def edge(day: date) -> str:
        return day.isoformat() if params.get("wide_form") == "date" else f"{day.isoformat()}T00:00:00Z"

    wide = _read(ctx, params, {spot: entry(params["wide"], edge(first - timedelta(days=1)),
                                           edge(last + timedelta(days=1)))}, "the wide read")
    zone = params.get("zone")
    narrow_members = {spot: entry(params["narrow"], first.isoformat(), last.isoformat())}
    shown = f"{first}..{last}" + (f" in {zone['value']}" if zone else "")
    got = set(_read(ctx, params, {**narrow_members, **({zone["member"]: zone["value"]} if zone else {})}, shown))
    if not wide:
        ctx.skip(f"no rows around {shown}: nothing to select")
    if zone:
        low, high = _midnights(first, last, ZoneInfo(zone["value"]))
        want = {key for key, moment in wide.items() if low <= moment < high}
        if not want:
            ctx.skip(f"no rows on {shown} in the wide read: nothing to select")
        at_end = {key for key, moment in wide.items() if moment == high}
        expect(got - at_end == want, ctx.rule.id, f"{shown}: {len(got)} rows, {len(want)} expected from the wide "
               f"read ({len(got - at_end - want)} extra, {len(want - got)} missing)",
               exchange=ctx.session.exchanges[-1], expected=f"the rows of those days in {zone['value']}")
        return
    for quarter in range(-12 * 4, 14 * 4 + 1):  # UTC offsets -12:00 .. +14:00
        low, high = _midnights(first, last, timezone(timedelta(minutes=15 * quarter)))
        want = {key for key, moment in wide.items() if low <= moment < high}
        if got - {key for key, moment in wide.items() if moment == high} == want:
            return
    expect(False, ctx.rule.id, f"{shown} selects {len(got)} rows, which no midnight-to-midnight range of one UTC "
           "offset selects in the wide read", exchange=ctx.session.exchanges[-1],
           expected="bare dates read as midnight (in some one time zone)")
