"""Routes the document lists with their methods: is each one served? (a generic building block)

A document that shows only a route table still says something checkable: the listed method on
the listed path exists. ``route-served`` sends the listed method with nothing the document does
not show (no parameters, no body) and fails on a status that says the route or the method is
not there (the rule's ``missing_statuses``: 404, 405, 501; RFC 9110 sections 15.5.5, 15.5.6,
15.6.2). Any other answer, a 400 for a missing payload or a 401 for a missing credential
included, shows the route exists.

Path segments the document does not name come from target settings: each OpenAPI path
parameter names its setting (``x-setting``); an unconfigured setting falls back to the
catalogue's ``settings.defaults`` (which may refer to another setting as ``{NAME}``). A 404
reached with a defaulted value is not a failure: the target may simply not know that value, so
the rule is skipped as not exercised, with what to configure. A candidate for
``conformance/checks/`` (nothing here is specific to this service).

``ids-in-path``: the same operation with its ids moved from the path into headers is not served.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any
from urllib.parse import quote

from conformance.auth.variants import AUTH_AS_SCHEMA, DEFAULT, AuthAs, auth_as, render
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body
from conformance.checks.expect import expect
from conformance.checks.paths import PathValues, path_parameters, path_values, setting_value
from conformance.checks.refusal import expect_refused
from conformance.checks.registry import named
from conformance.checks.steps import Steps, Unresolved
from conformance.errors import ContractFailure, ContractFileError
from conformance.settings import env_name
from conformance.transport.model import Exchange, Request

__all__ = ["MISSING_PARAM", "call_listed", "example_settings", "held_settings", "ids_in_path", "missing",
           "route_served", "setting_path", "with_credential"]

MISSING_PARAM: dict[str, Any] = {"type": "array", "items": {"type": "integer"}, "minItems": 1}


_WHOLE_SETTING = re.compile(r"^\{([A-Z][A-Z0-9_]*)\}$")


def example_settings(example: Any) -> list[str]:
    """The settings a request example names as whole values (``{reply_to_uuid: "{REPLY_TO_UUID}"}``)."""
    if isinstance(example, dict):
        return [name for value in example.values() for name in example_settings(value)]
    if isinstance(example, list):
        return [name for value in example for name in example_settings(value)]
    found = _WHOLE_SETTING.match(example) if isinstance(example, str) else None
    return [found.group(1)] if found else []


def held_settings(parameters: list[dict[str, Any]], held: list[str], body: list[str] | None = None) -> list[str] | None:
    """The settings (x-setting) of an operation's path parameters, then those its example body
    names (``body``), when there is one and every one is in ``held`` (settings whose value names
    an id the target holds data under), else None."""
    names = [str(p.get("x-setting") or "") for p in parameters] + list(body or [])
    return names if names and all(name in held for name in names) else None


def _held_values(ctx: CheckContext, operation: str) -> tuple[PathValues, Any] | None:
    """The operation's path values and example body (None without one) when each id in them comes
    from a configured ``held`` setting: the user says the target holds that id, so a 404 there is
    a missing route, not "none for this id" (a reply to an email the target holds, say)."""
    body = example_settings(ctx.contract.request_example(operation)) if _has_body(ctx, operation) else []
    names = held_settings(path_parameters(ctx, operation), list(ctx.rule.params.get("held") or []), body)
    if names is None or not all(ctx.optional(name) for name in names):
        return None
    parameters = path_parameters(ctx, operation)
    values = PathValues({p["name"]: quote(str(ctx.optional(name)), safe="")
                         for p, name in zip(parameters, names[:len(parameters)], strict=True)}, {})
    if not body:
        return values, None
    return values, example_body(ctx, operation)


def _has_body(ctx: CheckContext, operation: str) -> bool:
    return bool(ctx.contract.operation(operation).get("requestBody"))


def with_credential(ctx: CheckContext) -> AuthAs:
    """The optional credential, where the AUTH_HEADER setting says, when AUTH_VALUE is configured."""
    if not ctx.optional("AUTH_VALUE"):
        return DEFAULT
    header, _ = setting_value(ctx, "AUTH_HEADER")
    return AuthAs(also={header: "{AUTH_VALUE}"})


def call_listed(ctx: CheckContext, operation: str, values: PathValues, *, auth: AuthAs | None = None,
                **kwargs: Any) -> Exchange:
    """The listed method on the listed path with nothing the document does not show."""
    return ctx.call(operation, auth=with_credential(ctx) if auth is None else auth,
                    path_values=values.values, **kwargs)


def missing(ctx: CheckContext, operation: str, exchange: Exchange, values: PathValues,
            statuses: list[int]) -> None:
    """Fail when the answer says the route or method is absent, or is a 5xx (a crash shows no
    route served: either the request was complete and must be answered, or the client's mistake
    must be refused); skip a 404 when a defaulted id may be why."""
    status = exchange.response.status
    if status >= 500:
        raise ContractFailure(ctx.rule.id, f"{operation} answered {status} to {values.values or 'a call with no id'}",
                              expected="the route served: an answer, or a 4xx for what the call lacks; never a 5xx",
                              exchange=exchange)
    if status not in statuses:
        return
    if values.defaulted and status == 404:
        ctx.skip(f"{operation} answered 404 with a default segment value, which the target may not know: "
                 f"{values.advice(ctx)}")
    raise ContractFailure(ctx.rule.id, f"{operation} is listed but answered {status}",
                          expected=f"the route served (any status but {', '.join(map(str, statuses))})",
                          exchange=exchange)


def _settings_of(ctx: CheckContext, operation: str) -> list[str]:
    """The target settings that give the operation's path segments (their ``x-setting``)."""
    names = []
    for param in ctx.contract.operation(operation).get("parameters", []):
        if "$ref" in param:
            param = ctx.contract.openapi["components"]["parameters"][param["$ref"].rsplit("/", 1)[-1]]
        if param.get("in") == "path" and param.get("x-setting"):
            names.append(str(param["x-setting"]))
    return names


