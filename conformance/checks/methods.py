"""``method-refused``: a method a documented path does not serve is answered with the documented
status, on every documented path (issue 35: the rule tried one route, so a server answering
another way elsewhere passed).

For each path of openapi.yaml (``most`` bounds how many: a contract with more is refused, so
the count a run sends is the author's choice, two requests a path), in the document's order:

* the wrong method is the first of ``methods`` the path does not document (default GET, then
  PATCH, PUT, DELETE, POST: GET is safe, RFC 9110 section 9.2.1, and a PATCH of ``{}`` asks for
  no change should a target take it); a path documenting all of them is passed over;
* the control is sent first: the path's first documented operation as its example (body, query,
  path values from x-settings), under that operation's live guard (a path whose operation the run
  may not send is passed over, nothing sent there);
* the wrong method, the same path values and credentials, is then held to the documented status
  (``violation.status``: social's 405 "wrong HTTP method"). A 2xx (the method served) and a 5xx
  (never a refusal) fail. Any other status fails where the control showed the path served (any
  answer but 404, 405, 501 or a 5xx: a 400 for a payload the document does not show included):
  a 404 there says "no such endpoint" of an endpoint the target serves, which is not what the
  document gives for a wrong method. Where the control did not show it (a 404 for an id the
  target does not hold), only the documented status passes and anything else leaves that path
  unjudged. A status the document says to retry, still there after the retries, leaves the path
  unjudged too.

No path judged: not exercised, saying why for each.
"""

from __future__ import annotations

import copy
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import ExampleRequest, example_request, unique
from conformance.checks.refusal import documented_status
from conformance.checks.registry import named
from conformance.errors import ContractFailure, ContractFileError, RuleSkipped
from conformance.transport.model import Exchange, Request

__all__ = ["DEFAULT_METHODS", "method_refused", "wrong_method"]

_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
DEFAULT_METHODS = ("GET", "PATCH", "PUT", "DELETE", "POST")
# Statuses of a control that do not show the path served (RFC 9110 15.5.5, 15.5.6, 15.6.2).
_NOT_SHOWN = frozenset({404, 405, 501})


def wrong_method(item: dict[str, Any], preferred: tuple[str, ...] | list[str] = DEFAULT_METHODS) -> str | None:
    """The first of ``preferred`` a path item of openapi.yaml does not document, else None."""
    served = {m.upper() for m in item if m.upper() in _METHODS}
    return next((m for m in preferred if m not in served), None)


def _documented(item: dict[str, Any]) -> str | None:
    return next((m.upper() for m in item if m.upper() in _METHODS), None)


def _send(ctx: CheckContext, operation: str, method: str, example: ExampleRequest, n: int) -> Exchange:
    template = operation.split(" ", 1)[1]
    path = ctx.path(template, operation=operation, **example.path)
    if method == operation.split(" ", 1)[0]:
        body = unique(ctx, operation, copy.deepcopy(example.body), n)
        request = ctx.contract.body_request(operation, method, path, body, params=example.query or None)
    elif method in ("PATCH", "PUT", "POST"):
        # The smallest body such a method carries, asking for nothing (module doc).
        request = Request.build(method, path, params=example.query or None, json_body={})
    else:
        request = Request.build(method, path, params=example.query or None)
    return ctx.send(ctx.auth(request, operation))


@named("method-refused", params={"most": {"type": "integer", "minimum": 1},
                                 "methods": {"type": "array", "items": {"enum": list(_METHODS)}, "minItems": 1,
                                             "uniqueItems": True}},
       required=("most",))
def method_refused(ctx: CheckContext) -> None:
    rule = ctx.rule
    status = documented_status(ctx)
    if status is None:
        raise ContractFileError(f"{rule.id}: method-refused needs violation.status, the status the document gives "
                                "a wrong method")
    paths: dict[str, Any] = ctx.contract.openapi.get("paths") or {}
    if len(paths) > rule.params["most"]:
        raise ContractFileError(f"{rule.id}: openapi.yaml documents {len(paths)} paths, more than most "
                                f"{rule.params['most']}: raise most to send a wrong method to each")
    preferred = tuple(rule.params.get("methods") or DEFAULT_METHODS)
    judged: list[str] = []
    unjudged: list[str] = []
    for n, (template, item) in enumerate(paths.items(), start=1):
        first, method = _documented(item), wrong_method(item, preferred)
        if first is None or method is None:
            unjudged.append(f"{template}: every method tried is documented there")
            continue
        operation = f"{first} {template}"
        try:
            ctx.guard(operation)
            example = example_request(ctx, operation)
        except RuleSkipped as skipped:
            unjudged.append(f"{template}: {skipped}")
            continue
        control = _send(ctx, operation, first, example, n)
        got = _send(ctx, operation, method, example, n)
        answered, shown = got.response.status, control.response.status
        served = not control.transient and shown < 500 and shown not in _NOT_SHOWN
        why = f"{method} {template} (documented: {first}, which answered {shown})"
        if answered == status:
            judged.append(template)
            continue
        if 200 <= answered < 300:
            raise ContractFailure(rule.id, f"{why} was served: {answered}", expected=f"{status}, the documented "
                                  "answer to a wrong method", exchange=got)
        if got.transient:
            unjudged.append(f"{template}: {method} kept answering {got.transient}, which the document says to retry")
            continue
        if answered >= 500:
            raise ContractFailure(rule.id, f"{why} answered {answered}: a 5xx is never a refusal",
                                  expected=f"{status}, the documented answer to a wrong method", exchange=got)
        if served:
            raise ContractFailure(rule.id, f"{why} answered {answered}", exchange=got,
                                  expected=f"{status}, the status the document gives a wrong method"
                                  + (" (404 is for an endpoint that does not exist; this one is served)"
                                     if answered == 404 else ""))
        unjudged.append(f"{template}: {method} answered {answered} and {first} answered {shown}, so the path "
                        "is not shown served")
    if not judged:
        ctx.skip("no path judged: " + "; ".join(unjudged))
