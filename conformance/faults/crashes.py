"""Faults derived from a rule that expects a refusal: the refusal answered 500 instead.

``refusal-as-500``: a server that crashes where it should turn the request down (with 502 where the
document tells clients to retry a 500: ``crash_status``). ``refusal-as-retried``, where the document
tells clients to retry a 5xx (``x-retry-statuses``): the refusal answered that status every time,
which the session retries and a check judging a refusal after an accepted control must still fail
(the schemathesis rule aside: there a listed 5xx is a documented answer); also derived for the
checks that judge any 4xx after a control (enum, limit and required kinds, wrong-types,
invalid-bodies; ``checks/refusal.refusal_answer``). A 5xx is never
a refusal (a crash says nothing about the request), so every check holding a refusal must fail
it, beside ``refusal-as-404`` and ``status-remapped`` (a refusal with the wrong 4xx). Derived for:

* a rule documenting its refusal's status (``violation.status``, a 4xx) on its operation(s): that
  status answered 500;
* a ``refused-edit`` rule: its documented status, else any 4xx, answered 500 on the paths it
  sends to (by any method, or extended: the edit may change either);
* a rule sending a credential variant (``params.as``) to a check that holds its refusal (the
  core ``auth`` check, ``setting-path``, or a service check of a rule of kind ``error``), with no
  documented status: any 4xx on its operations answered 500;
* an ``authorization-refused`` rule: an authorization request that grants no code answered 500;
* a ``schemathesis`` rule ("no 5xx on generated requests"): any 4xx, to any operation, answered
  500, as a server crashing on the odd ids and values a generator sends.
"""

from __future__ import annotations

from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault, on_response
from conformance.faults.credentials import credential_requests, credential_rule
from conformance.faults.edits import AUTHORIZATION_CHECK, CHECK, edited_operations, edited_requests
from conformance.faults.toolkit import Match, Wrap, any_request, operations, status
from conformance.transport.model import Request, Response

__all__ = ["crash_status", "refusal_crash_faults"]

_CRASH = {"message": "internal error"}
_ANY_4XX = range(400, 500)


def crash_status(contract: Contract) -> int:
    """The 5xx a derived crash answers: 500, unless the document tells clients to retry a 500
    (social's "500 server error; retry", ``x-retry-statuses``), where a 500 that stays is no
    deviation the harness may call one (the rule is unchecked); then 502, a crash no document
    says to retry."""
    retried = contract.retry_statuses()
    return next(s for s in (500, 502, 505, 507, 508, 510, 511) if s not in retried)


def _listed(rule: Rule) -> list[str]:
    return [str(op) for op in rule.params.get("operations") or [rule.operation] if op]


def _no_code_crashes(match: Match, crash: int) -> Wrap:
    def after(request: Request, response: Response) -> Response:
        location = response.headers.get("location") or response.headers.get("Location") or ""
        if match(request) and "code=" not in location and response.status < 500:
            return Response.json_response(crash, _CRASH)
        return response

    return on_response(after)


def _crash(rule: Rule, crash: int) -> tuple[str, Wrap] | None:
    """(what is answered ``crash``, the wrapper) for a rule that expects a refusal, else None."""
    check = rule.params.get("check")
    documented = (rule.violation or {}).get("status")
    if check == "schemathesis":
        return "every refusal of a generated request", status(any_request, crash, when=_ANY_4XX, body=_CRASH)
    if check == AUTHORIZATION_CHECK and rule.operation:
        return (f"an authorization request to {rule.operation} that grants no code",
                _no_code_crashes(operations([rule.operation]), crash))
    if check == CHECK and (listed := edited_operations(rule)):
        refused = documented if isinstance(documented, int) else _ANY_4XX
        return f"a refusal on {', '.join(listed)}", status(edited_requests(listed), crash, when=refused, body=_CRASH)
    listed = _listed(rule)
    if listed and isinstance(documented, int) and 400 <= documented < 500:
        return f"the documented {documented} of {', '.join(listed)}", status(operations(listed), crash, when=documented,
                                                                                body=_CRASH)
    if credential_rule(rule) or (rule.kind == "error" and isinstance(rule.params.get("as"), dict)):
        where = ", ".join(listed) or f"{rule.params.get('method', 'any')} at {rule.params.get('setting', 'its path')}"
        return f"a refusal on {where}", status(credential_requests(rule), crash, when=_ANY_4XX, body=_CRASH)
    return None


def refusal_crash_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    crash = crash_status(contract)
    # Where the document tells clients to retry a 5xx, the refusal answered that status too: the
    # session retries it, and a check that judges a refusal after an accepted control must still
    # fail it (the target answered the control; a 5xx is never a refusal), not leave it unchecked.
    retried = min((s for s in contract.retry_statuses() if s >= 500), default=None)
    for rule in contract.rules:
        found = _crash(rule, crash)
        if found is not None:
            what, wrap = found
            faults.append(derived_fault(f"refusal-as-500:{rule.id.split('.', 1)[1]}", rule.id,
                                        f"{what} is answered {crash}")(wrap))
        again = _retried_crash(rule, retried) if retried is not None else None
        if again is not None:
            what, wrap = again
            faults.append(derived_fault(f"refusal-as-retried:{rule.id.split('.', 1)[1]}", rule.id,
                                        f"{what} is answered {retried}, which the document says to retry, "
                                        "every time")(wrap))
    return faults


def _retried_crash(rule: Rule, retried: int) -> tuple[str, Wrap] | None:
    """(what is answered ``retried``, the wrapper): where ``_crash`` derives a crash, and for the
    checks whose refusals follow an accepted control with any 4xx (the kind checks of
    checks/boundary.py, wrong-types, invalid-bodies), which refusal-as-500 leaves to other families.
    Not for the schemathesis rule: a 5xx an operation lists by number is a documented answer to the
    valid requests it generates (checks/generic.py), so there it is no deviation."""
    check = rule.params.get("check")
    if check == "schemathesis":
        return None
    found = _crash(rule, retried)
    if found is not None:
        return found
    listed = _listed(rule)
    if listed and ((rule.kind in _CONTROLLED_KINDS and not check) or check in _CONTROLLED_CHECKS):
        return f"a refusal on {', '.join(listed)}", status(operations(listed), retried, when=_ANY_4XX, body=_CRASH)
    return None


_CONTROLLED_KINDS = frozenset({"enum", "limit", "required"})
_CONTROLLED_CHECKS = frozenset({"wrong-types", "invalid-bodies"})