_OPERATIONS: dict[str, Any] = {"type": "array", "items": {"type": "string"}, "minItems": 1}
# A route whose id the target hands out: a documented create first, then the route with its id.
_CREATED: dict[str, Any] = {
    "type": "array", "minItems": 1,
    "items": {"type": "object", "required": ["call", "create", "path"], "additionalProperties": False,
              "properties": {"call": {"type": "string", "pattern": r"^[A-Z]+ /"},
                             "create": {"type": "object", "required": ["call", "name"]},
                             "path": {"type": "object", "additionalProperties": {"type": "string"}}}}}
_READINGS: dict[str, Any] = {
    "type": "object", "required": ["operation", "paths"], "additionalProperties": False,
    "properties": {"operation": {"type": "string"},
                   "paths": {"type": "array", "items": {"type": "string", "pattern": "^/"}, "minItems": 2}}}


@named("route-served", params={"missing_statuses": MISSING_PARAM, "none_statuses": MISSING_PARAM,
                               "operations": _OPERATIONS, "placeholder_operations": _OPERATIONS,
                               "alias_prefix": {"type": "string", "pattern": "^/"}, "readings": _READINGS,
                               "held": {"type": "array", "items": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
                                        "minItems": 1},
                               "held_when": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
                               "created": _CREATED,
                               "path_values": {"type": "object", "additionalProperties": {"type": "string"}}},
       required=("missing_statuses",))
