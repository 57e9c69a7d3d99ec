"""Request schemas narrowed to what the documents say a valid body holds (params of ``valid-bodies``).

Generating every member from its schema makes an id member a random string, while a document
may say the ids come from a list operation ("themeId: from GET /themes"); a server refusing an
unknown id then conforms. ``ids_from`` maps a body member to the list operation whose first page
gives its ids (read once; a lookup that is not answered 200 skips the rule, its own rules report
it); ``narrow`` overlays schema keywords on a member (a generation choice where the document is
silent, never a rule); ``fixed`` pins a member to a value or a ``{SETTING}``.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.bodies import setting_value
from conformance.checks.context import CheckContext
from conformance.checks.paging import items_of

__all__ = ["LOOKUP_PARAMS", "narrowed"]

_MAP_OF_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
LOOKUP_PARAMS: dict[str, Any] = {"ids_from": _MAP_OF_STRINGS,
                                 "narrow": {"type": "object", "additionalProperties": {"type": "object"}},
                                 "fixed": {"type": "object"}}


def _listed_ids(ctx: CheckContext, lookup: str) -> list[str]:
    """The string ids of the first page of ``lookup`` (a list operation)."""
    exchange = ctx.call(lookup)
    if exchange.response.status != 200:
        ctx.skip(f"{lookup} answered {exchange.response.status}, so no listed id can be sent "
                 "(the lookup's own rules report it)")
    items = items_of(exchange.response.json())
    return [i["id"] for i in items or [] if isinstance(i.get("id"), str)]


def _from_ids(member: dict[str, Any], ids: list[str]) -> dict[str, Any] | None:
    """The member's schema limited to ``ids`` (None: leave the member out)."""
    if member.get("type") == "array":
        # Distinct entries: whether a repeated id is refused is not the point here.
        most = min(member.get("maxItems", len(ids)), len(ids))
        return {**member, "items": {"enum": ids}, "uniqueItems": True, "maxItems": most} if ids else None
    return {"enum": ids} if ids else None


def narrowed(ctx: CheckContext, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (a body schema the caller owns: edited in place) with the rule's ``ids_from``,
    ``narrow`` and ``fixed`` applied to its top-level members."""
    params = ctx.rule.params
    members: dict[str, Any] = schema.get("properties") or {}
    for name, lookup in (params.get("ids_from") or {}).items():
        if name in members:
            limited = _from_ids(members[name], _listed_ids(ctx, lookup))
            if limited is None:
                members.pop(name)
            else:
                members[name] = limited
    for name, overlay in (params.get("narrow") or {}).items():
        members[name] = {**members[name], **overlay}
    for name, value in (params.get("fixed") or {}).items():
        members[name] = {"const": setting_value(ctx, value)}
    return schema
