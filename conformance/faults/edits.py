"""Faults derived from a ``refused-edit`` rule: a server that ignores what the rule's edit changes.

``edit-ignored`` for every rule the core check ``refused-edit`` carries: the edited request is
answered as the unedited one was. The fault remembers the last request to one of the rule's
operations (its path, whatever the method, or a path extending it) the simulator answered 2xx
(the check sends the unedited request first: its control); a later request there that the
simulator refuses (4xx) is answered as that remembered request is, so the server looks as if it
never saw the edit (another body member, path value, method, content type, credential...).
Before any accepted request, or when the simulator refuses the remembered request too, the
answer stands.

``code-despite-member`` for every rule the core check ``authorization-refused`` carries: the
authorization request's member (``where: query.<name>``) is not checked. The fault remembers the
member's value in the last authorization request the simulator granted (a redirect carrying a
code) and puts it in place of any other value, or of none, so the simulator grants that one too.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, FaultySimulator, derived_fault, path_pattern
from conformance.faults.toolkit import operations as to_any_of
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["edit_faults", "edited_operations", "edited_requests"]

CHECK = "refused-edit"
AUTHORIZATION_CHECK = "authorization-refused"


def edited_operations(rule: Rule) -> list[str]:
    """The operations a ``refused-edit`` rule sends to: its own (or ``params.operations``) and
    those its edits name."""
    refused = rule.params.get("refused") or []
    edits = refused if isinstance(refused, list) else [refused]
    listed = [str(op) for op in rule.params.get("operations") or [rule.operation] if op]
    return listed + [str(e["operation"]) for e in edits if isinstance(e, dict) and e.get("operation")]


def _under(template: str) -> re.Pattern[str]:
    """The operation's path, or a path extending it (an edit may append a segment)."""
    return re.compile(path_pattern(template).pattern.removesuffix("$") + r"(?:/.*)?$")


def edited_requests(operations: list[str]) -> Callable[[Request], bool]:
    """Requests to the operations' paths, or paths extending them, by any method: where an edited
    request goes (another method, an appended segment)."""
    patterns = [_under(op.split(" ", 1)[1]) for op in operations]
    return lambda request: any(pattern.search(request.path) for pattern in patterns)


def _ignoring(operations: list[str]) -> Callable[[Simulator], Simulator]:
    patterns = [_under(op.split(" ", 1)[1]) for op in operations]

    def which(request: Request) -> int | None:
        return next((i for i, pattern in enumerate(patterns) if pattern.search(request.path)), None)

    def wrap(sim: Simulator) -> Simulator:
        accepted: dict[int, Request] = {}  # per operation: the last request the simulator took
        replaying: list[bool] = [False]

        def after(request: Request, response: Response) -> Response:
            index = which(request)
            if index is None or replaying[0]:
                return response
            if 200 <= response.status < 300:
                accepted[index] = copy.deepcopy(request)
                return response
            if 400 <= response.status < 500 and index in accepted:
                replaying[0] = True
                try:
                    again = faulty.handle(copy.deepcopy(accepted[index]))
                finally:
                    replaying[0] = False
                return again if 200 <= again.status < 300 else response
            return response

        faulty = FaultySimulator(sim, after=after)
        return faulty  # type: ignore[return-value]

    return wrap


def _grants_code(response: Response) -> bool:
    location = response.headers.get("location") or response.headers.get("Location") or ""
    return 300 <= response.status < 400 and bool(parse_qs(urlsplit(location).query).get("code"))


def _granting(operation: str, name: str) -> Callable[[Simulator], Simulator]:
    on_operation = to_any_of([operation])

    def wrap(sim: Simulator) -> Simulator:
        granted: list[str] = []  # the member's value in the last request that got a code
        sent: list[str | None] = [None]

        def before(request: Request) -> Request:
            sent[0] = None
            if not on_operation(request):
                return request
            values = [v for k, v in request.query if k == name]
            if granted and values[:1] != granted[-1:]:
                request.query = [*[(k, v) for k, v in request.query if k != name], (name, granted[-1])]
            elif values:
                sent[0] = values[0]
            return request

        def after(request: Request, response: Response) -> Response:
            if sent[0] is not None and _grants_code(response):
                granted.append(sent[0])
            return response

        return FaultySimulator(sim, before=before, after=after)  # type: ignore[return-value]

    return wrap


def edit_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        area, _, name = (rule.where or "").partition(".")
        if rule.params.get("check") == AUTHORIZATION_CHECK and rule.operation and area == "query":
            faults.append(derived_fault(f"code-despite-member:{rule.id.split('.', 1)[1]}", rule.id,
                                        f"{rule.operation} grants a code whatever {name} says (or without it)")(
                _granting(rule.operation, name)))
        if rule.params.get("check") != CHECK:
            continue
        operations = edited_operations(rule)
        if not operations:
            continue
        faults.append(derived_fault(f"edit-ignored:{rule.id.split('.', 1)[1]}", rule.id,
                                    f"{', '.join(operations)} answers the request the rule edits as it answered "
                                    "the unedited one")(_ignoring(operations)))
    return faults