def route_served(ctx: CheckContext) -> None:
    """``operations``: several routes (default: the rule's operation); ``path_values``: their
    path segments as settings (``{"id": "{CAMPAIGN_ID}"}``), else each parameter's x-setting.
    ``placeholder_operations``: routes called with a made-up id, where a 404 may be "no such id"
    rather than "no such route": only the rest of ``missing_statuses`` (405, 501) and a 5xx fail.

    ``held``: settings whose value, when configured, names an id the target holds data under (the
    setting's statement promises it: a token with lockers and votes, a lead that may be updated).
    A route whose every path parameter takes such a configured setting (its ``x-setting``), and
    whose example body names only such settings (``"{REPLY_TO_UUID}"``), is called with those
    values (and that body) and a 404 there is a missing route: a placeholder operation is held
    like ``operations``, and ``none_statuses`` is no excuse. Unconfigured, nothing changes.
    ``held_when``: a setting that says, configured, that the target holds what a route without
    ids shows to this caller (an account with a package): ``none_statuses`` are then no excuse.
    ``created``: routes whose id the target hands out through a documented create: ``create`` (a
    step, ``checks/steps.py``: ``{call: POST /accounts, name: create, body: example}``) is sent
    first, then ``call`` with ``path`` (``{email: "{$create.sent.email}"}``), where a 404 is a
    missing route. A create not accepted (a 4xx) gives no id: the route is then called with a
    placeholder, as a ``placeholder_operations`` one; a create answered 5xx fails.

    ``alias_prefix``: the rule's operation is also sent at this prefix followed by its path
    template, no server prefix (a version segment the document may or may not put there too:
    ``/v1`` + ``/ping``); whether it is served there (not a ``missing_statuses`` answer) is
    reported for ``params.observes`` (a conflict whose alternatives read "served too", "not
    served"), never judged.

    ``none_statuses``: for a route naming a resource by id, where the document does not say
    whether an id with nothing to show is answered 404 or an empty answer, those statuses
    cannot tell a missing route from "none for this id": skipped, naming the settings to change
    (405 and 501, the method not being there, always fail; a 5xx always fails).

    ``readings``: an operation the document gives two paths (a conflict) is served, a 2xx, at
    one of ``paths`` at least; which ones is reported for ``params.observes`` (by index: list the
    paths in the order of the conflict's alternatives)."""
    params = ctx.rule.params
    listed = list(params.get("operations") or ([ctx.rule.operation] if ctx.rule.operation else []))
    placeholders = list(params.get("placeholder_operations") or [])
    if "readings" in params:
        _either_reading(ctx, params["readings"], params.get("path_values") or {})
    if not listed and not placeholders and "readings" not in params and "created" not in params:
        raise ContractFileError(f"{ctx.rule.id}: route-served needs an operation")
    statuses = list(params["missing_statuses"])
    given = params.get("path_values") or {}
    for operation in listed:
        template = operation.split(" ", 1)[1]
        used = ctx.settings_in({k: v for k, v in given.items() if "{" + k + "}" in template})
        _served(ctx, operation, path_values(ctx, operation, used or None), statuses)
    for operation in placeholders:
        held = _held_values(ctx, operation)
        if held is not None:
            values, body = held
            sent = call_listed(ctx, operation, values, **({} if body is None else {"json_body": body}))
            missing(ctx, operation, sent, values, statuses)
            continue
        names = [p["name"] for p in path_parameters(ctx, operation)]
        values = PathValues({name: "conformance-placeholder" for name in names}, {})
        missing(ctx, operation, call_listed(ctx, operation, values), values, [s for s in statuses if s != 404])
    for entry in params.get("created") or []:
        _created_first(ctx, entry, statuses)
    if "alias_prefix" in params:
        operation = ctx.rule.operation or listed[0]
        method, template = operation.split(" ", 1)
        request = Request.build(method, params["alias_prefix"] + template)
        exchange = ctx.send(ctx.auth(request, operation, with_credential(ctx)))
        ctx.observed(1 if exchange.response.status in statuses else 0)


def _created_first(ctx: CheckContext, entry: dict[str, Any], statuses: list[int]) -> None:
    """``created``: the documented create, then the route with the id it handed out (docstring above)."""

    operation = entry["call"]
    steps = Steps(ctx)
    steps.guard([entry["create"], {"call": operation}])
    made = steps.send(entry["create"]).exchange
    if made.response.status >= 500:
        raise ContractFailure(ctx.rule.id, f"{entry['create']['call']} answered {made.response.status} to the create "
                              f"that gives {operation} its id", expected="never a 5xx", exchange=made)
    try:
        given = steps.resolve(entry["path"]) if 200 <= made.response.status < 300 else None
    except Unresolved:
        given = None
    if given is None:  # no id handed out: a placeholder, whose 404 may be "no such id"
        names = [p["name"] for p in path_parameters(ctx, operation)]
        values = PathValues({name: "conformance-placeholder" for name in names}, {})
        missing(ctx, operation, call_listed(ctx, operation, values), values, [s for s in statuses if s != 404])
        return
    values = PathValues({k: quote(str(v), safe="") for k, v in given.items()}, {})
    missing(ctx, operation, call_listed(ctx, operation, values), values, statuses)


def _served(ctx: CheckContext, operation: str, values: PathValues, statuses: list[int]) -> None:
    exchange = call_listed(ctx, operation, values)
    status = exchange.response.status
    # A configured id does not settle it: the target may hold the token and still have nothing
    # under it (no votes), and the document does not say how "nothing" is answered; unless the
    # setting promises data under it (``held``) and the call used the configured values.
    held = _held_values(ctx, operation)
    when = ctx.rule.params.get("held_when")
    held_by_setting = bool(when and ctx.optional(when))
    if (status in (ctx.rule.params.get("none_statuses") or ()) and not held_by_setting
            and (held is None or held[0].values != values.values)):
        names = [*_settings_of(ctx, operation), *([when] if when else [])]
        settings = ", ".join(env_name(ctx.contract.service, s) for s in names)
        if not values.values:  # no id: the caller may be one the target shows nothing (held_when says)
            ctx.skip(f"{operation} answered {status}: the document does not say what a caller the route shows "
                     f"nothing is answered, so this cannot tell a missing route from none; set {settings} where "
                     "the target holds data for this caller")
        ctx.skip(f"{operation} answered {status} for {values.values}: the document does not say whether an id "
                 f"with nothing to show is answered {status} or an empty answer, so this cannot tell a missing "
                 f"route from none; set {settings} to values the target holds data for")
    missing(ctx, operation, exchange, values, statuses)


