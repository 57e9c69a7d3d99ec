"""Scenario check of inbox messages: post_type (the default order is the core ``rows-ordered``, bare
dates the core ``zoned-days``, the count of message ids the core ``walked-count-limit``)."""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect
from conformance.checks.registry import named
from conformance.services.social.support import MESSAGES, body, rows_of

__all__: list[str] = []

_INT = {"type": "integer", "minimum": 1}


@named("social/post-type-format", params={"limit": _INT}, required=("limit",))
def post_type_format(ctx: CheckContext) -> None:
    rows, _ = rows_of(ctx, MESSAGES, body(ctx, MESSAGES, fields=["guid", "post_type", "network"],
                                          limit=ctx.rule.params["limit"]), "messages with post_type and network")
    typed = [r for r in rows if isinstance(r.get("post_type"), str) and isinstance(r.get("network"), str)]
    if not typed:
        ctx.skip("no message carried post_type and network")
    for row in typed:
        value, network = row["post_type"], row["network"].upper()
        expect(value == value.upper() and value.startswith(network), ctx.rule.id,
               f"post_type {value!r} of a {row['network']} message", exchange=ctx.session.exchanges[-1],
               expected=f"upper case, prefixed by {network}")
