"""Faults derived from the listed values a rule says an export's rows hold (issue 35, item 6).

``export-value-off-list`` (``export-values``): in every successful answer of the rule's export,
the first of its ``columns`` holds ``conformance-not-listed`` in every row that carries it (CSV
cells and newline-delimited JSON members alike), as by a server exporting its internal status
names. The check must find it off the document's list.
"""

from __future__ import annotations

import csv
import io
import json

from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault
from conformance.faults.toolkit import Wrap, on_response, operations
from conformance.transport.model import Request, Response

__all__ = ["OFF_LIST", "export_value_faults", "off_list"]

OFF_LIST = "conformance-not-listed"


def off_list(text: str, column: str) -> str:
    """The export ``text`` with ``column`` of every row that carries it set to OFF_LIST."""
    lines = text.splitlines(keepends=True)
    first = next((line for line in lines if line.strip()), "")
    try:
        json.loads(first)
    except ValueError:  # not newline-delimited JSON: CSV
        reader = csv.DictReader(io.StringIO(text))
        if column not in (reader.fieldnames or []):
            return text
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(reader.fieldnames or []), lineterminator="\n")
        writer.writeheader()
        writer.writerows({**row, column: OFF_LIST if row.get(column) else row.get(column)} for row in reader)
        return out.getvalue()
    edited = []
    for line in lines:
        try:
            row = json.loads(line) if line.strip() else None
        except ValueError:
            row = None
        if isinstance(row, dict) and row.get(column) not in (None, ""):
            line = json.dumps({**row, column: OFF_LIST}) + "\n"
        edited.append(line)
    return "".join(edited)


def _off_list(rule: Rule) -> Wrap:
    column = next(iter(rule.params["columns"]))
    match = operations([str(rule.operation)])

    def after(request: Request, response: Response) -> Response:
        if 200 <= response.status < 300 and match(request):
            response.body = off_list(response.body.decode("utf-8", errors="replace"), column).encode()
        return response

    return on_response(after)


def export_value_faults(contract: Contract) -> list[Fault]:
    return [derived_fault(f"export-value-off-list:{rule.id.split('.', 1)[1]}", rule.id,
                          f"{rule.operation} exports {next(iter(rule.params['columns']))} values off the "
                          "document's list")(_off_list(rule))
            for rule in contract.rules if rule.params.get("check") == "export-values"]
