"""Variant families a gap may allow: conforming choices of a shape any service could make.

A gap's ``allows:`` entry names a family and its params (rules.yaml); the core builds the variant
(faults/variants.py ``gap_variants``), so no service writes "answer 403 for 401" or "ids as
strings" in Python. Each builder reads its params through ``Params`` (scope params ``paths``,
``method``, ``operations``, ``statuses``: faults/gap_params.py) and returns the wrapper and one
line saying what it changes. Here: errors, statuses, bodies, media types and headers; the
families over the members of JSON answers are in faults/member_families.py, those over what a
request body may hold in faults/request_families.py.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from conformance.faults.base import on_request, on_response
from conformance.faults.gap_params import Params
from conformance.faults.member_families import MEMBER_FAMILIES, Build
from conformance.faults.request_families import REQUEST_FAMILIES
from conformance.faults.toolkit import Match, Wrap, operation
from conformance.simulators.base import SimError, Simulator
from conformance.transport.model import Request, Response

__all__ = ["GAP_FAMILIES", "Build"]

_EVERY = range(100, 600)


# -- errors -----------------------------------------------------------------------------------------

def _plain_text_errors(p: Params) -> tuple[Wrap, str]:
    match = p.scope()

    def after(request: Request, response: Response) -> Response:
        if response.status >= 400 and match(request):
            response.body = f"error {response.status}".encode()
            response.headers = {**response.headers, "content-type": "text/plain; charset=utf-8"}
        return response

    return on_response(after), "error answers carry a plain-text body"


def _other_error_body(p: Params) -> tuple[Wrap, str]:
    """``body``: a template, ``"{status}"`` and ``"{message}"`` filled, the message read from the
    original's ``message_from`` member (default ``message``)."""
    template, member, match = p.value("body"), p.text("message_from", "message"), p.scope()

    def fill(node: Any, status: int, message: str) -> Any:
        if node == "{status}":
            return status
        if isinstance(node, str):
            return node.replace("{message}", message)
        if isinstance(node, dict):
            return {k: fill(v, status, message) for k, v in node.items()}
        if isinstance(node, list):
            return [fill(v, status, message) for v in node]
        return node

    def after(request: Request, response: Response) -> Response:
        if response.status < 400 or not match(request):
            return response
        try:  # a body that is not JSON is replaced too
            original = json.loads(response.body)
            message = str(original.get(member, "error")) if isinstance(original, dict) else "error"
        except ValueError:
            message = "error"
        response.body = json.dumps(fill(template, response.status, message)).encode()
        response.headers = {**response.headers, "content-type": "application/json"}
        return response

    return on_response(after), f"error answers carry {json.dumps(template)}"


# -- statuses and bodies ------------------------------------------------------------------------------

def _other_status(p: Params) -> tuple[Wrap, str]:
    """``status`` answered ``instead_of`` another; ``body_matches`` (a regular expression searched
    in the answer's body) narrows it to some answers; ``body`` (JSON) replaces the body."""
    new, old = p.status("status"), p.statuses("instead_of", required=True)
    assert old is not None
    said, body, match = p.regex("body_matches"), p.value("body", None), p.scope()

    def after(request: Request, response: Response) -> Response:
        if response.status in old and match(request) and said.search(response.body.decode("utf-8", "replace")):
            response.status = new
            if body is not None:
                response.body = json.dumps(body).encode()
                response.headers = {**response.headers, "content-type": "application/json"}
        return response

    return on_response(after), f"{new} answered instead of {'/'.join(map(str, sorted(old)))}"


def _bodiless_answers(p: Params) -> tuple[Wrap, str]:
    """A success answered ``status`` without a body (and so without a content type), with
    ``headers`` (a mapping of header to value) added: a 202 pointing at a job with Location."""
    new, old, match = p.status("status"), p.statuses("instead_of", (200,)), p.scope()
    assert old is not None
    added = p.value("headers", {})
    if not isinstance(added, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in added.items()):
        raise p.error(f"'headers' must map header names to text values, not {added!r}")

    def after(request: Request, response: Response) -> Response:
        if response.status in old and match(request):
            kept = {k: v for k, v in response.headers.items() if k not in ("content-type", "content-length")}
            return Response(new, {**kept, **{k.lower(): v for k, v in added.items()}}, b"")
        return response

    said = f" carrying {', '.join(added)}" if added else ""
    return on_response(after), f"{new} without a body{said} instead of a {'/'.join(map(str, sorted(old)))} with one"


def _other_media_type(p: Params) -> tuple[Wrap, str]:
    """The same body declared ``content_type``, where the answer's type matches ``instead_of``."""
    new, old, match = p.text("content_type"), p.regex("instead_of"), p.scope()
    statuses = p.statuses("statuses") or _EVERY

    def after(request: Request, response: Response) -> Response:
        current = response.headers.get("content-type")
        if current and old.search(current) and response.status in statuses and match(request):
            response.headers = {**response.headers, "content-type": new}
        return response

    return on_response(after), f"bodies declared {new}"


# -- requests -----------------------------------------------------------------------------------------

