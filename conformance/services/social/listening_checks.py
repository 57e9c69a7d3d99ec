"""The social scenario checks, of listening: the filter language against an independent evaluator
and the two range ends (every other social rule is a core check; the metrics dimensions are the
core enum check's, ``array_items``).

The evaluator below is this module's own reading of the document's operator list (it does not
import the simulator's): generated filters are sent to the target and the messages it selects
are compared with what the evaluator selects from the unfiltered messages.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

from hypothesis import example
from hypothesis import strategies as st

from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, fill
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.paths import path_values
from conformance.checks.registry import named

__all__ = ["evaluate", "read_topic", "window"]

TOPIC_MESSAGES = "POST /{customer_id}/listening/topics/{topic_id}/messages"
FIELDS = ["guid", "created_time", "network", "text", "visual_media"]
_WINDOW = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}
_INT = {"type": "integer", "minimum": 1}


def _moment(text: str) -> datetime:
    """A timestamp (the checks send no bare dates inside the property test: gap
    listening-bare-dates); one without an offset is read as UTC."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _get(row: dict[str, Any], field: str) -> Any:
    if field in (row.get("metrics") or {}):
        return row["metrics"][field]
    return row.get(field)


def _holds(row: dict[str, Any], text: str) -> bool | None:
    """Whether the filter holds for the row: True, False, or None where the document leaves the
    answer open (gaps match-terms and filter-values), so the target may go either way."""
    field, op, arg = re.match(r"^(.+)\.(\w+)\((.*)\)$", text).groups()  # type: ignore[union-attr]
    value = _get(row, field)
    if op == "exists":
        if value == [] or value == "":
            return None  # whether an empty array (or text) exists is not shown
        return (value is not None) == (arg == "true")
    if op == "match":
        # "terms must all match": a term present as a whole word in the same case matches under
        # every reading; one present only as a substring or in another case is open (how match
        # splits terms and whether it folds case are not shown).
        content = str(value or "")
        terms = arg.split()
        if all(term in re.findall(r"\w+", content) for term in terms):
            return True
        if all(term.lower() in content.lower() for term in terms):
            return None
        return False
    if op == "in":
        dots = "..." if "..." in arg else ".."
        low, high = (_moment(x) for x in arg.split(dots))
        moment = _moment(value)
        return low <= moment and (moment < high if dots == "..." else moment <= high)
    if value is None:
        return None  # a member the row lacks: neq and the comparisons are not defined for it
    if op in ("eq", "neq"):
        wanted = [v.strip() for v in arg.split(",")]
        if str(value) in wanted:
            same: bool | None = True
        elif str(value).lower() in {v.lower() for v in wanted}:
            same = None  # another case only: case-sensitivity is not shown
        else:
            same = False
        return same if op == "eq" or same is None else not same
    number, bound = float(value), float(arg)
    return {"gt": number > bound, "gte": number >= bound, "lt": number < bound, "lte": number <= bound}[op]


def evaluate(rows: list[dict[str, Any]], filters: list[str]) -> tuple[set[str], set[str]]:
    """The guids every filter surely holds for, and those the document leaves open."""
    sure: set[str] = set()
    open_: set[str] = set()
    for row in rows:
        verdicts = [_holds(row, f) for f in filters]
        if False in verdicts:
            continue
        (sure if all(verdicts) else open_).add(row["guid"])
    return sure, open_


def _page(ctx: CheckContext, query: dict[str, Any], page: int) -> Any:
    """Page ``page`` of the topic's messages for ``query``: a 200 valid under its schema."""
    exchange = ctx.call(TOPIC_MESSAGES, json_body={**query, "page": page},
                        path_values=path_values(ctx, TOPIC_MESSAGES).values)
    expect_status(ctx.rule.id, exchange, 200, f"page {page}")
    return expect_json_schema(ctx.rule.id, ctx.contract, exchange,
                              ctx.contract.response_schema(TOPIC_MESSAGES, 200) or {}, f"page {page}")


def _first_page(ctx: CheckContext, filters: list[str]) -> Any:
    # The example with settings filled in (``{PROFILE_ID}`` inside filter strings) under these members.
    query = {**example_body(ctx, TOPIC_MESSAGES), **fill(ctx, {"filters": filters, "fields": FIELDS,
                                                               "metrics": ["likes"]})}
    return query, _page(ctx, query, 1)


def read_topic(ctx: CheckContext, filters: list[str]) -> list[dict[str, Any]]:
    """Every message of the topic for ``filters``, as many pages as page 1 states (the walk
    itself is its own rule)."""
    query, answer = _first_page(ctx, filters)
    rows = list(answer["data"])
    pages = answer["paging"]["total_pages"]
    for page in range(2, pages + 1):
        answer = _page(ctx, query, page)
        if not answer["data"]:
            break
        rows += answer["data"]
    return rows


