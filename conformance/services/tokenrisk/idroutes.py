"""``route-served-by-id``: a listed route whose path names a resource by an identifier.

``route-served`` (conformance/checks/routes.py) fails on a 404 reached with a configured value.
For a route that answers about one token's sub-resource (its insider graph, its vaults, its
votes, its domain), the document does not say whether an id with nothing to show is answered
404 or an empty answer, so a 404 there cannot tell "route missing" from "none for this id": it
is skipped as not exercised, with the settings to change. 405 and 501 (the method is not there)
still fail. Proposed as a shared parameter of ``route-served`` (``none_statuses``; see the
report), kept here until then.
"""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.registry import named
from conformance.checks.routes import MISSING_PARAM, call_listed, missing, path_values
from conformance.errors import ContractFileError
from conformance.settings import env_name

__all__ = ["route_served_by_id"]


def _settings_of(ctx: CheckContext, operation: str) -> list[str]:
    """The target settings that give the operation's path segments (their ``x-setting``)."""
    names = []
    for param in ctx.contract.operation(operation).get("parameters", []):
        if "$ref" in param:
            param = ctx.contract.openapi["components"]["parameters"][param["$ref"].rsplit("/", 1)[-1]]
        if param.get("in") == "path" and param.get("x-setting"):
            names.append(str(param["x-setting"]))
    return names


@named("route-served-by-id", params={"missing_statuses": MISSING_PARAM, "none_statuses": MISSING_PARAM},
       required=("missing_statuses", "none_statuses"))
def route_served_by_id(ctx: CheckContext) -> None:
    operation = ctx.rule.operation
    if not operation:
        raise ContractFileError(f"{ctx.rule.id}: route-served-by-id needs an operation")
    values = path_values(ctx, operation)
    exchange = call_listed(ctx, operation, values)
    status = exchange.response.status
    if status in ctx.rule.params["none_statuses"]:
        settings = ", ".join(env_name(ctx.contract.service, s) for s in _settings_of(ctx, operation))
        ctx.skip(f"{operation} answered {status} for {values.values}: the document does not say whether an id "
                 f"with nothing to show is answered {status} or an empty answer, so this cannot tell a missing "
                 f"route from none; set {settings} to values the target holds data for")
    missing(ctx, operation, exchange, values, list(ctx.rule.params["missing_statuses"]))
