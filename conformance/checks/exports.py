"""An export holds the rows of the list it exports (issue 30).

``export-matches``: the ``list`` operation is read to the end (``checks/combine.py``'s
``read_every_page``: the walk params, ``set``, ``relative_dates``); then the rule's operation (the
export) is asked, for each value its schema lists at ``body.<format_member>``, with the same
``relative_dates`` and its own ``export_set`` members (target settings filled in). Each answer is
a documented success whose rows, parsed as ``parsers`` says for that format (``csv``: a header
line and rows; ``ndjson``: one JSON object a line), carry in the ``id_column`` column (a target
setting where the document shows no header names) exactly the ``id_field`` values of the list.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from conformance.checks.combine import read_every_page
from conformance.checks.context import CheckContext
from conformance.checks.examples import setting_param
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.paging import PAGING_PARAMS, dig, member_names, sender
from conformance.checks.registry import named
from conformance.checks.steps import Steps
from conformance.errors import ContractFileError
from conformance.transport.jsonbody import loads
from conformance.transport.model import Exchange

__all__ = ["export_matches", "exported_ids"]

_NAME = {"type": "string"}


def exported_ids(ctx: CheckContext, exchange: Exchange, parser: str, column: str) -> list[str]:
    """The ``column`` of every row of an export answer."""
    text = exchange.response.body.decode("utf-8", errors="replace")
    if parser == "csv":
        reader = csv.DictReader(io.StringIO(text))
        expect(column in (reader.fieldnames or []), ctx.rule.id, f"the CSV header has no {column} column",
               exchange=exchange, expected=f"a {column} column (it was asked for)")
        return [row[column] for row in reader]
    ids = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = loads(line)
        except ValueError:
            row = None
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
    formats = ctx.contract.where_schema(export, f"body.{params['format_member']}").get("enum") or []
    unparsed = [f for f in formats if f not in params["parsers"]]
    if not formats or unparsed:
        raise ContractFileError(f"{ctx.rule.id}: parsers must name every listed format ({unparsed or 'none listed'})")
    for fmt in formats:
        exchange = send({params["format_member"]: fmt})
        expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, export) or set(range(200, 300)),
                      f"the {fmt} export")
        got = sorted(exported_ids(ctx, exchange, params["parsers"][fmt], column))
        expect(got == wanted, ctx.rule.id, f"the {fmt} export holds {len(got)} rows, the list {len(wanted)} "
               f"({len(set(wanted) - set(got))} missing, {len(set(got) - set(wanted))} extra)",
               exchange=exchange, expected="the list's rows")
