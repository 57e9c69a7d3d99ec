"""The catalogue's route and media-type rules, as far as one exchange shows them.

- ``route-served`` (``checks/routes.py``): a documented route answered with one of the rule's
  ``missing_statuses`` (404, 405, 501) is not served, and a 5xx shows no route served either (as in
  a run). Any other answer shows it served. A 404 is judged only on a route with no path
  parameter: where the path names an id, the caller's id may be one the upstream does not hold,
  and a 404 cannot tell "no such id" from "no such route" (a run skips the same 404 for a
  defaulted id; ``none_statuses`` and ``placeholder_operations`` say so in the catalogue). Such an
  exchange does not touch the rule. ``alias_prefix`` (a route also sent at another prefix) and
  ``readings`` (an operation the documents give two paths: served at one at least) need requests a
  run makes of its own; the proxy judges the listed routes only.
- ``well-formed-by-type`` (``checks/wellformed.py``): an answer to a listed route whose body
  declares JSON or CSV is what it declares; an answer with no body, or of another type, does not
  touch the rule (as a run does not judge it).
"""

from __future__ import annotations

from conformance.checks.wellformed import ill_formed, judgeable
from conformance.contract.model import Rule
from conformance.proxy.findings import VENDOR, Finding, RuleIndex
from conformance.transport.model import Response

__all__ = ["route_findings"]


def route_findings(index: RuleIndex, operation: str, response: Response) -> tuple[list[str], list[Finding]]:
    """The rule ids this exchange touched, and what failed."""
    touched: list[str] = []
    found: list[Finding] = []
    for rule in index.contract.rules:
        check = rule.params.get("check")
        if check == "route-served":
            judged, problem = _route(rule, operation, response.status)
        elif check == "well-formed-by-type" and operation in (rule.params.get("operations") or []):
            judged, problem = judgeable(response), ill_formed(response)
        else:
            continue
        if not judged:
            continue
        touched.append(rule.id)
        if problem is not None:
            found.append(index.attribute(Finding(VENDOR, rule.kind, operation, None, "",
                                                 f"{response.status}: {problem}"), [rule]))
    return touched, found


def _route(rule: Rule, operation: str, status: int) -> tuple[bool, str | None]:
    """Whether the exchange says anything about the rule, and what failed."""
    listed = list(rule.params.get("operations") or ([rule.operation] if rule.operation else []))
    placeholders = list(rule.params.get("placeholder_operations") or [])
    if operation not in listed and operation not in placeholders:
        return False, None
    if status >= 500:
        return True, f"{operation} answered {status}: a crash shows no route served"
    if status not in (rule.params.get("missing_statuses") or []):
        return True, None
    if status == 404 and ("{" in operation or operation in placeholders
                          or 404 in (rule.params.get("none_statuses") or [])):
        return False, None  # "no such id" or "no such route": one exchange cannot tell
    return True, f"{operation} is documented but answered {status} (the route not served)"
