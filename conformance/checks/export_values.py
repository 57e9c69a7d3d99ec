"""Listed values in the rows of an export (issue 35, item 6: status values of every body carrying them).

``export-values``: the rule's operation (an export whose answer is rows in a listed format, not
JSON a schema can hold) is asked, for each value its schema lists at ``body.<format_member>``,
with its example body and ``export_set`` on top (the columns asked for; target settings filled
in) and ``relative_dates``; each answer is a documented success whose rows, parsed as ``parsers``
says for that format (``csv``: a header line and rows; ``ndjson``: one JSON object a line), hold
in each of ``columns`` (a column name -> the contract schema the document gives its values, a
``$ref``) only values that schema takes. An empty cell or a row without the column says nothing
(which members a row carries is another rule's concern). No row carrying a column at all is a
skip (not exercised), never a pass. CSV carries text only: a column whose schema is not a string
one is a contract error here.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses, validator
from conformance.checks.exports import export_lines, listed_formats
from conformance.checks.paging import sender
from conformance.checks.registry import named
from conformance.checks.steps import Steps
from conformance.errors import ContractFileError, SkipKind
from conformance.transport.model import Exchange

__all__ = ["export_rows", "export_values"]


def export_rows(exchange: Exchange, parser: str) -> list[dict[str, Any]]:
    """The rows of an export answer; a line of newline-delimited JSON that is no object is skipped
    here (the export's own rule judges the format)."""
    if parser == "csv":
        return [dict(row) for row in csv.DictReader(io.StringIO(exchange.response.body.decode("utf-8", "replace")))]
    return [row for _, row in export_lines(exchange) if isinstance(row, dict)]


_NAME = {"type": "string"}


@named("export-values", params={"format_member": _NAME, "export_set": {"type": "object"},
                                "relative_dates": {"type": "object"},
                                "parsers": {"type": "object", "additionalProperties": {"enum": ["csv", "ndjson"]}},
                                "columns": {"type": "object", "minProperties": 1,
                                            "additionalProperties": {"type": "object", "required": ["$ref"]}}},
       required=("format_member", "parsers", "columns"))
def export_values(ctx: CheckContext) -> None:
    params, export = ctx.rule.params, str(ctx.rule.operation)
    formats = listed_formats(ctx, export)
    schemas = {column: ref for column, ref in params["columns"].items()}  # validated as written
    for column, schema in schemas.items():
        if ctx.contract.deref(schema).get("type") != "string":
            raise ContractFileError(f"{ctx.rule.id}: column {column}'s schema is not a string one (CSV holds text)")
    members = Steps(ctx).resolve(params.get("export_set") or {})  # settings: configured, else defaulted
    send = sender(ctx, {"in": "body", "set": members, "relative_dates": params.get("relative_dates") or {}}, export)
    seen = 0
    for fmt in formats:
        exchange = send({params["format_member"]: fmt})
        expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, export) or set(range(200, 300)),
                      f"the {fmt} export")
        wrong: list[str] = []
        for number, row in enumerate(export_rows(exchange, params["parsers"][fmt]), start=1):
            for column, schema in schemas.items():
                value = row.get(column)
                if value is None or value == "":
                    continue
                seen += 1
                if not validator(ctx.contract, schema).is_valid(value):
                    wrong.append(f"row {number} {column} {value!r}")
        expect(not wrong, ctx.rule.id, f"the {fmt} export: {len(wrong)} values off the document's list: "
               + ", ".join(wrong[:5]), exchange=exchange,
               expected=" and ".join(f"{c} as {params['columns'][c]['$ref']} lists" for c in schemas))
    if not seen:
        ctx.skip(f"no exported row carried {', '.join(schemas)}", SkipKind.NOT_EXERCISED)
