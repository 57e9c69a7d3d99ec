"""Answers that hold the rows of another read: an export, the latest rows of a lookup (issue 30).

``export-matches``: the ``list`` operation is read to the end (``checks/combine.py``'s
``read_every_page``: the walk params, ``set``, ``relative_dates``); then the rule's operation (the
export) is asked, for each value its schema lists at ``body.<format_member>``, with the same
``relative_dates`` and its own ``export_set`` members (target settings filled in). Each answer is
a documented success whose rows, parsed as ``parsers`` says for that format (``csv``: a header
line and rows; ``ndjson``: one JSON object a line), carry in the ``id_column`` column (a target
setting where the document shows no header names) exactly the ``id_field`` values of the list.

``latest-rows``: the rule's operation (a lookup: its example body with ``lookup_set`` on top)
answers at most N rows at ``answer_items`` (N: that array's ``maxItems`` in the documented answer),
and they are the N newest (by ``newest_by``) of the ``list`` rows whose ``match.member`` is
``match.value``; where the list holds fewer than N such rows, every one of them (and the cap is
not exercised: skip after checking that).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from conformance.checks.combine import read_every_page
from conformance.checks.context import CheckContext
from conformance.checks.examples import setting_param
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.paging import PAGING_PARAMS, dig, member_names, sender
from conformance.checks.registry import named
from conformance.checks.steps import Steps
from conformance.errors import ContractFileError
from conformance.transport.jsonbody import loads
from conformance.transport.model import Exchange

__all__ = ["export_matches", "exported_ids", "latest_rows"]

_NAME = {"type": "string"}


def export_lines(exchange: Exchange) -> list[tuple[int, Any]]:
    """(line number, parsed value; None where the line is not JSON) of each non-blank line of a
    newline-delimited JSON export answer."""
    out: list[tuple[int, Any]] = []
    for number, line in enumerate(exchange.response.body.decode("utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, loads(line)))
        except ValueError:
            out.append((number, None))
    return out


def listed_formats(ctx: CheckContext, export: str) -> list[str]:
    """The formats the export's schema lists at ``body.<format_member>``, each named by ``parsers``."""
    params = ctx.rule.params
    formats = ctx.contract.where_schema(export, f"body.{params['format_member']}").get("enum") or []
    unparsed = [f for f in formats if f not in params["parsers"]]
    if not formats or unparsed:
        raise ContractFileError(f"{ctx.rule.id}: parsers must name every listed format ({unparsed or 'none listed'})")
    return [str(f) for f in formats]


def exported_ids(ctx: CheckContext, exchange: Exchange, parser: str, column: str) -> list[str]:
    """The ``column`` of every row of an export answer."""
    if parser == "csv":
        reader = csv.DictReader(io.StringIO(exchange.response.body.decode("utf-8", errors="replace")))
        expect(column in (reader.fieldnames or []), ctx.rule.id, f"the CSV header has no {column} column",
               exchange=exchange, expected=f"a {column} column (it was asked for)")
        return [row[column] for row in reader]
    ids = []
    for number, row in export_lines(exchange):
        expect(isinstance(row, dict) and column in row, ctx.rule.id, f"line {number} is no JSON object with "
               f"{column}", exchange=exchange, expected=f"newline-delimited JSON objects with {column}")
        assert isinstance(row, dict)
        ids.append(str(row[column]))
    return ids


def _text(row: Any, member: str) -> str:
    value = dig(row, member) if isinstance(row, dict) else None
    return "" if value is None else str(value)


@named("export-matches", params={**PAGING_PARAMS, "list": _NAME, "format_member": _NAME, "id_column": _NAME,
                                 "parsers": {"type": "object", "additionalProperties": {"enum": ["csv", "ndjson"]}},
                                 "export_set": {"type": "object"}},
       required=("list", "format_member", "id_column", "parsers", "id_field", "style"))
def export_matches(ctx: CheckContext) -> None:
    params, export = member_names(ctx, ctx.rule.params), str(ctx.rule.operation)
    rows = read_every_page(ctx, params, operation=params["list"])
    if not rows:
        ctx.skip(f"{params['list']} holds no rows: nothing to compare")
    wanted = sorted(_text(r, params["id_field"]) for r in rows)
    column = str(setting_param(ctx, params["id_column"], _NAME))
    members = Steps(ctx).resolve(params.get("export_set") or {})  # settings: configured, else defaulted
    send = sender(ctx, {"in": "body", "set": members, "relative_dates": params.get("relative_dates") or {},
                        "path_values": params.get("path_values") or {}}, export)
    for fmt in listed_formats(ctx, export):
        exchange = send({params["format_member"]: fmt})
        expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, export) or set(range(200, 300)),
                      f"the {fmt} export")
        got = sorted(exported_ids(ctx, exchange, params["parsers"][fmt], column))
        expect(got == wanted, ctx.rule.id, f"the {fmt} export holds {len(got)} rows, the list {len(wanted)} "
               f"({len(set(wanted) - set(got))} missing, {len(set(got) - set(wanted))} extra)",
               exchange=exchange, expected="the list's rows")


@named("latest-rows", params={**PAGING_PARAMS, "list": _NAME, "lookup_set": {"type": "object"}, "answer_items": _NAME,
                              "newest_by": _NAME,
                              "match": {"type": "object", "properties": {"member": _NAME, "value": _NAME},
                                        "required": ["member", "value"], "additionalProperties": False}},
       required=("list", "answer_items", "newest_by", "match", "id_field", "style"))
def latest_rows(ctx: CheckContext) -> None:
    params, lookup = member_names(ctx, ctx.rule.params), str(ctx.rule.operation)
    key, at = params["id_field"], params["answer_items"]
    schema = ctx.contract.deref(ctx.contract.response_schema(lookup, 200) or {})
    cap = ctx.contract.deref((schema.get("properties") or {}).get(at) or {}).get("maxItems")
    if not isinstance(cap, int):
        raise ContractFileError(f"{ctx.rule.id}: the 200 answer of {lookup} bounds no {at} (maxItems)")
    exchange = sender(ctx, {"in": "body", "set": params.get("lookup_set") or {}}, lookup)({})
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, lookup) or set(range(200, 300)), lookup)
    answered = ctx.contract.response_schema(lookup, exchange.response.status)
    if answered:
        expect_json_schema(ctx.rule.id, ctx.contract, exchange, answered, lookup)
    got_rows = dig(exchange.response.json(), at)
    expect(isinstance(got_rows, list), ctx.rule.id, f"{lookup}: no rows at {at}", exchange=exchange,
           expected=f"an array at {at}")
    got = {_text(r, key) for r in got_rows}
    value = str(Steps(ctx).resolve(params["match"]["value"]))
    listed = [r for r in read_every_page(ctx, params, operation=params["list"])
              if _text(r, params["match"]["member"]) == value]
    listed.sort(key=lambda r: -float(dig(r, params["newest_by"]) or 0))
    if len(listed) >= cap:
        newest = {_text(r, key) for r in listed[:cap]}
        expect(got == newest, ctx.rule.id, f"{len(got)} rows, not the latest {cap} of {params['list']} "
               f"({len(newest - got)} of those missing, {len(got - newest)} others)", exchange=exchange,
               expected=f"the latest {cap}")
        return
    missing = {_text(r, key) for r in listed} - got
    expect(not missing, ctx.rule.id, f"{len(missing)} of the {len(listed)} rows {params['list']} holds are missing",
           exchange=exchange, expected=f"every row (fewer than {cap})")
    ctx.skip(f"{params['list']} holds {len(listed)} rows, fewer than {cap}: the cap is not exercised")
