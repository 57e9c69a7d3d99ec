"""``lookup-bodies``: valid bodies whose ids come from where the document says ids come from.

The generic ``valid-bodies`` check generates every member from its schema, so a ``themeId`` is
a random string and a ``folderIds`` entry a folder nobody made. The document says those ids are
"from GET /themes" and "from GET /folders": a server that refuses an unknown id conforms. This
check (a candidate for ``conformance/checks/properties.py``) first reads one page of each lookup
the rule names and generates those members from the listed ids only; ``narrow`` overlays schema
keywords on a member (a generation choice where the document is silent, never a rule), and
``fixed`` pins a member to a value or a ``{SETTING}``.
"""

from __future__ import annotations

import copy
from typing import Any

from conformance.checks.bodies import setting_value
from conformance.checks.context import CheckContext
from conformance.checks.paging import items_of
from conformance.checks.properties import bodies_answered, documented_only
from conformance.checks.registry import named

__all__ = ["lookup_bodies"]

_MAP_OF_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}


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


@named("presentations/lookup-bodies", params={"ids_from": _MAP_OF_STRINGS,
                                "narrow": {"type": "object", "additionalProperties": {"type": "object"}},
                                "fixed": {"type": "object"}})
def lookup_bodies(ctx: CheckContext) -> None:
    rule = ctx.rule
    operation = rule.operation
    assert operation
    contract = ctx.contract
    schema = copy.deepcopy(documented_only(contract.request_schema(operation), contract))
    members: dict[str, Any] = schema["properties"]
    for name, lookup in (rule.params.get("ids_from") or {}).items():
        if name in members:
            limited = _from_ids(members[name], _listed_ids(ctx, lookup))
            if limited is None:
                members.pop(name)
            else:
                members[name] = limited
    for name, overlay in (rule.params.get("narrow") or {}).items():
        members[name] = {**members[name], **overlay}
    for name, value in (rule.params.get("fixed") or {}).items():
        members[name] = {"const": setting_value(ctx, value)}
    bodies_answered(ctx, operation, contract.standalone(schema),
                    "a body valid under the documented schema, with listed ids, must be accepted")
