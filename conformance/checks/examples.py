"""The contract's example requests made right for a target (a shared building block).

Examples in openapi.yaml may hold what only the target knows:

* ``"{NAME}"`` inside a string: the target setting NAME (an id in a filter string);
* ``x-settings: {member: NAME}`` on the media type: the member takes setting NAME (configured,
  else rules.yaml ``settings.defaults``), typed as the member's schema says (JSON text for an
  object or array, digits for an integer); a value that is not of that type (a placeholder the
  replay target holds) leaves the example's own value, as does a setting neither configured nor
  defaulted;
* ``x-relative-dates: {member: {days: -10, format: date|datetime}}``: a date counted from the
  target's today (the TODAY setting, else ``settings.today``), never from the harness's clock.

* ``x-unique: [member]`` on the media type: members that identify what the request creates (an
  account's e-mail) and must be new on every request; ``unique(ctx, operation, body, n)`` makes
  them so (``local+<rule>-<n>@domain``), deterministic so cassettes replay.

``example_request(ctx, operation)`` gives the body, query and path values of the operation's
example on this target: the control every derived probe starts from; ``example_body(ctx,
operation)`` its body alone (the generic limit, enum, required and wrong-types checks take query
and path values from their rule). ``setting_param(ctx, value, schema)``: a rule param that is
exactly ``"{NAME}"`` as that setting's value, typed like an x-settings member.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from conformance.auth.variants import render
from conformance.checks.context import CheckContext
from conformance.checks.paths import path_values
from conformance.errors import ContractFileError

__all__ = ["ExampleRequest", "example_body", "example_request", "fill", "setting", "setting_param", "today", "unique"]


_NAME = re.compile(r"^\{([A-Z][A-Z0-9_]*)\}$")


def fill(ctx: CheckContext, node: Any) -> Any:
    """``node`` with every ``{NAME}`` in its strings replaced by that target setting (the rule
    is skipped when one is not configured)."""
    if isinstance(node, str):
        return render(node, ctx.credential) if "{" in node else node
    if isinstance(node, list):
        return [fill(ctx, item) for item in node]
    if isinstance(node, dict):
        return {key: fill(ctx, value) for key, value in node.items()}
    return node


def _setting_value(ctx: CheckContext, name: str) -> str | None:
    value = ctx.optional(name)
    if value:
        return value
    default = (ctx.contract.settings.get("defaults") or {}).get(name)
    if default is not None:
        ctx.defaulted[name] = str(default)
    return None if default is None else str(default)


def setting(ctx: CheckContext, name: str) -> str:
    """A target setting: configured, else its default in rules.yaml ``settings.defaults`` (the
    simulator's); with neither, the rule is skipped naming the variable to set."""
    value = _setting_value(ctx, name)
    return ctx.credential(name) if value is None else value


_UNFIT = object()  # a setting's text that is not of the member's type


def _typed(text: str, schema: dict[str, Any], example: Any) -> Any:
    # The member's schema says its type; where it does not, the example's own value does.
    kind = schema.get("type") or {int: "integer", float: "number", dict: "object", list: "array"}.get(type(example))
    if kind in ("object", "array"):
        try:
            value = json.loads(text)
        except ValueError:
            return _UNFIT
        return value if isinstance(value, dict if kind == "object" else list) else _UNFIT
    if kind in ("integer", "number"):
        return int(text) if text.lstrip("-").isdigit() else _UNFIT
    return text


def setting_param(ctx: CheckContext, value: Any, schema: dict[str, Any]) -> Any:
    """A rule param: exactly ``"{NAME}"`` is setting NAME (configured, else the default; the rule
    is skipped when neither), typed as ``schema`` says; anything else as it is."""
    match = _NAME.match(value) if isinstance(value, str) else None
    if not match:
        return value
    text = _setting_value(ctx, match.group(1))
    if text is None:
        text = ctx.credential(match.group(1))  # skips: not configured
    typed = _typed(text, ctx.contract.deref(schema), None)
    return text if typed is _UNFIT else typed


def today(ctx: CheckContext) -> date:
    """The target's today: the TODAY setting, else the contract's ``settings.today``."""
    text = ctx.optional("TODAY")
    if not text:
        text = ctx.defaulted["TODAY"] = str(ctx.contract.settings.get("today", ""))
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ContractFileError(f"{ctx.contract.service}: TODAY / settings.today {text!r} is not YYYY-mm-DD") from None


def example_body(ctx: CheckContext, operation: str) -> Any:
    """The operation's example body on this target (module doc)."""
    contract = ctx.contract
    media = contract.json_media(operation)
    example = contract.request_example(operation)
    if not isinstance(example, dict):
        return fill(ctx, example)
    settled: dict[str, Any] = {}
    names = media.get("x-settings") or {}
    if names:
        props = contract.deref(contract.request_schema(operation)).get("properties") or {}
        for member, name in names.items():
            value = _setting_value(ctx, str(name))
            typed = _UNFIT if value is None else _typed(value, contract.deref(props.get(member) or {}),
                                                        example.get(member))
            if typed is not _UNFIT:
                settled[member] = typed
    # Members a setting filled are not rendered again (their template needs no configured value).
    example = {key: value if key in settled else fill(ctx, value) for key, value in example.items()}
    example.update(settled)
    relative = media.get("x-relative-dates") or {}
    if relative:
        base = today(ctx)
        for member, spec in relative.items():
            day = base + timedelta(days=int(spec["days"]))
            example[member] = f"{day.isoformat()} 00:00:00" if spec.get("format") == "datetime" else day.isoformat()
    return example


def _catalogue_params(ctx: CheckContext, operation: str, name: str) -> dict[str, Any]:
    """``params.<name>`` (base_query, path_values) of the first catalogue rule on the operation:
    what the catalogue already knows the operation needs."""
    for rule in ctx.contract.rules:
        ops = rule.params.get("operations") or [rule.operation]
        if operation in ops and isinstance(rule.params.get(name), dict):
            return dict(rule.params[name])
    return {}


def _base_query(ctx: CheckContext, operation: str) -> dict[str, Any]:
    """Query values the operation needs: a catalogue rule's ``base_query`` for the operation,
    then each required parameter's ``x-setting`` or ``example``."""
    query = ctx.query_in(_catalogue_params(ctx, operation, "base_query"))
    for param in ctx.contract.parameters(operation):
        if param.get("in") != "query" or not param.get("required") or param["name"] in query:
            continue
        if param.get("x-setting"):
            query[param["name"]] = ctx.credential(str(param["x-setting"]))
        elif "example" in param:
            query[param["name"]] = fill(ctx, param["example"])
    return query


@dataclass(frozen=True)
class ExampleRequest:
    body: Any
    query: dict[str, Any]
    path: dict[str, str]


def example_request(ctx: CheckContext, operation: str) -> ExampleRequest:
    """The operation's example request on this target (module doc)."""
    has_body = bool(ctx.contract.operation(operation).get("requestBody"))
    given = _catalogue_params(ctx, operation, "path_values")
    try:
        values = path_values(ctx, operation, ctx.settings_in(given) if given else None).values
    except ContractFileError as exc:
        ctx.skip(f"{operation}: no value for a path parameter ({exc}): give the parameter an x-setting")
    return ExampleRequest(example_body(ctx, operation) if has_body else None, _base_query(ctx, operation), values)


def unique(ctx: CheckContext, operation: str, body: Any, n: int, *, keep: str = "") -> Any:
    """``body`` with each ``x-unique`` member made new for request ``n`` (``keep``: the member a
    probe is sending wrong, left as the probe set it)."""
    members = ctx.contract.json_media(operation).get("x-unique") or []
    if not members or not isinstance(body, dict):
        return body
    tag = ctx.rule.id.split(".", 1)[-1].replace(".", "-") + f"-{n}"
    for member in members:
        if member == keep or member not in body or not isinstance(body[member], str):
            continue
        local, at, domain = body[member].partition("@")
        body[member] = f"{local}+{tag}@{domain}" if at else f"{body[member]}-{tag}"
    return body
