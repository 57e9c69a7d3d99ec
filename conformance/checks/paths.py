"""The values of an operation's path parameters: each names its target setting (``x-setting``);
an unconfigured setting falls back to the catalogue's ``settings.defaults`` (which may refer to
another setting as ``{NAME}``), and which values were defaults is kept, so a check can tell
"the target does not know this value" from "the route is not there" (checks/routes.py).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from conformance.checks.context import CheckContext
from conformance.errors import ContractFileError
from conformance.settings import env_name

__all__ = ["PathValues", "path_parameters", "path_values", "setting_value"]


class PathValues:
    """The values of one operation's path parameters, and which came from defaults."""

    def __init__(self, values: dict[str, str], defaulted: dict[str, str]) -> None:
        self.values = values
        self.defaulted = defaulted  # parameter -> setting name whose default was used

    def advice(self, ctx: CheckContext) -> str:
        return ", ".join(f"{{{param}}} is the default {self.values[param]!r}; set "
                         f"{env_name(ctx.contract.service, setting)} to a value the target serves"
                         for param, setting in self.defaulted.items())


def setting_value(ctx: CheckContext, name: str, seen: tuple[str, ...] = ()) -> tuple[str, bool]:
    """(value, defaulted) of a target setting: configured, else the catalogue default."""
    value = ctx.optional(name)
    if value:
        return value, False
    defaults = ctx.contract.settings.get("defaults") or {}
    if name not in defaults or name in seen:
        raise ContractFileError(f"{ctx.rule.id}: setting {name} has no default in rules.yaml settings.defaults")
    default = str(defaults[name])
    if default.startswith("{") and default.endswith("}"):
        return setting_value(ctx, default[1:-1], (*seen, name))[0], True
    return default, True


def path_parameters(ctx: CheckContext, operation: str) -> list[dict[str, Any]]:
    # Path-item parameters apply to every operation of the path; the operation's own win.
    def resolved(param: dict[str, Any]) -> dict[str, Any]:
        if "$ref" in param:
            return ctx.contract.openapi["components"]["parameters"][param["$ref"].rsplit("/", 1)[-1]]
        return param

    item = ctx.contract.openapi["paths"][operation.split(" ", 1)[1]]
    own = [resolved(p) for p in ctx.contract.operation(operation).get("parameters", [])]
    names = {p.get("name") for p in own}
    shared = [p for p in map(resolved, item.get("parameters", [])) if p.get("name") not in names]
    return [p for p in (*shared, *own) if p.get("in") == "path"]


def path_values(ctx: CheckContext, operation: str, overrides: dict[str, str] | None = None) -> PathValues:
    values: dict[str, str] = {}
    defaulted: dict[str, str] = {}
    for param in path_parameters(ctx, operation):
        name = param["name"]
        if overrides and name in overrides:
            values[name] = quote(overrides[name], safe="")
            continue
        setting = param.get("x-setting")
        if not setting:
            raise ContractFileError(f"{operation}: path parameter {name} names no x-setting")
        value, was_default = setting_value(ctx, str(setting))
        values[name] = quote(value, safe="")
        if was_default:
            defaulted[name] = str(setting)
    return PathValues(values, defaulted)
