"""Faults derived from what a rule says a write or a filter does (issue 35, items 4 and 5).

``write-not-applied`` for every ``read-after-write`` rule: each write whose effect a later step
judges (a step that echoes what it sent, or the write just before a read expecting the resource
gone, a member in or out of a list) goes without its effect: its JSON body reaches the
simulator without the members the later read compares (an update answered 2xx and not
persisted); a bodiless write (a delete, a member added by path) never reaches it and is
answered as its step expects (status, literal ``shows`` members): nothing removed or added.
Only the read back can tell.

``filter-ignored`` for every ``filter-applies`` and ``filters-combine`` rule: the filter is taken out of the request
before the simulator sees it (the query parameter, the body member, or the appended entry of a
body array), so the server answers everything, as one that ignores the filter does.
A filter that narrows an entry the read sends (``replaces``) is not taken out but widened back:
a request whose entry names fewer values than the widest such entry seen reaches the simulator
with that one, as a server ignoring the narrowing answers. A filter replacing a member's whole
value (``member`` with ``entry``) is put back: the request reaches the simulator with the value
the last request without the filter sent, so it is answered as the read without the filter.
``filter-refused``: a request carrying that filter is answered 400, as by a server that does not
know it. ``listed-value-refused`` for every ``filter-values-accepted`` rule: a filter by the last
value the contract lists is answered 400.

``read-only-written`` for every ``read-only-ignored`` rule: a read-only member (one the rule
probes) sent in a write is taken and stored: the simulator sees the write without it, and once
it accepts the write every later read shows the member as sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.checks.effects import judged_members, written_steps
from conformance.checks.expect import success_statuses
from conformance.checks.filters import listed_values, with_value
from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, FaultySimulator, derived_fault, on_request, on_response
from conformance.faults.toolkit import Match, operations, sent_json
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["effect_faults"]


class _Unapplied:
    """The writes ``match`` picks reach the simulator without their effect (module doc)."""

    def __init__(self, inner: Simulator, match: Match, members: dict[str, list[str] | None],
                 answers: dict[str, Response]) -> None:
        self._inner = inner
        self._match = match
        self._members = members
        self._answers = answers

    def handle(self, request: Request) -> Response:
        if not self._match(request):
            return self._inner.handle(request)
        try:
            body = json.loads(request.body) if request.body else None
        except ValueError:
            body = None
        if not isinstance(body, dict):
            # Nothing to leave out: answered as the rule expects, and never applied.
            canned = self._answers[request.method]
            return Response(canned.status, dict(canned.headers), canned.body)
        judged = self._members.get(request.method)
        for member in (list(body) if judged is None else judged):
            _pop(body, member)
        request.body = json.dumps(body).encode()
        return self._inner.handle(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _answer(contract: Contract, step: dict[str, Any]) -> Response:
    """What a bodiless write is answered under the fault: the status its step expects (the least
    documented success for ``success``) and the literal members its step's ``shows`` names."""
    expected = step.get("expect", "success")
    if isinstance(expected, int):
        status = expected
    elif isinstance(expected, list) and expected:
        status = int(expected[0])
    else:
        status = min(success_statuses(contract, step["call"]) or {200})
    shows = {k: v for k, v in (step.get("shows") or {}).items() if not (isinstance(v, str) and "{" in v)}
    return Response.json_response(status, shows)


def _wrapper(match: Match, members: dict[str, list[str] | None],
             answers: dict[str, Response]) -> Callable[[Simulator], Simulator]:
    return lambda sim: _Unapplied(sim, match, members, answers)  # type: ignore[return-value]