# -- setting-path (an operation whose path only a target setting knows) --------------------
def _send_at(ctx: CheckContext, method: str, path: str, how: AuthAs) -> Exchange:
    # The payload is not shown: an empty JSON object is the smallest body the method can carry,
    # and it asks for nothing (no deployment, no change) should the target accept it.
    body: dict[str, Any] | None = {} if method in ("POST", "PUT", "PATCH") else None
    request = Request.build(method, path, json_body=body) if body is not None else Request.build(method, path)
    return ctx.send(ctx.auth(request, None, how), backoff=True)


@named("setting-path", params={"method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE"]},
                               "setting": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
                               "as": AUTH_AS_SCHEMA,
                               # What the operation does beyond reading, as x-effects would say.
                               "effects": {"type": "array", "items": {"enum": ["spend", "write"]}}},
       required=("method", "setting"))
def setting_path(ctx: CheckContext) -> None:
    params = ctx.rule.params
    method = params["method"]
    ctx.guard_effects(f"{method} <{params['setting']}>", list(params.get("effects") or []))
    path = render(ctx.credential(params["setting"]), ctx.credential)
    if not path.startswith("/"):
        raise ContractFileError(f"{ctx.rule.id}: setting {params['setting']} must be a path starting with /")
    if "as" in params:
        how = auth_as(params["as"])
        expect_refused(ctx, f"{method} {path} {how.describe()} must be refused",
                       partial(_send_at, ctx, method, path, how),
                       control=partial(_send_at, ctx, method, path, DEFAULT), credential_variant=True)
        return
    exchange = _send_at(ctx, method, path, DEFAULT)
    status = exchange.response.status
    expect(status not in (404, 405) and status < 500, ctx.rule.id,
           f"{method} {path} (setting {params['setting']}) answered {status}: the operation is not served there",
           exchange=exchange, expected="any answer but 404, 405 or 5xx")


@named("ids-in-path", params={"path_values": {"type": "object", "additionalProperties": {"type": "string"}}},
       required=("path_values",))
def ids_in_path(ctx: CheckContext) -> None:
    """Path parameters travel in the path, never in headers: the rule's operation with its id
    segments left out of the path and each id sent as a header named as its parameter (real ids,
    valid credentials: a target honouring the headers would show it) does not reach the
    operation (no 2xx)."""
    rule = ctx.rule
    if not rule.operation:
        raise ContractFileError(f"{rule.id}: ids-in-path needs the rule's operation")
    method, template = rule.operation.split(" ", 1)
    ids = ctx.settings_in(rule.params["path_values"])
    bare = "/".join(p for p in template.split("/") if not p.startswith("{"))
    request = Request.build(method, ctx.path(bare, operation=rule.operation), headers=ids)
    exchange = ctx.send(ctx.auth(request, rule.operation))
    expect(not 200 <= exchange.response.status < 300, rule.id, "ids sent as headers reached the operation",
           exchange=exchange, expected="no 2xx without the ids in the path")


def _either_reading(ctx: CheckContext, readings: dict[str, Any], given: dict[str, str]) -> None:
    """``route-served``'s ``readings`` (its doc): each path with the operation's credentials."""
    operation = readings["operation"]
    method = operation.split(" ", 1)[0]
    served: list[int] = []
    answers: list[Exchange] = []
    for index, template in enumerate(readings["paths"]):
        values = ctx.settings_in({k: v for k, v in given.items() if "{" + k + "}" in template})
        request = Request.build(method, ctx.path(template, operation=operation, **values))
        answers.append(ctx.send(ctx.auth(request, operation, with_credential(ctx)), backoff=False))
        if 200 <= answers[-1].response.status < 300:
            served.append(index)
    expect(bool(served), ctx.rule.id, f"{operation} is served at none of {', '.join(readings['paths'])}",
           exchange=answers[0], expected="a 2xx at one reading of its path at least")
    if ctx.rule.params.get("observes"):
        ctx.observed(*served)
