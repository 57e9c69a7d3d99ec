"""Faults derived from what a paging rule states: its page size, its walk, its only-when-more member.

``page-one-over`` for every ``page-size`` rule that holds rows (not ``only_total``): every page of
the rule's operation(s) holds one item more than it should (a copy of its last item appended),
so a default page of 50 answers 51.

``row-repeated`` for every ``paging-walk`` rule: every answer after the first starts with the
last item of the answer before it (in place of its own first item), so a walk meets one row
twice and misses another.

``member-on-last-page`` for every ``paging-walk`` rule with ``present_only_when_more``: a page
lacking the member gets it, with a next cursor (``next_field``) that leads to a page of no items.
``next-on-last-page`` for the same rules: as ``member-on-last-page``, but every page of no items a
cursor leads to carries the member again with a new cursor (a server giving a next cursor on
every page, past the data too), so a walk reads empty pages until its budget ends it.

``total-off-by-one`` for every ``paging-walk`` rule stating a total (``total_field``,
``count_field``, ``total_pages_field``) and every ``same-total`` rule: the rule's operation states
one more than it holds.

``next-dropped`` for every cursor ``paging-walk`` rule with a ``more_field``: the pages that say
more carry no ``next_field`` cursor. ``cursor-loops`` for every cursor (or key) ``paging-walk``
rule with a ``next_field``: a page asked for with a cursor and ending the list carries that very
cursor as its next (and says more), so a walk reads it again. ``more-denied`` for every
numbered (``page``) ``paging-walk`` rule with a ``more_field``: every page says no more.

``default-not-applied`` for every ``param-default`` rule over a query parameter with a numeric
default: a request leaving the parameter out is served as if it named the default plus one.

``past-end-served`` for every ``page-past-end`` rule: the page after the last is not refused but
answered as the last page answered (the last 2xx of the rule's operation), with no items.

``count-accepted`` for every ``count-limit`` rule: a request naming more than ``most`` values
where the rule's ``set`` puts them (``"{values}"``) is served as if it named the first ``most``.

The items are where the rule's ``items_field`` says (a ``{SETTING}`` read as the catalogue's
default, the simulator's name), else the one array of objects carrying its ``id_field``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from conformance.checks.listed import PLACEHOLDER
from conformance.checks.paging import dig, items_of
from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, FaultySimulator, derived_fault
from conformance.faults.toolkit import Match, Wrap, operations, request_body
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["paging_faults"]

# The cursor member-on-last-page announces: the wrapper itself answers the page it leads to.
PAST_END = "conformance-derived-past-end"


def _named(contract: Contract, value: Any) -> Any:
    """A param naming a setting (``"{ITEMS_FIELD}"``) as the catalogue's default for it."""
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return (contract.settings.get("defaults") or {}).get(value[1:-1], value)
    return value


def _matching(rule: Rule) -> Match:
    return operations(str(op) for op in rule.params.get("operations") or [rule.operation])


def _items(contract: Contract, rule: Rule, body: Any) -> list[Any] | None:
    id_fields = rule.params.get("id_fields") or [rule.params.get("id_field", "id")]
    found = items_of(body, _named(contract, rule.params.get("items_field")), str(_named(contract, id_fields[0])))
    if found is None and isinstance(body, list):
        return body
    return found


def _answers(match: Match, edit: Callable[[Request, Any], Any]) -> Callable[[Request, Response], Response]:
    """Edit the JSON of every 2xx answer ``match`` picks."""

    def after(request: Request, response: Response) -> Response:
        if 200 <= response.status < 300 and match(request):
            try:
                body = json.loads(response.body)
            except ValueError:
                return response
            response.body = json.dumps(edit(request, body)).encode()
        return response

    return after


def _one_over(contract: Contract, rule: Rule) -> Wrap:
    def edit(request: Request, body: Any) -> Any:
        items = _items(contract, rule, body)
        if items:
            items.append(json.loads(json.dumps(items[-1])))
        return body

    return lambda sim: FaultySimulator(sim, after=_answers(_matching(rule), edit))  # type: ignore[return-value]


def _repeated(contract: Contract, rule: Rule) -> Wrap:
    def wrap(sim: Simulator) -> Simulator:
        previous: list[Any] = []  # the last item of the answer before (one simulator, one case)

        def edit(request: Request, body: Any) -> Any:
            items = _items(contract, rule, body)
            if not items:
                return body
            last = json.loads(json.dumps(items[-1]))
            if previous:
                items[0] = previous[0]
            previous[:] = [last]
            return body

        return FaultySimulator(sim, after=_answers(_matching(rule), edit))  # type: ignore[return-value]

    return wrap