def window(ctx: CheckContext, span: list[str], read_pages: int) -> str:
    """A created_time window within ``span`` whose messages fit ``read_pages`` pages (this check's
    reading budget, not a bound of the target): the span, halved while page 1 states more."""
    start, end = date.fromisoformat(span[0]), date.fromisoformat(span[1])
    while True:
        flt = f"created_time.in({start.isoformat()}..{end.isoformat()})"
        pages = _first_page(ctx, [flt])[1]["paging"]["total_pages"]
        if pages <= read_pages:
            return flt
        if end <= start:
            ctx.skip(f"one day of the topic holds {pages} pages, more than the {read_pages} read per query")
        end = start + (end - start) // 2


def _words(rows: list[dict[str, Any]]) -> list[str]:
    return sorted({w for r in rows for w in re.findall(r"\w+", str(r.get("text", "")))})[:12]


def _filters(rows: list[dict[str, Any]]) -> Any:
    """Filters whose answer the document fixes, or leaves open only where ``evaluate`` says so:
    timestamps (no bare dates), single-word terms (no "OR": its spelling is not shown)."""
    networks = sorted({r["network"] for r in rows if r.get("network")})
    stamps = sorted({r["created_time"] for r in rows})
    ends = st.tuples(st.sampled_from(stamps), st.sampled_from(stamps)).map(sorted)
    return st.one_of(
        st.lists(st.sampled_from(networks), min_size=1, max_size=3, unique=True).map(
            lambda v: f"network.eq({', '.join(v)})"),
        st.sampled_from(networks).map(lambda v: f"network.neq({v})"),
        st.tuples(st.sampled_from(["gt", "gte", "lt", "lte"]), st.integers(0, 300)).map(
            lambda t: f"likes.{t[0]}({t[1]})"),
        st.tuples(ends, st.sampled_from(["..", "..."])).map(lambda t: f"created_time.in({t[0][0]}{t[1]}{t[0][1]})"),
        st.lists(st.sampled_from(_words(rows)), min_size=1, max_size=2, unique=True).map(
            lambda g: f"text.match({' '.join(g)})"),
        st.booleans().map(lambda b: f"visual_media.exists({str(b).lower()})"),
    )


def _agrees(ctx: CheckContext, universe: list[dict[str, Any]], flt: list[str], got: set[str], what: str) -> None:
    sure, open_ = evaluate(universe, flt)
    missing, extra = sure - got, got - sure - open_
    expect(not missing and not extra, ctx.rule.id, f"{what}: {len(got)} messages, {len(sure)} expected "
           f"(+{len(open_)} the document leaves open; {len(extra)} extra, {len(missing)} missing)",
           exchange=ctx.session.exchanges[-1],
           expected="the messages an evaluation of the filters over the unfiltered messages selects")


@named("social/filter-language", params={"window": _WINDOW, "examples_scale": {"type": "number"},
                                                      "read_pages": _INT}, required=("window", "read_pages"))
def filter_language(ctx: CheckContext) -> None:
    params = ctx.rule.params
    span = window(ctx, params["window"], params["read_pages"])
    universe = read_topic(ctx, [span])
    if len({r.get("network") for r in universe}) < 2:
        ctx.skip("the topic's messages do not vary by network: filters not exercised")

    @ctx.given(TOPIC_MESSAGES, strategy=st.lists(_filters(universe), min_size=1, max_size=3),
               scale=params.get("examples_scale", 1.0))
    @example([f"network.eq({universe[0]['network']}, {universe[-1]['network']})", "likes.gte(100)"])
    def agrees(filters: list[str]) -> None:
        got = {r["guid"] for r in read_topic(ctx, [span, *filters])}
        _agrees(ctx, universe, filters, got, f"filters {filters}")

    agrees()


@named("social/range-ends", params={"window": _WINDOW, "read_pages": _INT}, required=("window", "read_pages"))
def range_ends(ctx: CheckContext) -> None:
    params = ctx.rule.params
    universe = read_topic(ctx, [window(ctx, params["window"], params["read_pages"])])
    stamps = sorted({r["created_time"] for r in universe})
    if len(stamps) < 3:
        ctx.skip("too few distinct created_time values to place a range end on one")
    low, high = stamps[len(stamps) // 3], stamps[2 * len(stamps) // 3]
    for dots in ("..", "..."):
        flt = f"created_time.in({low}{dots}{high})"
        got = {r["guid"] for r in read_topic(ctx, [flt])}
        want = evaluate(universe, [flt])[0]
        expect(got == want, ctx.rule.id, f"{flt}: {len(got)} messages, {len(want)} expected", expected=(
            "messages at exactly the end included" if dots == ".." else "messages at exactly the end excluded"),
            exchange=ctx.session.exchanges[-1])
