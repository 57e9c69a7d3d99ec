"""What a request asked for, compared with what came back (issue 35, item 11).

``columns-returned``: an export whose request names the columns it wants (affiliate's optional
``columns``, an array of names). For each format the schema lists at ``body.<format_member>``
(parsed as ``parsers`` says: ``csv`` a header line, ``ndjson`` one JSON object a line), the
export is read twice with the same body (``export_set``, ``relative_dates``):

1. without ``columns_member``: the target's default columns D (the CSV header, or the members
   the JSON lines carry);
2. with ``columns_member`` naming the first of ``columns`` (the column rows are known by) and up
   to two more of ``columns`` that D lacks (documented names; settings filled in).

Every asked column must come back (a CSV header name; a member of some JSON line). A server that
ignores the member and sends D fails on an asked column D lacks. Where every listed column is
in D, nothing asked can tell reading the member from ignoring it unless the answer differs
from D: an answer equal to D is not exercised (said so). Whether the answer holds *only* the
asked columns is not judged: documents that do not say so leave extra columns open (a gap).
A JSON export without lines shows no columns: not exercised. Derived fault ``naming-ignored``
(faults/reads.py) takes ``columns_member`` out of the request.
"""

from __future__ import annotations

import csv
import io

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.exports import export_lines, listed_formats
from conformance.checks.paging import sender
from conformance.checks.registry import named
from conformance.checks.steps import Steps
from conformance.transport.model import Exchange

__all__ = ["answered_columns", "columns_returned"]

_NAME = {"type": "string"}


def answered_columns(exchange: Exchange, parser: str) -> list[str] | None:
    """The columns an export answer carries, in order; ``None`` where it shows none (no JSON line)."""
    if parser == "csv":
        header = next(csv.reader(io.StringIO(exchange.response.body.decode("utf-8", errors="replace"))), None)
        return list(header) if header else None
    seen: list[str] = []
    for _, row in export_lines(exchange):
        if isinstance(row, dict):
            seen += [key for key in row if key not in seen]
    return seen or None


@named("columns-returned", params={"format_member": _NAME, "columns_member": _NAME,
                                   "columns": {"type": "array", "items": _NAME, "minItems": 2},
                                   "parsers": {"type": "object", "additionalProperties": {"enum": ["csv", "ndjson"]}},
                                   "export_set": {"type": "object"}, "relative_dates": {"type": "object"},
                                   "path_values": {"type": "object"}},
       required=("format_member", "columns_member", "columns", "parsers"))
def columns_returned(ctx: CheckContext) -> None:
    params, export = ctx.rule.params, str(ctx.rule.operation)
    member = params["columns_member"]
    listed = [str(name) for name in Steps(ctx).resolve(list(params["columns"]))]
    members = {k: v for k, v in Steps(ctx).resolve(params.get("export_set") or {}).items() if k != member}
    send = sender(ctx, {"in": "body", "set": members, "relative_dates": params.get("relative_dates") or {},
                        "path_values": params.get("path_values") or {}}, export)
    formats = listed_formats(ctx, export)
    success = success_statuses(ctx.contract, export) or set(range(200, 300))
    unexercised: list[str] = []
    for fmt in formats:
        parser = params["parsers"][fmt]
        plain = send({params["format_member"]: fmt}, drop=(member,))
        expect_status(ctx.rule.id, plain, success, f"the {fmt} export without {member}")
        default = answered_columns(plain, parser)
        if default is None:
            unexercised.append(f"{fmt}: the export without {member} shows no columns (no rows)")
            continue
        asked = [listed[0], *[c for c in listed[1:] if c not in default][:2]]
        if len(asked) == 1:
            asked = listed[:2]
        exchange = send({params["format_member"]: fmt, member: asked})
        expect_status(ctx.rule.id, exchange, success, f"the {fmt} export with {member} {asked}")
        got = answered_columns(exchange, parser)
        if got is None:
            unexercised.append(f"{fmt}: the export with {member} {asked} shows no columns (no rows)")
            continue
        missing = [c for c in asked if c not in got]
        expect(not missing, ctx.rule.id, f"the {fmt} export asked for {member} {asked} lacks {missing} (it carries "
               f"{got}; without {member}: {default})", exchange=exchange, expected=f"the asked columns {asked}")
        if all(c in default for c in asked) and got == default:
            unexercised.append(f"{fmt}: every column asked ({asked}) is among the default ones and the answer "
                               f"equals the default, so reading {member} cannot be told from ignoring it")
    if len(unexercised) == len(formats):
        ctx.skip("; ".join(unexercised))