def _set(body: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = body
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value


def _member_on_last_page(contract: Contract, rule: Rule, endless: bool = False) -> Wrap:
    member = str(_named(contract, rule.params["present_only_when_more"]))
    next_field = str(_named(contract, rule.params["next_field"]))
    cursor = str(_named(contract, rule.params["cursor_param"]))
    in_body = rule.params.get("in") == "body"
    holder = _named(contract, rule.params.get("body_member"))
    match = _matching(rule)

    def past_end(value: Any) -> bool:
        # Endless: every announced page names a new cursor (PAST_END-1, PAST_END-2...), all past the end.
        return value == PAST_END or (endless and isinstance(value, str) and value.startswith(PAST_END + "-"))

    def wrap(sim: Simulator) -> Simulator:
        asked: list[bool] = [False]  # the request in flight carried PAST_END
        served = [0]  # announced pages answered (endless: each names the next)

        def before(request: Request) -> Request:
            asked[0] = False
            if not match(request):
                return request
            if in_body:
                try:
                    sent = json.loads(request.body or b"{}")
                except ValueError:
                    return request
                place = sent.get(holder) if holder else sent
                if isinstance(place, dict) and past_end(place.get(cursor)):
                    del place[cursor]
                    asked[0] = True
                    request.body = json.dumps(sent).encode()
            elif any(k == cursor and past_end(v) for k, v in request.query):
                request.query = [(k, v) for k, v in request.query if k != cursor]
                asked[0] = True
            return request

        def edit(request: Request, body: Any) -> Any:
            if not isinstance(body, dict):
                return body
            if asked[0]:  # the announced page: no items, no member (endless: the member again)
                items = _items(contract, rule, body)
                if items is not None:
                    items.clear()
                body.pop(member.split(".", 1)[0], None)
                if endless:
                    served[0] += 1
                    _set(body, next_field, f"{PAST_END}-{served[0]}")
            elif not dig(body, member):
                _set(body, next_field, PAST_END)
            return body

        return FaultySimulator(sim, before=before, after=_answers(match, edit))  # type: ignore[return-value]

    return wrap


def _total_plus_one(contract: Contract, rule: Rule, field: str) -> Wrap:
    def edit(request: Request, body: Any) -> Any:
        stated = dig(body, field)
        if isinstance(body, dict) and isinstance(stated, int) and not isinstance(stated, bool):
            _set(body, field, stated + 1)
        return body

    return lambda sim: FaultySimulator(sim, after=_answers(_matching(rule), edit))  # type: ignore[return-value]


def _total_field(contract: Contract, rule: Rule) -> str | None:
    for name in ("total_field", "count_field", "total_pages_field"):
        if isinstance(rule.params.get(name), str):
            return str(_named(contract, rule.params[name]))
    return None


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [s for item in node for s in _strings(item)]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    return []


def _count_accepted(rule: Rule) -> Wrap:
    most = int(rule.params["most"])
    # Each set string naming the values, as a pattern: its text around "{values}".
    patterns = [re.compile(re.escape(a) + "(.*)" + re.escape(b) + "$")
                for a, _, b in (t.partition(PLACEHOLDER) for t in _strings(rule.params["set"]) if PLACEHOLDER in t)]

    def cut(node: Any) -> Any:
        if isinstance(node, str):
            for pattern in patterns:
                found = pattern.match(node)
                if found:
                    values = found.group(1).split(", ")
                    return node[:found.start(1)] + ", ".join(values[:most]) + node[found.end(1):]
            return node
        if isinstance(node, list):
            return [cut(item) for item in node]
        if isinstance(node, dict):
            return {key: cut(value) for key, value in node.items()}
        return node

    return request_body(_matching(rule), cut)


def _more_denied(contract: Contract, rule: Rule) -> Wrap:
    more = str(_named(contract, rule.params["more_field"]))

    def edit(request: Request, body: Any) -> Any:
        if isinstance(body, dict) and dig(body, more):
            _set(body, more, False)
        return body

    return lambda sim: FaultySimulator(sim, after=_answers(_matching(rule), edit))  # type: ignore[return-value]


def _next_dropped(contract: Contract, rule: Rule) -> Wrap:
    more = str(_named(contract, rule.params["more_field"]))
    next_field = str(_named(contract, rule.params["next_field"]))

    def edit(request: Request, body: Any) -> Any:
        holder = dig(body, next_field.rpartition(".")[0]) if "." in next_field else body
        if isinstance(body, dict) and dig(body, more) and isinstance(holder, dict):
            holder.pop(next_field.rpartition(".")[2], None)
        return body

    return lambda sim: FaultySimulator(sim, after=_answers(_matching(rule), edit))  # type: ignore[return-value]


def _sent_cursor(contract: Contract, rule: Rule, request: Request) -> Any:
    """The cursor a request of the rule's walk carries (query or body), else None."""
    cursor = str(_named(contract, rule.params["cursor_param"]))
    if rule.params.get("in") != "body":
        return next((v for k, v in request.query if k == cursor), None)
    try:
        sent = json.loads(request.body or b"{}")
    except ValueError:
        return None
    holder = _named(contract, rule.params.get("body_member"))
    place = sent.get(holder) if holder and isinstance(sent, dict) else sent
    return place.get(cursor) if isinstance(place, dict) else None


def _cursor_loops(contract: Contract, rule: Rule) -> Wrap:
    next_field = str(_named(contract, rule.params["next_field"]))
    more = _named(contract, rule.params.get("more_field"))

    def edit(request: Request, body: Any) -> Any:
        cursor = _sent_cursor(contract, rule, request)
        if isinstance(body, dict) and cursor is not None and not dig(body, next_field):
            _set(body, next_field, cursor)
            if more:
                _set(body, str(more), True)
        return body

    return lambda sim: FaultySimulator(sim, after=_answers(_matching(rule), edit))  # type: ignore[return-value]


def _default_not_applied(rule: Rule, other: Any) -> Wrap:
    name = str(rule.where).split(".", 1)[1]
    on_operation = _matching(rule)

    def before(request: Request) -> Request:
        if on_operation(request) and not any(k == name for k, _ in request.query):
            request.query = [*request.query, (name, str(other))]
        return request

    return lambda sim: FaultySimulator(sim, before=before)  # type: ignore[return-value]


def _past_end_served(contract: Contract, rule: Rule) -> Wrap:
    on_operation = _matching(rule)
    items_field = _named(contract, rule.params.get("items_field"))

    def wrap(sim: Simulator) -> Simulator:
        served: list[bytes] = []  # the last page the simulator served

        def after(request: Request, response: Response) -> Response:
            if not on_operation(request):
                return response
            if 200 <= response.status < 300:
                served[:] = [response.body]
            elif 400 <= response.status < 500 and served:
                try:
                    body = json.loads(served[0])
                except ValueError:
                    return response
                holder = dig(body, items_field.rpartition(".")[0]) if items_field and "." in items_field else body
                if isinstance(holder, dict) and items_field:
                    holder[items_field.rpartition(".")[2]] = []
                elif isinstance(body, list):
                    body = []
                return Response.json_response(200, body)
            return response

        return FaultySimulator(sim, after=after)  # type: ignore[return-value]

    return wrap


def paging_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        check, short = rule.params.get("check"), rule.id.split(".", 1)[1]
        if not rule.operation:
            continue
        if check == "page-size" and not rule.params.get("only_total"):
            faults.append(derived_fault(f"page-one-over:{short}", rule.id,
                                        f"{rule.operation} answers one item more than its page size "
                                        "(a copy of the page's last item)")(_one_over(contract, rule)))
        if check == "paging-walk":
            faults.append(derived_fault(f"row-repeated:{short}", rule.id,
                                        f"each page of {rule.operation} after the first starts with the last "
                                        "item of the page before")(_repeated(contract, rule)))
            style, listed = rule.params.get("style"), set(rule.params)
            if style == "cursor" and {"more_field", "next_field"} <= listed:
                faults.append(derived_fault(f"next-dropped:{short}", rule.id,
                                            f"{rule.operation}'s pages that say more carry no next cursor")(
                    _next_dropped(contract, rule)))
            if style in ("cursor", "key") and {"next_field", "cursor_param"} <= listed:
                faults.append(derived_fault(f"cursor-loops:{short}", rule.id,
                                            f"{rule.operation}'s last page, asked for with a cursor, leads back "
                                            "to itself")(_cursor_loops(contract, rule)))
            if style == "page" and "more_field" in listed:
                faults.append(derived_fault(f"more-denied:{short}", rule.id,
                                            f"every page of {rule.operation} says no more")(
                    _more_denied(contract, rule)))
            if "present_only_when_more" in rule.params and rule.params.get("style") == "cursor":
                faults.append(derived_fault(f"member-on-last-page:{short}", rule.id,
                                            f"{rule.operation}'s last page carries "
                                            f"{rule.params['present_only_when_more']}, leading to a page of no "
                                            "items")(_member_on_last_page(contract, rule)))
                faults.append(derived_fault(f"next-on-last-page:{short}", rule.id,
                                            f"{rule.operation}'s last page carries "
                                            f"{rule.params['present_only_when_more']}, and so does every page of "
                                            "no items it leads to")(_member_on_last_page(contract, rule, True)))
        if check == "param-default" and (rule.where or "").startswith("query."):
            try:
                default = contract.where_schema(rule.operation, str(rule.where)).get("default")
            except KeyError:
                default = None
            if isinstance(default, int) and not isinstance(default, bool):
                faults.append(derived_fault(f"default-not-applied:{short}", rule.id,
                                            f"{rule.operation} without {rule.where} serves {default + 1}, not its "
                                            f"default {default}")(_default_not_applied(rule, default + 1)))
        if check == "page-past-end":
            faults.append(derived_fault(f"past-end-served:{short}", rule.id,
                                        f"{rule.operation} answers the page after its last as the last, with no "
                                        "items")(_past_end_served(contract, rule)))
        if check == "count-limit":
            faults.append(derived_fault(f"count-accepted:{short}", rule.id,
                                        f"{rule.operation} serves more than {rule.params['most']} values as "
                                        "the first of them")(_count_accepted(rule)))
        total = _total_field(contract, rule) if check in ("paging-walk", "same-total") else None
        if total:
            faults.append(derived_fault(f"total-off-by-one:{short}", rule.id,
                                        f"{rule.operation} states {total} one more than it holds")(
                _total_plus_one(contract, rule, total)))
    return faults