def _widened(match: Match, where: dict[str, Any]) -> Callable[[Simulator], Simulator]:
    """Entries starting with ``where["replaces"]`` answered as the widest one seen (module doc)."""
    prefix, widest = str(where["replaces"]), [""]

    def before(request: Request) -> Request:
        body = sent_json(request) if match(request) else None
        if not isinstance(body, dict):
            return request
        *parents, last = str(where["append"]).split(".")
        node: Any = body
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        entries = node.get(last) if isinstance(node, dict) else None
        if not isinstance(entries, list):
            return request
        for index, entry in enumerate(entries):
            if isinstance(entry, str) and entry.startswith(prefix):
                if entry.count(",") >= widest[0].count(",") or not widest[0]:
                    widest[0] = entry
                else:
                    entries[index] = widest[0]
        request.body = json.dumps(body).encode()
        return request

    return on_request(before)


def _put_back(match: Match, where: dict[str, Any]) -> Callable[[Simulator], Simulator]:
    """A member the filter's ``entry`` made given the value the last request without it sent."""
    unfiltered: list[Any] = []

    def before(request: Request) -> Request:
        body = sent_json(request) if match(request) else None
        if not isinstance(body, dict) or str(where["member"]) not in body:  # a top-level member
            return request
        sent = body[str(where["member"])]
        if not _made_by(where["entry"], sent):
            unfiltered[:] = [sent]
        elif unfiltered:
            body[str(where["member"])] = unfiltered[0]
            request.body = json.dumps(body).encode()
        return request

    return on_request(before)


def _without_filter(match: Match, where: dict[str, Any]) -> Callable[[Simulator], Simulator]:
    if "replaces" in where:
        return _widened(match, where)
    if "member" in where and "entry" in where:
        return _put_back(match, where)

    def before(request: Request) -> Request:
        if not match(request):
            return request
        if "query" in where:
            request.query = [(k, v) for k, v in request.query if k != where["query"]]
            return request
        try:
            body = json.loads(request.body or b"{}")
        except ValueError:
            return request
        if not isinstance(body, dict):
            return request
        if "member" in where:
            _pop(body, str(where["member"]))
        else:
            _drop_entries(body, str(where["append"]), where["entry"])
        request.body = json.dumps(body).encode()
        return request

    return on_request(before)


def _pop(body: dict[str, Any], dotted: str) -> None:
    *parents, last = dotted.split(".")
    node: Any = body
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(last, None)


def _drop_entries(body: dict[str, Any], dotted: str, entry: Any) -> None:
    """Leave out the entries of the array at ``dotted`` that the rule's ``entry`` template makes."""
    *parents, last = dotted.split(".")
    node: Any = body
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict) or not isinstance(node.get(last), list):
        return
    node[last] = [item for item in node[last] if not _made_by(entry, item)]


def _made_by(entry: Any, item: Any) -> bool:
    if isinstance(entry, str):
        head = entry.split("{$value}", 1)[0]
        return isinstance(item, str) and item.startswith(head)
    if isinstance(entry, list) and isinstance(item, list):
        return len(entry) == len(item) and all(_made_by(e, i) for e, i in zip(entry, item, strict=True))
    if isinstance(entry, dict) and isinstance(item, dict):
        # Members filled per request (``{$value}``, filters-combine's ``{$member}``) are not fixed.
        fixed = {k: v for k, v in entry.items() if not (isinstance(v, str) and "{$" in v)}
        return all(item.get(k) == v for k, v in fixed.items())
    return False


def _filtered(request: Request, where: dict[str, Any], value: Any = None) -> bool:
    """The request carries the rule's filter (by ``value``, when given)."""
    if "query" in where:
        return any(k == where["query"] and (value is None or v == str(value)) for k, v in request.query)
    body = sent_json(request)
    dotted = str(where.get("member") or where["append"])
    *parents, last = dotted.split(".")
    node: Any = body
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict) or last not in node:
        return False
    if "member" in where and "entry" in where:
        made = _made_by(where["entry"], node[last])
        return made and (value is None or node[last] == with_value(where["entry"], value))
    if "member" in where:
        return value is None or node[last] == value
    items = node[last] if isinstance(node[last], list) else []
    if value is None:
        return any(_made_by(where["entry"], item) for item in items)
    made = with_value(where["entry"], value)
    return any(item == made or (isinstance(made, dict) and isinstance(item, dict)
                                and all(item.get(k) == v for k, v in made.items())) for item in items)


