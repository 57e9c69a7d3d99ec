"""Answers judged by what they declare: the only format rules a route table supports.

RFC 9110 section 8.3: Content-Type says how to read a representation. A body that declares
JSON (application/json, or a +json suffix, RFC 6839) must parse (RFC 8259); a body that
declares text/csv must be CSV by RFC 4180's grammar (a quoted field is closed, and nothing but a
separator follows its closing quote). A body that declares another type, or none, is not judged.
``csv-body`` holds data.csv to CSV, the one media type the document implies (the path and
"domains as CSV").

Only what RFC 4180 requires fails. "Each line should contain the same number of fields" is a
SHOULD, so ragged records are accepted; and a body without a charset parameter is read as UTF-8
(with or without a BOM), else byte for byte as Latin-1 (which reads any bytes), so an export in
cp1252 is still CSV. A body its declared charset does not decode is a failure: the
representation is not what it declares. ``declared-charset`` holds the answers to a rule's
probes to the one charset a document names (a declared charset, if any, is it; the body decodes).
"""

from __future__ import annotations

import csv
import io

from conformance.checks.context import CheckContext
from conformance.checks.headers import PROBE, send_probe
from conformance.checks.paths import path_values
from conformance.checks.registry import named
from conformance.checks.routes import call_listed
from conformance.errors import ContractFailure
from conformance.transport.jsonbody import JsonTooDeep, loads
from conformance.transport.model import Response

__all__ = ["csv_body", "csv_problem", "csv_records", "declared_charset", "ill_formed", "judgeable", "media_type",
           "well_formed_by_type"]

_STRUCTURED_NOT_CSV = ("json", "html", "xml")


def media_type(response: Response) -> str:
    return (response.header("content-type") or "").split(";")[0].strip().lower()


def _charset(response: Response) -> str | None:
    for part in (response.header("content-type") or "").split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return None


def _text(response: Response) -> str:
    """The body as text: in its declared charset (which may fail), else UTF-8 (a BOM is common
    in CSV exports and no part of the data), else Latin-1, which reads any bytes."""
    declared = _charset(response)
    if declared:
        return response.body.decode(declared)
    try:
        return response.body.decode("utf-8-sig")
    except UnicodeDecodeError:
        return response.body.decode("latin-1")


def csv_records(response: Response) -> list[list[str]] | str:
    """The records of a CSV body, or why it is not CSV."""
    try:
        text = _text(response)
    except (LookupError, UnicodeDecodeError) as exc:
        return f"not decodable as its declared charset ({type(exc).__name__})"
    try:
        records = [r for r in csv.reader(io.StringIO(text, newline=""), strict=True) if r]
    except csv.Error as exc:
        return f"not CSV: {exc}"
    return records


def csv_problem(response: Response) -> str | None:
    """Why the body breaks RFC 4180's grammar, or None. Records of different widths do not
    (RFC 4180 section 2 item 4 is a SHOULD)."""
    records = csv_records(response)
    return records if isinstance(records, str) else None


def _json_problem(response: Response) -> str | None:
    if not response.body.strip():
        return None  # no content to read (a bodiless answer); nothing is declared about absent bytes
    try:
        loads(response.body.decode("utf-8"))
    except JsonTooDeep as exc:
        return f"declared {media_type(response)} but {exc}"
    except (ValueError, UnicodeDecodeError) as exc:
        return f"declared {media_type(response)} but does not parse as JSON ({type(exc).__name__})"
    return None


def judgeable(response: Response) -> bool:
    """A body in a media type these rules read (JSON or CSV)."""
    declared = media_type(response)
    return bool(response.body.strip()) and (declared in ("application/json", "text/csv") or declared.endswith("+json"))


def ill_formed(response: Response) -> str | None:
    """Why the body is not what its Content-Type declares, or None (also for undeclared types)."""
    declared = media_type(response)
    if declared == "application/json" or declared.endswith("+json"):
        return _json_problem(response)
    if declared == "text/csv":
        problem = csv_problem(response)
        return f"declared text/csv but {problem}" if problem else None
    return None


def _looks_structured(response: Response) -> str | None:
    head = response.body.lstrip()[:1]
    if head in (b"{", b"["):
        try:
            loads(response.body)
            return "a JSON document"
        except JsonTooDeep:
            return "a JSON document (nested too deep to read)"
        except ValueError:
            pass
    if head == b"<":
        return "markup (HTML or XML)"
    return None


@named("csv-body")
def csv_body(ctx: CheckContext) -> None:
    operation = str(ctx.rule.operation)
    values = path_values(ctx, operation)
    exchange = call_listed(ctx, operation, values)
    response = exchange.response
    if not 200 <= response.status < 300:
        ctx.skip(f"{operation} answered {response.status}, not a success: no CSV to judge")
    declared = media_type(response)
    problem = None
    if any(kind in declared for kind in _STRUCTURED_NOT_CSV):
        problem = f"declares {declared}, another structured type"
    problem = problem or (f"the body is {_looks_structured(response)}" if _looks_structured(response) else None)
    problem = problem or csv_problem(response)
    if problem:
        raise ContractFailure(ctx.rule.id, f"data.csv is not CSV: {problem}",
                              expected="CSV (RFC 4180)", exchange=exchange)
    if isinstance(records := csv_records(response), list) and not records:
        ctx.skip(f"{operation} answered an empty body: no CSV record to judge")


@named("well-formed-by-type", params={"operations": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
       required=("operations",))
def well_formed_by_type(ctx: CheckContext) -> None:
    judged = 0
    for operation in ctx.rule.params["operations"]:
        exchange = call_listed(ctx, operation, path_values(ctx, operation))
        problem = ill_formed(exchange.response)
        if problem:
            raise ContractFailure(ctx.rule.id, f"{operation}: {problem}",
                                  expected="a body that is what its Content-Type declares", exchange=exchange)
        judged += judgeable(exchange.response)
    if not judged:
        ctx.skip("no answer declared a media type with a body: nothing to judge")


@named("declared-charset", params={"charset": {"type": "string"},
                                   "probes": {"type": "array", "items": PROBE, "minItems": 1}},
       required=("charset", "probes"))
def declared_charset(ctx: CheckContext) -> None:
    """Every answer to the probes (``checks.headers.PROBE``; an error answer too) that declares a
    charset declares ``charset`` (RFC 9110 section 8.3.2: names compare case-insensitively, and
    UTF-8 is also spelled utf8), and its body decodes in ``charset``."""
    wanted = ctx.rule.params["charset"].lower()
    spellings = {wanted, wanted.replace("-", "")}
    for probe in ctx.rule.params["probes"]:
        exchange = send_probe(ctx, probe)
        declared = _charset(exchange.response)
        if declared is not None and declared.lower() not in spellings:
            raise ContractFailure(ctx.rule.id, f"{probe['operation']}: declared "
                                  f"{exchange.response.header('content-type')!r}", exchange=exchange,
                                  expected=f"charset={wanted} or none")
        try:
            exchange.response.body.decode(wanted)
        except (LookupError, UnicodeDecodeError):
            raise ContractFailure(ctx.rule.id, f"{probe['operation']}: the body is not {wanted}", exchange=exchange,
                                  expected=f"a {wanted} body") from None
