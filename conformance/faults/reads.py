"""Faults derived from what a rule says a read's rows, its dates or an id must be (issue 30).

Each is a mechanical edit of what the rule's params state, for every rule bound to the check:

* ``rows-reversed`` (``rows-ordered``): the rows at ``items_field`` come in the opposite order,
  so every order the rule asks for runs the other way.
* ``field-missing`` (``fields-returned`` with ``fields``): the first requested plain field that
  is not also in ``every_row`` is left out of every row; ``field-extra`` (with ``only``): every
  row carries one member more; ``nested-field-missing`` (with a dotted field): the object its
  first part names (``internal`` of ``internal.tags.id``) is left out of every row.
* ``time-offset`` (``times-in-utc``): ``member`` of every row is written at +01:00, the same
  instant, not in UTC.
* ``date-form-refused`` (``date-forms``): a request whose dated members are in the rule's last
  form is answered 400, as by a server that knows one form only.
* ``span-clamped`` (``date-span``): a request spanning more than ``days`` reaches the simulator
  with its start moved so that it spans ``days``: accepted, as by a server clamping the span.
* ``id-length-ignored`` (``id-length``): a lookup by an id of a length the path parameter's
  schema does not allow is answered 200, as by a server matching ids by prefix.
* ``default-flipped`` (``omitted-is-default``): a request leaving out the first boolean member
  the rule names reaches the simulator with it set to the opposite of its schema default.
* ``value-refused`` (``values-accepted``): a request whose query parameter carries the last value
  its schema lists is answered 400, as by a server that does not know that value.
* ``export-row-lost`` (``export-matches``): every successful export answer loses its last line.
* ``lookup-row-lost`` (``latest-rows``): the lookup's answer loses the first row at ``answer_items``.
* ``cursor-ignored`` (``filter-cursor-walk``): the cursor entry is taken out of the request, so
  every request answers the first page again.
* ``prefix-lowered`` (``member-prefixed``): ``member`` of every row is written in lower case.
* ``omitted-field-kept`` (``put-replaces``): a PUT omitting ``field`` reaches the simulator with
  ``field`` at the rule's ``value``, as by a server merging the PUT into what it kept.
* ``naming-ignored`` (``columns-returned``; ``fields-returned`` with ``fields``): the body member
  naming what is wanted is taken out of the request, so the server answers its default set, as
  one that ignores the member does (issue 35, item 11). A member the request schema requires
  would be refused, not ignored, if taken out: it names only the asked names of ``every_row``
  (what every row carries whatever is asked) instead, and without such names no fault is derived.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import unquote

from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, derived_fault, on_response
from conformance.faults.toolkit import Match, operation, operations, request_body, response_body, sent_json
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response

__all__ = ["read_faults", "strftime_regex"]

Wrap = Callable[[Simulator], Simulator]
_EXTRA = "conformance_extra"


def _rows(body: Any, dotted: str) -> list[Any] | None:
    node = body
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, list) else None


def _each_row(rule: Rule, edit: Callable[[dict[str, Any]], None]) -> Wrap:
    def rows(body: Any) -> Any:
        for row in _rows(body, rule.params["items_field"]) or []:
            if isinstance(row, dict):
                edit(row)
        return body

    return response_body(operations([str(rule.operation)]), rows, statuses=range(200, 300))


def _reversed(rule: Rule) -> Wrap:
    def flip(body: Any) -> Any:
        found = _rows(body, rule.params["items_field"])
        if found is not None:
            found.reverse()
        return body

    return response_body(operations([str(rule.operation)]), flip, statuses=range(200, 300))


def _without(name: str) -> Callable[[dict[str, Any]], None]:
    def drop(row: dict[str, Any]) -> None:
        row.pop(name, None)

    return drop


def _lowered(name: str) -> Callable[[dict[str, Any]], None]:
    def lower(row: dict[str, Any]) -> None:
        if isinstance(row.get(name), str):
            row[name] = row[name].lower()

    return lower


def _with_extra(row: dict[str, Any]) -> None:
    row[_EXTRA] = True


def _at_plus_one(member: str) -> Callable[[dict[str, Any]], None]:
    def respell(row: dict[str, Any]) -> None:
        value = row.get(member)
        try:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            return
        if moment.tzinfo is not None:
            row[member] = moment.astimezone(timezone(timedelta(hours=1))).isoformat()

    return respell


_FORMS = {"%Y": r"\d{4}", "%m": r"\d{2}", "%d": r"\d{2}", "%H": r"\d{2}", "%M": r"\d{2}", "%S": r"\d{2}"}


def strftime_regex(form: str) -> re.Pattern[str]:
    """What ``form`` (``%Y %m %d %H %M %S`` and literal text) writes, as a regular expression."""
    return re.compile("".join(_FORMS.get(part, re.escape(part)) for part in re.split(r"(%[YmdHMS])", form) if part))


def _form_refused(rule: Rule) -> Wrap:
    form = {member: strftime_regex(pattern) for member, pattern in rule.params["forms"][-1].items()}
    match = operations([str(rule.operation)])

    def after(request: Request, response: Response) -> Response:
        body = sent_json(request)
        if match(request) and all(isinstance(body.get(m), str) and p.fullmatch(body[m]) for m, p in form.items()):
            return Response.json_response(400, {"message": "unknown date form"})
        return response

    return on_response(after)


def _clamped(rule: Rule) -> Wrap:
    first, last = rule.params["members"]
    form, days = rule.params.get("format", "%Y-%m-%d"), int(rule.params["days"])

    def clamp(body: dict[str, Any]) -> dict[str, Any]:
        try:
            start, end = (datetime.strptime(str(body[m]), form) for m in (first, last))
        except (KeyError, ValueError):
            return body
        if end - start > timedelta(days=days):
            body[first] = (end - timedelta(days=days)).strftime(form)
        return body

    return request_body(operations([str(rule.operation)]), clamp)


def _length_ignored(contract: Contract, rule: Rule) -> Wrap | None:
    schema = contract.where_schema(str(rule.operation), f"path.{rule.params['param']}")
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    method, template = str(rule.operation).split(" ", 1)
    match: Match = operation(method, template)
    position = template.split("/").index("{" + rule.params["param"] + "}")

    def after(request: Request, response: Response) -> Response:
        segments = unquote(request.path).split("/")
        shift = len(segments) - len(template.split("/"))  # a server prefix before the template
        value = segments[position + shift] if 0 <= position + shift < len(segments) else ""
        if match(request) and (len(value) < low or (high is not None and len(value) > high)):
            return Response.json_response(200, {})
        return response

    return on_response(after) if low or high is not None else None


def _flipped(contract: Contract, rule: Rule) -> tuple[str, Wrap] | None:
    for member in rule.params["members"]:
        try:
            default = contract.where_schema(str(rule.operation), f"body.{member}").get("default")
        except KeyError:
            continue
        if isinstance(default, bool):
            def flip(body: dict[str, Any], member: str = member, value: bool = not default) -> dict[str, Any]:
                body.setdefault(member, value)
                return body

            return member, request_body(operations([str(rule.operation)]), flip)
    return None


def _value_refused(contract: Contract, rule: Rule) -> tuple[str, Wrap] | None:
    listed = rule.params.get("operations") or [str(rule.operation)]
    param = rule.params["param"]
    try:
        schema = contract.deref(contract.where_schema(listed[0], f"query.{param}"))
    except KeyError:
        return None
    values = contract.deref(schema.get("items") or {}).get("enum") or schema.get("enum") or []
    if not values:
        return None
    last, match = str(values[-1]), operations(listed)

    def after(request: Request, response: Response) -> Response:
        if match(request) and (param, last) in request.query:
            return Response.json_response(400, {"message": f"unknown {param}"})
        return response

    return f"{param}={last}", on_response(after)


def _last_line_lost(rule: Rule) -> Wrap:
    match = operations([str(rule.operation)])

    def after(request: Request, response: Response) -> Response:
        if match(request) and 200 <= response.status < 300:
            response.body = b"".join(response.body.splitlines(keepends=True)[:-1])
        return response

    return on_response(after)


def _first_row_lost(rule: Rule) -> Wrap:
    def lose(body: Any) -> Any:
        found = _rows(body, rule.params["answer_items"])
        if found:
            del found[0]
        return body

    return response_body(operations([str(rule.operation)]), lose, statuses=range(200, 300))


def _kept(rule: Rule) -> Wrap:
    field, value = rule.params["field"], rule.params["value"]

    def merge(body: dict[str, Any]) -> dict[str, Any]:
        body.setdefault(field, value)
        return body

    return request_body(operations([str(rule.operation)]), merge)


def _no_cursor(rule: Rule) -> Wrap:
    spot, head = rule.params["cursor"]["append"], rule.params["cursor"]["entry"].split("{$value}", 1)[0]

    def drop(body: dict[str, Any]) -> dict[str, Any]:
        entries = _rows(body, spot)
        if entries is not None:
            entries[:] = [e for e in entries if not (isinstance(e, str) and e.startswith(head))]
        return body

    return request_body(operations([str(rule.operation)]), drop)


def _naming_ignored(contract: Contract, rule: Rule, member: str) -> Wrap | None:
    """The request body reaches the simulator without ``member`` (module doc). Where the request
    schema requires it, with ``member`` naming only the asked names every row carries anyway
    (``every_row``): the set a server answers whatever is asked; ``None`` where there is none, or
    the member is not in the body."""
    params = rule.params
    if params.get("check") == "fields-returned" and params.get("in") != "body":
        return None
    schema = contract.deref(contract.request_schema(str(rule.operation)) or {})
    always = [name for name in params.get("fields") or [] if name in (params.get("every_row") or [])]
    required = member in (schema.get("required") or [])
    if required and not always:
        return None

    def drop(body: dict[str, Any]) -> dict[str, Any]:
        if required:
            body[member] = list(always)
        else:
            body.pop(member, None)
        return body

    return request_body(operations([str(rule.operation)]), drop)


def _short(rule: Rule) -> str:
    return rule.id.split(".", 1)[1]


# (family, description, wrap: None where the rule gives nothing to edit) of one rule.
Made = list[tuple[str, str, Wrap | None]]


def _fields_returned(contract: Contract, rule: Rule) -> Made:
    params, op = rule.params, rule.operation
    made: Made = []
    plain = [f for f in params.get("fields") or [] if "." not in f and f not in (params.get("every_row") or [])]
    if plain:
        made.append(("field-missing", f"{op} leaves the requested {plain[0]} out of every row",
                     _each_row(rule, _without(plain[0]))))
    if params.get("only"):
        made.append(("field-extra", f"{op} rows carry {_EXTRA} beside {params['only']}", _each_row(rule, _with_extra)))
    dotted = [f for f in params.get("fields") or [] if "." in f]
    if dotted:
        top = dotted[0].split(".", 1)[0]
        made.append(("nested-field-missing", f"{op} leaves {top} (asked for {dotted[0]}) out of every row",
                     _each_row(rule, _without(top))))
    if params.get("fields"):
        made.append(_naming(contract, rule, params["member"]))
    return made


def _naming(contract: Contract, rule: Rule, member: str) -> tuple[str, str, Wrap | None]:
    return ("naming-ignored", f"{rule.operation} ignores the {member} its request names: its default set answered",
            _naming_ignored(contract, rule, member))


def _omitted_default(contract: Contract, rule: Rule) -> Made:
    flipped = _flipped(contract, rule)
    return [("default-flipped", f"{rule.operation} reads an omitted {flipped[0]} as the opposite of its default",
             flipped[1])] if flipped else []


def _values_accepted(contract: Contract, rule: Rule) -> Made:
    refused = _value_refused(contract, rule)
    return [("value-refused", f"{rule.operation} refuses {refused[0]} (400)", refused[1])] if refused else []


# The faults each core check's rule gets, by the check's name in rules.yaml.
_BY_CHECK: dict[str, Callable[[Contract, Rule], Made]] = {
    "rows-ordered": lambda c, r: [("rows-reversed", f"{r.operation} answers its rows in the opposite order",
                                   _reversed(r))],
    "fields-returned": _fields_returned,
    "columns-returned": lambda c, r: [_naming(c, r, r.params["columns_member"])],
    "times-in-utc": lambda c, r: [("time-offset", f"{r.operation} writes {r.params['member']} at +01:00 (the same "
                                   "instant)", _each_row(r, _at_plus_one(r.params["member"])))],
    "date-forms": lambda c, r: [("date-form-refused", f"{r.operation} refuses dates written {r.params['forms'][-1]} "
                                 "(400)", _form_refused(r))],
    "date-span": lambda c, r: [("span-clamped", f"{r.operation} takes a span over {r.params['days']} days, clamped "
                                "to it", _clamped(r))],
    "id-length": lambda c, r: [("id-length-ignored", f"{r.operation} answers 200 to an id of another length",
                                _length_ignored(c, r))],
    "omitted-is-default": _omitted_default,
    "values-accepted": _values_accepted,
    "export-matches": lambda c, r: [("export-row-lost", f"{r.operation} answers without its last line",
                                     _last_line_lost(r))],
    "latest-rows": lambda c, r: [("lookup-row-lost", f"{r.operation} answers without the first of its "
                                  f"{r.params['answer_items']}", _first_row_lost(r))],
    "put-replaces": lambda c, r: [("omitted-field-kept", f"{r.operation} keeps {r.params['field']} when a PUT "
                                   "omits it", _kept(r))],
    "filter-cursor-walk": lambda c, r: [("cursor-ignored", f"{r.operation} ignores its "
                                         f"{r.params['cursor']['entry']} entry", _no_cursor(r))],
    "member-prefixed": lambda c, r: [("prefix-lowered", f"{r.operation} writes {r.params['member']} in lower case",
                                      _each_row(r, _lowered(r.params["member"])))],
}


def read_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in contract.rules:
        build = _BY_CHECK.get(str(rule.params.get("check")))
        if build is not None:
            faults += [derived_fault(f"{family}:{_short(rule)}", rule.id, description)(wrap)
                       for family, description, wrap in build(contract, rule) if wrap is not None]
    return faults
