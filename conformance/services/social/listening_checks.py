"""Scenario checks of listening: the filter language against an independent evaluator, the two
range ends, and the metrics dimensions.

The evaluator below is this module's own reading of the document's operator list (it does not
import the simulator's): generated filters are sent to the target and the messages it selects
are compared with what the evaluator selects from the unfiltered messages.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import partial
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from conformance.checks.boundary import outside_values
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import for_rule
from conformance.services.social.support import TOPIC_MESSAGES, TOPIC_METRICS, accepted, body, post

__all__ = ["evaluate", "read_topic"]

FIELDS = ["guid", "created_time", "network", "text", "visual_media"]
_WINDOW = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}
_INT = {"type": "integer", "minimum": 1}


def _moment(text: str) -> datetime:
    """A bare date is midnight UTC (no timezone is sent); a timestamp without offset is UTC."""
    if len(text) == 10:
        return datetime(int(text[:4]), int(text[5:7]), int(text[8:10]), tzinfo=UTC)
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _get(row: dict[str, Any], field: str) -> Any:
    if field in (row.get("metrics") or {}):
        return row["metrics"][field]
    return row.get(field)


def _holds(row: dict[str, Any], text: str) -> bool:
    field, op, arg = re.match(r"^(.+)\.(\w+)\((.*)\)$", text).groups()  # type: ignore[union-attr]
    value = _get(row, field)
    if op == "exists":
        return (value is not None and value != []) == (arg == "true")
    if op == "match":
        words = set(re.findall(r"\w+", str(value or "").lower()))
        return any(all(term in words for term in part.lower().split()) for part in arg.split(" OR "))
    if op == "in":
        dots = "..." if "..." in arg else ".."
        low, high = (_moment(x) for x in arg.split(dots))
        moment = _moment(value)
        return low <= moment and (moment < high if dots == "..." else moment <= high)
    if value is None:
        return False
    if op in ("eq", "neq"):
        same = any(str(value).lower() == v.strip().lower() for v in arg.split(","))
        return same if op == "eq" else not same
    number, bound = float(value), float(arg)
    return {"gt": number > bound, "gte": number >= bound, "lt": number < bound, "lte": number <= bound}[op]


def evaluate(rows: list[dict[str, Any]], filters: list[str]) -> set[str]:
    """The guids of the rows every filter holds for."""
    return {r["guid"] for r in rows if all(_holds(r, f) for f in filters)}


def read_topic(ctx: CheckContext, filters: list[str], max_pages: int) -> list[dict[str, Any]]:
    """Every message of the topic for ``filters``, page by page (the walk itself is its own rule)."""
    query = body(ctx, TOPIC_MESSAGES, filters=filters, fields=FIELDS, metrics=["likes"])
    rows: list[dict[str, Any]] = []
    for page in range(1, max_pages + 1):
        answer = accepted(ctx, post(ctx, TOPIC_MESSAGES, {**query, "page": page}), TOPIC_MESSAGES, f"page {page}")
        rows += answer["data"]
        if page >= answer["paging"]["total_pages"] or not answer["data"]:
            return rows
    ctx.skip(f"the topic query needs more than {max_pages} pages: not read to the end")


def _filters(rows: list[dict[str, Any]]) -> Any:
    networks = sorted({r["network"] for r in rows if r.get("network")})
    stamps = sorted({r["created_time"] for r in rows})
    words = sorted({w for r in rows for w in re.findall(r"\w+", str(r.get("text", "")).lower())})[:12]
    ends = st.tuples(st.sampled_from(stamps), st.sampled_from(stamps)).map(sorted)
    return st.one_of(
        st.lists(st.sampled_from(networks), min_size=1, max_size=3, unique=True).map(
            lambda v: f"network.eq({', '.join(v)})"),
        st.sampled_from(networks).map(lambda v: f"network.neq({v})"),
        st.tuples(st.sampled_from(["gt", "gte", "lt", "lte"]), st.integers(0, 300)).map(
            lambda t: f"likes.{t[0]}({t[1]})"),
        st.tuples(ends, st.sampled_from(["..", "..."]), st.booleans()).map(
            lambda t: f"created_time.in({t[0][0][:10] if t[2] else t[0][0]}{t[1]}{t[0][1]})"),
        st.lists(st.lists(st.sampled_from(words), min_size=1, max_size=2, unique=True).map(" ".join),
                 min_size=1, max_size=2).map(lambda g: f"text.match({' OR '.join(g)})"),
        st.booleans().map(lambda b: f"visual_media.exists({str(b).lower()})"),
    )


@for_rule("social.listening.filter-language", params={"window": _WINDOW, "examples_scale": {"type": "number"},
                                                      "max_pages": _INT}, required=("window", "max_pages"))
def filter_language(ctx: CheckContext) -> None:
    params = ctx.rule.params
    window = f"created_time.in({params['window'][0]}..{params['window'][1]})"
    universe = read_topic(ctx, [window], params["max_pages"])
    if len({r.get("network") for r in universe}) < 2:
        ctx.skip("the topic's messages do not vary by network: filters not exercised")

    @ctx.property_test(TOPIC_MESSAGES, scale=params.get("examples_scale", 1.0))
    @given(st.lists(_filters(universe), min_size=1, max_size=3))
    @example([f"network.eq({universe[0]['network']}, {universe[-1]['network']})", "likes.gte(100)"])
    def agrees(filters: list[str]) -> None:
        want = evaluate(universe, filters)
        got = {r["guid"] for r in read_topic(ctx, [window, *filters], params["max_pages"])}
        expect(got == want, ctx.rule.id, f"filters {filters}: {len(got)} messages, {len(want)} expected "
               f"({len(got - want)} extra, {len(want - got)} missing)", exchange=ctx.session.exchanges[-1],
               expected="the messages an evaluation of the filters over the unfiltered messages selects")

    agrees()


@for_rule("social.listening.range-ends", params={"window": _WINDOW, "max_pages": _INT},
          required=("window", "max_pages"))
def range_ends(ctx: CheckContext) -> None:
    params = ctx.rule.params
    universe = read_topic(ctx, [f"created_time.in({params['window'][0]}..{params['window'][1]})"], params["max_pages"])
    stamps = sorted({r["created_time"] for r in universe})
    if len(stamps) < 3:
        ctx.skip("too few distinct created_time values to place a range end on one")
    low, high = stamps[len(stamps) // 3], stamps[2 * len(stamps) // 3]
    for dots in ("..", "..."):
        flt = f"created_time.in({low}{dots}{high})"
        got = {r["guid"] for r in read_topic(ctx, [flt], params["max_pages"])}
        want = evaluate(universe, [flt])
        expect(got == want, ctx.rule.id, f"{flt}: {len(got)} messages, {len(want)} expected", expected=(
            "messages at exactly the end included" if dots == ".." else "messages at exactly the end excluded"),
            exchange=ctx.session.exchanges[-1])


@for_rule("social.listening.dimensions")
def dimensions(ctx: CheckContext) -> None:
    """Each listed dimension accepted alone; a value outside the list refused (after the controls)."""
    operation = TOPIC_METRICS
    where = ctx.contract.where_schema(operation, "body.dimensions")
    allowed = list(where["items"]["enum"])
    for value in allowed:
        accepted(ctx, post(ctx, operation, body(ctx, operation, dimensions=[value])), operation, f"dimension {value}")
    for outside in outside_values(allowed):
        expect_refused(ctx, f"dimension {outside!r}",
                       partial(post, ctx, operation, body(ctx, operation, dimensions=[outside])),
                       control=partial(post, ctx, operation, body(ctx, operation, dimensions=allowed[:1])))