def _request_defaults(p: Params) -> tuple[Wrap, str]:
    """A server taking defaults for members a JSON request body leaves out (an empty body reads as
    ``{}``): ``defaults`` maps an operation (``"POST /v1/things"``) to its members' defaults."""
    given = p.value("defaults")
    if not isinstance(given, dict) or not given or not all(
            isinstance(op, str) and isinstance(members, dict) and members for op, members in given.items()):
        raise p.error(f"'defaults' must map operations ('POST /path') to mappings of members, not {given!r}")
    bad = [op for op in given if not re.match(r"^(GET|POST|PUT|PATCH|DELETE) /", op)]
    if bad:
        raise p.error(f"'defaults' keys are 'METHOD /path', not {bad[0]!r}")
    picks = [(operation(*op.split(" ", 1)), members) for op, members in given.items()]
    scope = p.scope()

    def before(request: Request) -> Request:
        for picked, members in picks:
            if picked(request) and scope(request):
                try:
                    body = json.loads(request.body or b"{}")
                except ValueError:
                    return request
                if isinstance(body, dict):
                    request.body = json.dumps({**body, **{k: v for k, v in members.items() if k not in body}}).encode()
                return request
        return request

    return on_request(before), "; ".join(f"{op} defaults {', '.join(m)}" for op, m in given.items())


# -- headers ------------------------------------------------------------------------------------------

def _echoed_header(p: Params) -> tuple[Wrap, str]:
    name, match = p.text("header").lower(), p.scope()

    def after(request: Request, response: Response) -> Response:
        value = request.header(name)
        if value is not None and match(request):
            response.headers = {**response.headers, name: value}
        return response

    return on_response(after), f"the request's {name} echoed"


# -- transient answers --------------------------------------------------------------------------------

class _AnsweredLater:
    """A simulator that answers every ``every``-th request it is sent (of those ``match`` picks) with
    the next of ``statuses`` in turn, without serving it; the request after it is served. Counted per
    simulator, so per rule: deterministic, no randomness and no clock."""

    def __init__(self, inner: Simulator, every: int, statuses: list[int], match: Match) -> None:
        self._inner, self._every, self._statuses, self._match = inner, every, statuses, match
        self._seen = 0

    def handle(self, request: Request) -> Response:
        if self._match(request):
            self._seen += 1
            if self._seen % self._every == 0:
                status = self._statuses[(self._seen // self._every - 1) % len(self._statuses)]
                # The service's own error answer (its body and the headers every answer carries).
                return self._inner.finish(request, self._inner.error_response(SimError(status, "retry later")))
        return self._inner.handle(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _answered_later(p: Params) -> tuple[Wrap, str]:
    """A server that answers a status its document tells clients to retry (``status``: one or a list,
    taken in turn) to every ``every``-th request and the real answer when asked again: what a loaded
    server may do at any time (``every`` of at least 2, so a retry is always served)."""
    listed = p.value("status")
    statuses = listed if isinstance(listed, list) else [listed]
    if not statuses or not all(isinstance(s, int) and not isinstance(s, bool) and 100 <= s <= 599 for s in statuses):
        raise p.error(f"'status' must be an HTTP status or a list of them, not {listed!r}")
    every = p.value("every", 2)
    if not isinstance(every, int) or isinstance(every, bool) or every < 2:
        raise p.error(f"'every' must be a whole number of at least 2, not {every!r}")
    match = p.scope()

    def wrap(sim: Simulator) -> Simulator:
        return _AnsweredLater(sim, every, statuses, match)  # type: ignore[return-value]

    said = "/".join(map(str, statuses))
    return wrap, f"one request in {every} answered {said} first, the real answer when asked again"


# family -> (builder from the allows entry's params, its description)
def _extra_columns(p: Params) -> tuple[Wrap, str]:
    """Successful export answers (a CSV header and rows, or one JSON object a line) carry the
    ``columns`` (a mapping of name to the text every row holds) beside those asked, where they
    lack them: a server adding its default columns to the asked ones."""
    added, match = p.value("columns"), p.scope()
    if not isinstance(added, dict) or not added or not all(isinstance(v, str) for v in added.values()):
        raise p.error(f"'columns' must map column names to text values, not {added!r}")

    def widened(text: str) -> str:
        lines = text.splitlines()
        try:
            rows = [json.loads(line) for line in lines if line.strip()]
        except ValueError:
            rows = []
        if rows and all(isinstance(r, dict) for r in rows):
            return "".join(json.dumps({**r, **{k: v for k, v in added.items() if k not in r}}) + "\n" for r in rows)
        table = list(csv.reader(io.StringIO(text)))
        if not table:
            return text
        extra = [k for k in added if k not in table[0]]
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(table[0] + extra)
        writer.writerows(row + [added[k] for k in extra] for row in table[1:])
        return out.getvalue()

    def after(request: Request, response: Response) -> Response:
        if 200 <= response.status < 300 and match(request) and response.body:
            response.body = widened(response.body.decode("utf-8", errors="replace")).encode()
            response.headers = {k: v for k, v in response.headers.items() if k != "content-length"}
        return response

    return on_response(after), f"exports carry {', '.join(added)} beside the asked columns"


GAP_FAMILIES: dict[str, tuple[Build, str]] = {
    "plain-text-errors": (_plain_text_errors, "error bodies are plain text"),
    "other-error-body": (_other_error_body, "errors carry another JSON body"),
    "other-status": (_other_status, "another status where the document names none"),
    "bodiless-answers": (_bodiless_answers, "a success answered without a body"),
    "other-media-type": (_other_media_type, "another media type for the same body"),
    "request-defaults": (_request_defaults, "missing request members defaulted"),
    "echoed-header": (_echoed_header, "a request header echoed in the answer"),
    **MEMBER_FAMILIES,
    "answered-later": (_answered_later, "a status the document says to retry, then the real answer"),
    "extra-columns": (_extra_columns, "export columns beyond the asked ones"),
    **REQUEST_FAMILIES,
}