def _refused_when(match: Match, where: dict[str, Any], value: Any = None) -> Callable[[Simulator], Simulator]:
    def after(request: Request, response: Response) -> Response:
        if match(request) and _filtered(request, where, value):
            return Response.json_response(400, {"message": "unknown filter"})
        return response

    return on_response(after)


def _short(rule: Rule) -> str:
    return rule.id.split(".", 1)[1]


def _stores_read_only(write: str, read: str, members: list[str]) -> Callable[[Simulator], Simulator]:
    on_write, on_read = operations([write]), operations([read])

    def wrap(sim: Simulator) -> Simulator:
        stored: dict[str, Any] = {}  # what the accepted writes sent for the read-only members
        sent: dict[str, Any] = {}

        def before(request: Request) -> Request:
            sent.clear()
            if on_write(request):
                body = sent_json(request)
                sent.update({m: body[m] for m in members if m in body})
                if sent:  # taken, not refused: the simulator sees the write without them
                    request.body = json.dumps({k: v for k, v in body.items() if k not in sent}).encode()
            return request

        def after(request: Request, response: Response) -> Response:
            if on_write(request) and 200 <= response.status < 300:
                stored.update(sent)
            if on_read(request) and 200 <= response.status < 300 and stored:
                try:
                    body = json.loads(response.body)
                except ValueError:
                    return response
                if isinstance(body, dict):
                    response.body = json.dumps({**body, **stored}).encode()
            return response

        return FaultySimulator(sim, before=before, after=after)  # type: ignore[return-value]

    return wrap


def effect_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        check = rule.params.get("check")
        if check == "read-after-write":
            steps = written_steps(rule.params)
            writes = [step["call"] for step in steps]
            if writes:
                method = {step["call"].split(" ", 1)[0]: step for step in steps}
                members = {m: judged_members(rule.params, step) for m, step in method.items()}
                answers = {m: _answer(contract, step) for m, step in method.items()}
                faults.append(derived_fault(
                    f"write-not-applied:{_short(rule)}", rule.id,
                    f"{', '.join(writes)} reach the simulator without their effect")(
                    _wrapper(operations(writes), members, answers)))
        elif check == "read-only-ignored":
            write, read = str(rule.params["write"]["call"]), str(rule.params["read"]["call"])
            faults.append(derived_fault(
                f"read-only-written:{_short(rule)}", rule.id,
                f"{write} stores the read-only members it is sent; {read} shows them")(
                _stores_read_only(write, read, list(rule.params["probes"]))))
        elif check == "filter-applies":
            where, call = rule.params["filter"], rule.params["read"]["call"]
            faults.append(derived_fault(
                f"filter-ignored:{_short(rule)}", rule.id,
                f"{call} ignores its filter ({json.dumps(where)}): every row answered")(
                _without_filter(operations([call]), where)))
            faults.append(derived_fault(
                f"filter-refused:{_short(rule)}", rule.id,
                f"{call} refuses its filter ({json.dumps(where)}) as unknown (400)")(
                _refused_when(operations([call]), where)))
        elif check == "filter-values-accepted":
            where, call = rule.params["filter"], rule.params["read"]["call"]
            last = listed_values(contract, rule.id, call, rule.params["values_at"])[-1]
            faults.append(derived_fault(
                f"listed-value-refused:{_short(rule)}", rule.id,
                f"{call} refuses a filter by the listed value {last!r} (400)")(
                _refused_when(operations([call]), where, last)))
        elif check == "filters-combine" and rule.operation:
            faults.append(derived_fault(
                f"filter-ignored:{_short(rule)}", rule.id,
                f"{rule.operation} ignores its filters ({json.dumps(rule.params['filter'])}): every row answered")(
                _without_filter(operations([rule.operation]), rule.params["filter"])))
    return faults
